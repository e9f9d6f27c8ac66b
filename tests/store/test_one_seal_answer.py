"""Every reader of a run answers "is it sealed?" as ``store.sealing.seal_state`` does, or refuses by name.

A run written by noesis_nb (paused on a tool draft) is copied, then its ``final.json`` and ``manifest.json`` are
crafted: regular files, a seal cut short, a manifest that is no JSON, and a symbolic link (into the run, or
dangling), a folder or a FIFO in either place. Each reader is walked over each case: the frames (``runs_df``'s
``sealed`` column; ``events_df``, ``tools_df`` and ``usage_df`` where the seal changes what they report), the
run listing, the OpenTelemetry export, a decision on the draft and the Noēsis lifecycle calls (``ns``).
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
from noesis_nb.errors import RunLifecycleTransitionError, RunSealedError
from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.frames import fs as frames_fs
from noesis_nb.frames.problems import CUT_IN_SEALED_RUN, NO_EVENTS_IN_SEALED_RUN
from noesis_nb.integrations.otel_spans import run_spans
from noesis_nb.store import list_runs
from noesis_nb.store.artifacts import write_manifest
from noesis_nb.store.runfiles import MAX_DOCUMENT_BYTES
from noesis_nb.store.sealing import SealDocumentError, SealState, seal_state
from noesis_nb.tools.decisions import decide
from tests.frames.runkit import writer_adapter

# (final.json, manifest.json): None absent; "file" a regular file noesis_nb would write; "not json" a regular file
# that is no JSON; "too large" a sparse regular file past what a run document is read at; "link" a symbolic link
# to a regular copy inside the run; "dangling" a link to nothing; "folder"; "fifo"
CASES: dict[str, tuple[str | None, str | None]] = {
    "unsealed": (None, None),
    "sealed": ("file", "file"),
    "seal being written": ("file", None),
    "manifest alone (older Noesis)": (None, "file"),
    "manifest not json": ("file", "not json"),
    "manifest too large": ("file", "too large"),
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


@pytest.fixture(autouse=True)
def _fresh_frames_cache():
    clear_cache()
    yield
    clear_cache()


def plant(run: Path, final: str | None, manifest: str | None) -> None:
    """Make the run's seal documents what the case says (``CASES``)."""
    if final in ("file", "link"):
        doc = {"schema_version": "final/2.0.0", "episode_id": run.name, "outcome": "success"}
        (run / "final.json").write_bytes(orjson.dumps(doc))
    if manifest in ("file", "link"):
        write_manifest(run, run.name)
    elif manifest == "not json":
        (run / "manifest.json").write_text('{"files": [', encoding="utf-8")
    elif manifest == "too large":
        with open(run / "manifest.json", "wb") as fh:  # sparse: no byte of it is on disk
            fh.truncate(MAX_DOCUMENT_BYTES + 1)
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
    """Every entry of the run: a regular file's bytes (a large one's size and mtime), anything else by its type
    (a FIFO is never opened)."""
    out: dict[str, Any] = {}
    for path in sorted(run.rglob("*")):
        st = path.lstat()
        if not stat.S_ISREG(st.st_mode):
            out[str(path.relative_to(run))] = stat.S_IFMT(st.st_mode)
        else:
            out[str(path.relative_to(run))] = path.read_bytes() if st.st_size < 1 << 20 else (st.st_size, st.st_mtime_ns)
    return out


def reasons(df: Any) -> list[str]:
    return [f"{e['path']}: {e['reason']}" for e in df.attrs["errors"]]


def named_odd(df: Any, seal: SealState) -> None:
    """A seal document in a shape noesis_nb never writes is one problem naming it and what to do."""
    assert seal.odd is not None
    found = [r for r in reasons(df) if r.startswith(str(seal.odd[0]))]
    assert found and all("Move it out of the run folder" in r for r in found), reasons(df)


# ---- the readers: (prepare the copied run before the case is planted, check the reader against seal_state) ----


def _nothing(run: Path) -> None:
    pass


def _cut_last_line(run: Path) -> None:
    with open(run / "events.jsonl", "ab") as fh:
        fh.write(b'{"timestamp": "2025-03-01T00:00:09Z", "phase": "act", "pay')


def _no_log(run: Path) -> None:
    (run / "events.jsonl").unlink()


def check_runs_df(run: Path, seal: SealState) -> None:
    df = runs_df(str(run))
    assert df["sealed"].tolist() == [seal.sealed]
    assert df["manifest_ok"].isna().tolist() == [not seal.sealed]  # a sealed run has a verdict on its manifest
    if seal.odd is not None:
        named_odd(df, seal)


