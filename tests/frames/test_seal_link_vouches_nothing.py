"""A link in the place of a sealed run's ``final.json`` is no seal (``store.sealing.seal_state``), so the seal it
leads to vouches for nothing: the frames screen the run as one nobody sealed, as they do when final.json is gone.

The seal binds the log's and summary's sizes and times, not their contents (``store.seal``): a same-size edit with
the time set back is read as written under a real seal. Here that edit puts a key into the run, and the link
must not make the frames take it as screened.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache, events_df, runs_df
from noesis_nb.store.sealing import seal_state

from .runkit import llm_adapter

KEY = "AKIAZ7Q2X9RP4LMN8TVW"  # the shape of an AWS access key id
TASK = "reply " + "x" * len(KEY)


@pytest.fixture(scope="module")
def sealed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("sealed") / "runs"
    ep = noesis_nb.solve(TASK, using=llm_adapter, runs_dir=runs)
    run = runs / ep
    for name in ("events.jsonl", "summary.json"):  # same size, time set back: the seal still holds
        path = run / name
        st = os.stat(path)
        data = path.read_bytes()
        assert TASK.encode() in data
        path.write_bytes(data.replace(TASK.encode(), ("reply " + KEY).encode()))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return run


def _copy(run: Path, into: Path, final: str) -> Path:
    copy = into / "runs" / run.name
    shutil.copytree(run, copy, symlinks=True)
    if final == "gone":
        (copy / "final.json").unlink()
    elif final == "link":
        (copy / "kept").mkdir()
        (copy / "final.json").rename(copy / "kept" / "final.json")
        os.symlink(os.path.join("kept", "final.json"), copy / "final.json")
    return copy


def _read(run: Path) -> tuple[list[str], list[str]]:
    clear_cache()
    events = events_df(str(run))
    payloads = [str(p) for p in events["payload"]]
    return runs_df(str(run))["task"].tolist(), payloads


def test_a_linked_final_json_is_read_as_no_seal(sealed_run: Path, tmp_path: Path) -> None:
    linked = _copy(sealed_run, tmp_path / "linked", "link")
    gone = _copy(sealed_run, tmp_path / "gone", "gone")
    regular = _copy(sealed_run, tmp_path / "regular", "kept")  # copytree keeps the times: the seal holds
    assert seal_state(linked).odd is not None and not seal_state(gone).final
    assert _read(regular) != _read(gone)  # the case is one where the seal decides
    tasks, payloads = _read(linked)
    assert (tasks, payloads) == _read(gone)
    assert not any(KEY in text for text in [*tasks, *payloads])
