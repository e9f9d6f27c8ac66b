"""Every reader of a run answers "is it sealed?" as ``store.sealing.seal_state`` does, or refuses by name.

A run written by noesis_nb (paused on a tool draft) is copied, then its ``final.json`` and ``manifest.json`` are
crafted: regular files, a seal cut short, a manifest that is no JSON, and a symbolic link (into the run, or
dangling), a folder or a FIFO in either place. Each reader is walked over each case: the run listing, the
OpenTelemetry export, a decision on the draft and the Noēsis lifecycle calls (``ns``).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import RunSealedError
from noesis_nb.integrations.otel_spans import run_spans
from noesis_nb.store import list_runs
from noesis_nb.store.artifacts import write_manifest
from noesis_nb.store.sealing import SealDocumentError, SealState, seal_state
from noesis_nb.tools.decisions import decide
from tests.frames.runkit import writer_adapter

# (final.json, manifest.json): None absent; "file" a regular file noesis_nb would write; "not json" a regular file
# that is no JSON; "link" a symbolic link to a regular copy inside the run; "dangling" a link to nothing;
# "folder"; "fifo"
CASES: dict[str, tuple[str | None, str | None]] = {
    "unsealed": (None, None),
    "sealed": ("file", "file"),
    "seal being written": ("file", None),
    "manifest alone (older Noesis)": (None, "file"),
    "manifest not json": ("file", "not json"),
    "manifest link into the run": ("file", "link"),
    "manifest dangling link": ("file", "dangling"),
    "manifest folder": ("file", "folder"),
    "manifest fifo": ("file", "fifo"),
    "final link into the run": ("link", None),
    "final link, manifest a file": ("link", "file"),
    "final dangling link": ("dangling", None),
    "final folder": ("folder", None),
    "final fifo": ("fifo", None),
}


@pytest.fixture(scope="module")
def paused_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run noesis_nb wrote, paused on a pending tool draft (no seal document yet)."""
    runs = tmp_path_factory.mktemp("seal-base") / "runs"
    ep = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    return runs / ep


def plant(run: Path, final: str | None, manifest: str | None) -> None:
    """Make the run's seal documents what the case says (``CASES``)."""
    if final in ("file", "link"):
        doc = {"schema_version": "final/2.0.0", "episode_id": run.name, "outcome": "success"}
        (run / "final.json").write_bytes(orjson.dumps(doc))
    if manifest in ("file", "link"):
        write_manifest(run, run.name)
    elif manifest == "not json":
        (run / "manifest.json").write_text('{"files": [', encoding="utf-8")
    for name, shape in (("final.json", final), ("manifest.json", manifest)):
        path = run / name
        if shape == "link":
            (run / "kept").mkdir(exist_ok=True)
            path.rename(run / "kept" / name)
            os.symlink(os.path.join("kept", name), path)
        elif shape == "dangling":
            os.symlink("gone.json", path)
        elif shape == "folder":
            path.mkdir()
        elif shape == "fifo":
            os.mkfifo(path)


def tree(run: Path) -> dict[str, Any]:
    """Every entry of the run: a regular file's bytes, anything else by its type (a FIFO is never opened)."""
    out: dict[str, Any] = {}
    for path in sorted(run.rglob("*")):
        mode = path.lstat().st_mode
        out[str(path.relative_to(run))] = path.read_bytes() if stat.S_ISREG(mode) else stat.S_IFMT(mode)
    return out


# ---- the readers: (prepare the copied run before the case is planted, check the reader against seal_state) ----


def _nothing(run: Path) -> None:
    pass


def _no_log(run: Path) -> None:
    (run / "events.jsonl").unlink()


def check_list_runs(run: Path, seal: SealState) -> None:
    assert [row["sealed"] for row in list_runs(runs_dir=run.parent)] == [seal.sealed]


def check_otel(run: Path, seal: SealState) -> None:
    problems: list[str] = []
    assert run_spans(run, problems=problems) == []
    assert any("is missing" in p for p in problems) == (seal.final or seal.manifest), problems


def _refused(run: Path, seal: SealState, call: Callable[[], Any]) -> Any:
    """``call`` refuses an odd seal document by name, a seal (or one being written) as sealed, writing nothing;
    else it does what it does."""
    before = tree(run)
    if seal.odd is not None:
        with pytest.raises(SealDocumentError, match=str(seal.odd[0])):
            call()
    elif seal.final or seal.manifest:
        with pytest.raises(RunSealedError) as caught:
            call()
        assert not isinstance(caught.value, SealDocumentError)
    else:
        return call()
    assert tree(run) == before
    return None


def check_decide(run: Path, seal: SealState) -> None:
    got = _refused(run, seal, lambda: decide(run, None, approve=True, approver_id="ops"))
    if got is not None:
        assert got[1] is True  # an unsealed run takes the decision


def check_ns_checkpoint(run: Path, seal: SealState) -> None:
    ns.set(runs_dir=str(run.parent))
    got = _refused(run, seal, lambda: ns.checkpoint(run.name))
    if got is not None:
        assert (run / "checkpoints" / got["checkpoint_id"] / "checkpoint.json").is_file()


READERS: dict[str, tuple[Callable[[Path], None], Callable[[Path, SealState], None]]] = {
    "list_runs sealed": (_nothing, check_list_runs),
    "otel export no log": (_no_log, check_otel),
    "decide": (_nothing, check_decide),
    "ns.checkpoint": (_nothing, check_ns_checkpoint),
}


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("case", list(CASES))
def test_every_reader_gives_seal_states_answer(paused_run: Path, tmp_path: Path, case: str, reader: str) -> None:
    run = tmp_path / "runs" / paused_run.name
    shutil.copytree(paused_run, run, symlinks=True)
    prepare, check = READERS[reader]
    prepare(run)
    plant(run, *CASES[case])
    check(run, seal_state(run))