def check_runs_df_cached_then_mended(run: Path, seal: SealState) -> None:
    """A run read (and cached) with its seal documents as planted, then mended: the next load sees it mended."""
    racy, frames_fs.RACY_NS = frames_fs.RACY_NS, 0  # every stamp counts as settled: the first load is cached
    try:
        runs_df(str(run))
        for name in ("final.json", "manifest.json"):
            path = run / name
            if path.is_symlink() or path.is_fifo():
                path.unlink()
            elif path.is_dir():
                path.rmdir()
        df = runs_df(str(run))
    finally:
        frames_fs.RACY_NS = racy
    now = seal_state(run)
    assert now.odd is None and df["sealed"].tolist() == [now.sealed]
    assert not [r for r in reasons(df) if "Move it out of the run folder" in r], reasons(df)


def check_list_runs(run: Path, seal: SealState) -> None:
    assert [row["sealed"] for row in list_runs(runs_dir=run.parent)] == [seal.sealed]


def _cut_reported(frame: Callable[..., Any]) -> Callable[[Path, SealState], None]:
    def check(run: Path, seal: SealState) -> None:
        cut = [r for r in reasons(frame(str(run))) if CUT_IN_SEALED_RUN in r]
        assert bool(cut) == (seal.final or seal.manifest), cut  # a seal written: the log was closed before it

    return check


def _missing_log_reported(frame: Callable[..., Any]) -> Callable[[Path, SealState], None]:
    def check(run: Path, seal: SealState) -> None:
        missing = [r for r in reasons(frame(str(run))) if NO_EVENTS_IN_SEALED_RUN in r]
        assert bool(missing) == seal.final, missing

    return check


def check_otel(run: Path, seal: SealState) -> None:
    problems: list[str] = []
    assert run_spans(run, problems=problems) == []
    assert any("is missing" in p for p in problems) == (seal.final or seal.manifest), problems


def check_otel_cut_line(run: Path, seal: SealState) -> None:
    problems: list[str] = []
    run_spans(run, problems=problems)
    cut = [p for p in problems if "cut off" in p]
    assert bool(cut) == (seal.final or seal.manifest), problems  # a seal written: the log was closed before it


def _refused(run: Path, seal: SealState, call: Callable[[], Any]) -> Any:
    """``call`` refuses an odd seal document by name, a damaged one (a regular file holding no JSON object) by name
    too, a seal (or one being written) as sealed, writing nothing; else it does what it does."""
    before = tree(run)
    damaged = [run / n for n in ("final.json", "manifest.json") if _no_json_object(run / n)]
    if seal.odd is not None or damaged:
        with pytest.raises(SealDocumentError, match=str(seal.odd[0] if seal.odd is not None else damaged[0])):
            call()
    elif seal.final or seal.manifest:
        with pytest.raises(RunSealedError) as caught:
            call()
        assert not isinstance(caught.value, SealDocumentError)
    else:
        return call()
    assert tree(run) == before
    return None


def _no_json_object(path: Path) -> bool:
    """A regular file small enough to be read that holds no JSON object (``refuse_odd_seal`` refuses it)."""
    st = os.lstat(path) if os.path.lexists(path) else None
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DOCUMENT_BYTES:
        return False
    try:
        return not isinstance(orjson.loads(path.read_bytes()), dict)
    except orjson.JSONDecodeError:
        return True


def check_decide(run: Path, seal: SealState) -> None:
    got = _refused(run, seal, lambda: decide(run, None, approve=True, approver_id="ops"))
    if got is not None:
        assert got[1] is True  # an unsealed run takes the decision


def check_ns_checkpoint(run: Path, seal: SealState) -> None:
    """A seal (odd or not) is refused as for every lifecycle call; unsealed, the run is paused: its checkpoint binds
    it, so a second one is refused as a lifecycle transition, writing nothing."""
    ns.set(runs_dir=str(run.parent))
    if seal.odd is None and not (seal.final or seal.manifest):
        before = tree(run)
        with pytest.raises(RunLifecycleTransitionError, match="already binds it"):
            ns.checkpoint(run.name)
        assert tree(run) == before
        return
    _refused(run, seal, lambda: ns.checkpoint(run.name))


READERS: dict[str, tuple[Callable[[Path], None], Callable[[Path, SealState], None]]] = {
    "runs_df sealed": (_nothing, check_runs_df),
    "runs_df cached, then mended": (_nothing, check_runs_df_cached_then_mended),
    "list_runs sealed": (_nothing, check_list_runs),
    "events_df cut line": (_cut_last_line, _cut_reported(events_df)),
    "tools_df cut line": (_cut_last_line, _cut_reported(tools_df)),
    "usage_df cut line": (_cut_last_line, _cut_reported(usage_df)),
    "events_df no log": (_no_log, _missing_log_reported(events_df)),
    "usage_df no log": (_no_log, _missing_log_reported(usage_df)),
    "otel export no log": (_no_log, check_otel),
    "otel export cut line": (_cut_last_line, check_otel_cut_line),
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
