"""The stamps a kept ``runs_df`` frame is served by (``frames.keptframe``): held as one string of bytes, checked by a
``stat`` of every file and folder each row came from, in a real new process.

A new process served a kept frame used to unpickle a dict of stamp tuples for each run (~70 objects a run, kept
alive with the frame) before checking them: that cost more than the ``stat`` calls that check them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from noesis_nb.frames import clear_cache, runs_df
from noesis_nb.frames import runs as runs_module
from noesis_nb.frames._arrays import HAVE_ARROW

from .newprocess import CODE, copy_runs, load_counted, same, settle
from .runkit import basic_events, hand_summary, write_run

#: a new process's first runs_df of ``root`` (after one of ``warm``, which pays what a process pays once): the Python
#: memory blocks still held once it returned (the frame alive), per run; and whether it built the frame (0: served)
BLOCKS = """
import gc, json, sys
args = json.loads(sys.argv[1])
if args["no_pyarrow"]:
    import tests.hardening._no_pyarrow
import pandas
from noesis_nb.frames import runindex, runs as runs_module, runs_df
runindex._CODE = args["code"].encode()
built, frame = [], runs_module._frame
runs_module._frame = lambda *a, **kw: built.append(1) or frame(*a, **kw)
runs_df(args["warm"], progress=False)
del built[:]
gc.collect()
before = sys.getallocatedblocks()
df = runs_df(args["root"], progress=False)
gc.collect()
print(json.dumps({"per_run": (sys.getallocatedblocks() - before) / len(df), "built": len(built), "rows": len(df)}))
"""


def _blocks(root: Path, warm: Path, env: dict[str, str]) -> dict[str, Any]:
    args = {"root": str(root), "warm": str(warm), "no_pyarrow": not HAVE_ARROW, "code": CODE}
    done = subprocess.run([sys.executable, "-c", BLOCKS, json.dumps(args)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _full(root: Path, env: dict[str, str], tmp_path: Path, name: str) -> pd.DataFrame:
    """The frame of a process that never saw these runs: every run read, the frame built."""
    df, reads, built = load_counted(
        root, {**env, "NOESIS_NB_CACHE_DIR": str(tmp_path / f"other-{name}")}, tmp_path / f"{name}.pkl"
    )
    assert built == 1 and len(reads) == len(df)
    return df


def test_a_served_frame_holds_its_runs_stamps_as_bytes_not_objects(
    clean_corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    root = copy_runs(clean_corpus, tmp_path)
    for i in range(300):  # hand runs beside the engine's (with tool records): a stamp of 4 to 11 files a run
        ep = f"ep_hand{i:03d}"
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task=f"task {i}"), manifest=True)
    warm = tmp_path / "warm"
    for ep in ("ep_warm1", "ep_warm2"):
        write_run(warm, ep, basic_events(ep), summary=hand_summary(ep, task="warm"), manifest=True)
    settle()
    kept = _blocks(root, warm, env)
    assert kept["built"] == 1
    served = _blocks(root, warm, env)
    assert served["built"] == 0 and served["rows"] == kept["rows"]
    # the frame, the runs' paths and their files' names: ~6 blocks a run; with a dict of stamp tuples a run, 28 here
    # (75 a run of the engine's, with its tool records)
    assert served["per_run"] < 15, served


def _edit_tool_record(run: Path) -> None:
    """A tool record rewritten in place (its spacing), its size and mtime kept: only its ctime tells."""
    record = next(run.rglob("prepared/*.json"))
    st, text = record.stat(), record.read_text()
    assert text.startswith('{\n  "')
    with open(record, "r+", encoding="utf-8") as fh:
        fh.write('{ \n "' + text[len('{\n  "') :])
    os.utime(record, ns=(st.st_atime_ns, st.st_mtime_ns))


def _add_kind_folder(run: Path) -> None:
    """A folder made in ``tool_invocations/`` (a tool kind's): only that folder's stamp tells."""
    (run / "tool_invocations" / "x-other").mkdir()


def _remove_learn(run: Path) -> None:
    """A file the manifest lists removed: a stamp that was a file's is now None."""
    (run / "learn.jsonl").unlink()


def _swap_records(run: Path) -> None:
    """The run's prepared record replaced by a copy made by rename (same bytes, size and times; another inode)."""
    record = next(run.rglob("prepared/*.json"))
    copy = record.with_name(".copy")
    copy.write_bytes(record.read_bytes())
    st = record.stat()
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(copy, record)


def _edit_execution_record(run: Path) -> None:
    """A sealed run's execution record rewritten in place, its size and times kept: only its own ctime tells (its
    folder, listed only to find it, is no longer stamped)."""
    record = next(run.rglob("executions/*.json"))
    st = record.stat()
    data = record.read_bytes()
    record.write_bytes(data[:-1] + (b" " if data[-1:] != b" " else b"\n"))
    os.utime(record, ns=(st.st_atime_ns, st.st_mtime_ns))


def _link_executions_out(run: Path) -> None:
    """A sealed run's ``executions/`` moved out of the run, a link to it put in its place: each record keeps its stat
    (the same inode, size and times); only ``tool_invocations/``, the folder holding the link, tells."""
    folder = run / "tool_invocations" / "executions"
    outside = run.parent.parent / f"{run.name}-executions"
    folder.rename(outside)
    folder.symlink_to(outside)


def test_a_records_folder_left_unstamped_is_guarded_by_its_records_and_its_parent(
    clean_corpus: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    """The folder of a sealed run's execution records is listed only for the manifest check, each record in it stat'ed:
    it is not stamped (one ``stat`` less a run), and a change to it or to its records still shows in a new process."""
    root = copy_runs(clean_corpus, tmp_path)
    runs = sorted(p for p in root.iterdir() if (p / "manifest.json").is_file() and any(p.rglob("executions/*.json")))
    assert len(runs) >= 2
    _, _, built = load_counted(root, env, tmp_path / "a.pkl")
    assert built == 1
    for run, change in zip(runs, (_edit_execution_record, _link_executions_out)):
        change(run)
        settle()
        got, reads, built = load_counted(root, env, tmp_path / f"{change.__name__}.pkl")
        assert reads == [run.name] and built == 1, change.__name__
        same(got, _full(root, env, tmp_path, change.__name__))


def test_a_records_folder_left_unstamped_shows_its_changes_in_the_same_process(
    clean_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same two changes seen by the in-memory cache: the next load in the process reads that run again."""
    monkeypatch.setenv("NOESIS_NB_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_runs(clean_corpus, tmp_path)
    runs = sorted(p for p in root.iterdir() if (p / "manifest.json").is_file() and any(p.rglob("executions/*.json")))
    reads: list[str] = []
    read_run = runs_module.read_run
    monkeypatch.setattr(runs_module, "read_run", lambda ref, **kw: reads.append(ref.name) or read_run(ref, **kw))
    clear_cache()
    runs_df(root, progress=False)
    for run, change in zip(runs, (_edit_execution_record, _link_executions_out)):
        change(run)
        settle()
        del reads[:]
        got = runs_df(root, progress=False)
        assert reads == [run.name], change.__name__
        pd.testing.assert_frame_equal(got, runs_df(root, progress=False, cache=False))
        assert got.attrs["errors"] == runs_df(root, progress=False, cache=False).attrs["errors"]
    assert any(run.name in e["path"] for e in got.attrs["errors"])  # the link out of the run is reported
    clear_cache()


def test_every_file_and_folder_a_row_came_from_is_checked(clean_corpus: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """Each change, made after the frame was kept, has the next new process read the run again and build the frame a
    process that never saw the runs builds: a file edited in place, a folder gaining an entry, a file gone, a file
    replaced by rename with the same bytes and times."""
    root = copy_runs(clean_corpus, tmp_path)
    runs = sorted(p for p in root.iterdir() if (p / "manifest.json").is_file() and any(p.rglob("prepared/*.json")))
    assert len(runs) >= 2
    _, _, built = load_counted(root, env, tmp_path / "a.pkl")
    assert built == 1
    # the last leaves a run the manifest check fails (a problem): no frame is kept after it
    for i, change in enumerate((_edit_tool_record, _add_kind_folder, _swap_records, _remove_learn)):
        run = runs[i % len(runs)]
        change(run)
        settle()
        got, reads, built = load_counted(root, env, tmp_path / f"{change.__name__}.pkl")
        assert reads == [run.name] and built == 1, change.__name__
        same(got, _full(root, env, tmp_path, str(i)))
