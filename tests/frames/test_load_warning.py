"""A load that met problems says so once, in one ``LoadProblemsWarning`` pointing at ``df.attrs["errors"]``: the
load still returns what it could read, and a warm reload of the unchanged folder says nothing again."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames import LoadProblemsWarning, clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.frames.fs import RACY_NS

from .runkit import basic_events, llm_adapter, write_run

FRAMES = {"runs_df": runs_df, "events_df": events_df, "tools_df": tools_df, "usage_df": usage_df}
GOOD, CUT, TORN = "ep_01JWARNGOOD00000000000000", "ep_01JWARNCUT000000000000000", "ep_01JWARNTORN00000000000000"


def _settle() -> None:
    time.sleep(RACY_NS / 1e9 * 3)  # files older than the file system's tick: a load may key the cache on them


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    write_run(root, GOOD, basic_events(GOOD))
    # sealed, its last line cut (a copy cut short): an event lost, said by every frame that reads the log
    final = {"episode_id": CUT, "outcome": "ok"}
    write_run(root, CUT, basic_events(CUT), final=final, manifest=True, extra_lines=[b'{"id": "cut-off'])
    _settle()
    return root


def _load(frame, root: Path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = frame(root)
    return df, [w for w in caught if issubclass(w.category, LoadProblemsWarning)]


@pytest.mark.parametrize("name", FRAMES)
def test_one_warning_per_load_and_none_on_a_warm_reload(tmp_path: Path, name: str) -> None:
    frame = FRAMES[name]
    root = _root(tmp_path)
    df, said = _load(frame, root)
    assert df.attrs["errors"], "the cut line is a problem of every frame"
    assert len(said) == 1
    text = str(said[0].message)
    assert text.startswith(f"{name}: {len(df.attrs['errors'])} problem")
    assert "1 run " in text and "df.attrs['errors']" in text
    assert said[0].filename == __file__  # it points at the line that loaded, not into the package
    if name != "tools_df":  # no drafts anywhere; every other frame has the good run's rows
        assert GOOD in set(df["episode_id"].astype(str))

    again, said = _load(frame, root)  # warm, nothing changed: the same problems, already said
    assert said == [] and again.attrs["errors"] == df.attrs["errors"]

    # a new damaged run: the next load says so (once), its problems are new
    write_run(root, TORN, basic_events(TORN), extra_lines=[b"{not json\n", b'{"id": "x"}\n'])
    _settle()
    df, said = _load(frame, root)
    assert len(said) == 1 and "2 runs" in str(said[0].message)
    assert _load(frame, root)[1] == []

    clear_cache()  # everything read again: said again
    assert len(_load(frame, root)[1]) == 1


def test_a_clean_load_warns_nothing(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    write_run(root, GOOD, basic_events(GOOD))
    for frame in FRAMES.values():
        df, said = _load(frame, root)
        assert df.attrs["errors"] == [] and said == []


@pytest.mark.parametrize("name", FRAMES)
def test_each_problem_is_listed_once(tmp_path: Path, name: str) -> None:
    root = _root(tmp_path)
    # an engine-written run whose log lost its end after the seal: its row and its model calls both read the log
    ep = noesis_nb.solve("answer a question", using=llm_adapter, runs_dir=root)
    log = root / ep / "events.jsonl"
    log.write_bytes(log.read_bytes()[:-20])
    _settle()
    for _ in ("cold", "warm"):
        errors = FRAMES[name](root).attrs["errors"]
        keys = [(e["path"], e["line"], e["reason"]) for e in errors]
        assert len(keys) == len(set(keys)), errors
