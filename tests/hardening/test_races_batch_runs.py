"""A batch whose record names runs that are not its entries' (copied from another batch, ids swapped or
shared, a run another process started under a reserved id): no entry reports another run's result."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import read_json

from ..batch.agents import echo
from ..compat.checker import check_run
from ..conftest import REPO


def run_batch(tasks: Any, **kw: Any) -> Any:
    async def main() -> Any:
        return await asyncio.wait_for(noesis_nb.batch(tasks, **kw), 30)

    return asyncio.run(main())


def sealed_at(run_dir: Path) -> int:
    return (run_dir / "manifest.json").stat().st_mtime_ns


def test_a_record_copied_from_another_batch_reports_none_of_its_runs(runs_dir: Path) -> None:
    first = run_batch(["alpha", "beta"], using=echo, root=runs_dir, batch_id="first")
    theirs = {e.episode_id: sealed_at(e.run_dir) for e in first.entries}
    record = json.loads((runs_dir / "batches" / "first.json").read_text())
    (runs_dir / "batches" / "copy.json").write_text(json.dumps({**record, "batch_id": "copy"}))

    copy = run_batch(["alpha", "beta"], using=echo, root=runs_dir, batch_id="copy")

    for entry, row in zip(copy.entries, record["entries"]):
        assert entry.status == "error" and entry.episode_id is None
        assert f"{runs_dir / row['episode_id']} is not the run of task {entry.index}" in str(entry.error)
        assert "of batch 'first'" in str(entry.error) and "pass a new batch_id" in str(entry.error)
    assert {e.episode_id: sealed_at(e.run_dir) for e in first.entries} == theirs, "their runs are left alone"
    assert all(check_run(e.run_dir) == [] for e in first.entries)


def test_swapped_ids_in_a_record_report_neither_run_as_the_other_task(runs_dir: Path) -> None:
    first = run_batch(["alpha", "beta"], using=echo, root=runs_dir, batch_id="swap")
    path = runs_dir / "batches" / "swap.json"
    record = json.loads(path.read_text())
    rows = record["entries"]
    rows[0]["episode_id"], rows[1]["episode_id"] = rows[1]["episode_id"], rows[0]["episode_id"]
    path.write_text(json.dumps(record))

    again = run_batch(["alpha", "beta"], using=echo, root=runs_dir, batch_id="swap")

    assert [e.status for e in again.entries] == ["error", "error"]
    assert "started for task 1" in str(again.entries[0].error) and "started for task 0" in str(again.entries[1].error)
    for entry in first.entries:  # each run still says which task it answered
        assert read_json(entry.run_dir / "final.json") is not None and check_run(entry.run_dir) == []


def test_a_record_naming_one_run_for_two_entries_is_refused_by_name(runs_dir: Path) -> None:
    run_batch(["alpha", "beta"], using=echo, root=runs_dir, batch_id="dup")
    path = runs_dir / "batches" / "dup.json"
    record = json.loads(path.read_text())
    shared = record["entries"][0]["episode_id"]
    record["entries"][1]["previous"] = [shared]
    path.write_text(json.dumps(record))
    before = path.read_bytes()
    with pytest.raises(InvalidOptionError, match=rf"entries 0 and 1 both name run '{shared}'; restore the file"):
        run_batch(["alpha", "beta"], using=echo, root=runs_dir, batch_id="dup")
    assert path.read_bytes() == before, "the record is not rewritten"


async def held(task: str, ctx: Any) -> dict[str, Any]:
    """Answers once the file ``ctx.inputs['gate']`` exists (the first entry holds the only slot till then)."""
    gate = ctx.inputs.get("gate")
    while gate and not os.path.exists(gate):
        await asyncio.sleep(0.02)
    return {"answer": task}


STARTED_BY_HAND = """
import sys, noesis_nb
noesis_nb.solve("by hand", using=lambda task, ctx: {"answer": task}, runs_dir=sys.argv[1], episode_id=sys.argv[2])
"""


@pytest.mark.parametrize("executor", [False, True], ids=["loop", "executor"])
def test_a_run_another_process_starts_under_a_reserved_id_is_not_the_entry(
    runs_dir: Path, tmp_path: Path, executor: bool
) -> None:
    gate = tmp_path / "gate"
    tasks = [{"task": "first", "inputs": {"gate": str(gate)}}, {"task": "second"}]
    pool = ThreadPoolExecutor(2) if executor else None

    async def main() -> Any:
        handle = noesis_nb.batch(tasks, using={"held": held}, root=runs_dir, batch_id="raced", concurrency=1, executor=pool)
        reserved = json.loads((runs_dir / "batches" / "raced.json").read_text())["entries"][1]["episode_id"]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", STARTED_BY_HAND, str(runs_dir), reserved, env=env)
        assert await proc.wait() == 0
        hand_sealed = sealed_at(runs_dir / reserved)
        gate.write_text("go")  # only now does the second entry get the slot
        await asyncio.wait_for(handle, 30)
        return handle, reserved, hand_sealed

    try:
        handle, reserved, hand_sealed = asyncio.run(main())
    finally:
        if pool is not None:
            pool.shutdown()
    first, second = handle.entries
    assert first.status == "ok"
    assert second.status == "error" and second.episode_id is None
    assert f"{runs_dir / reserved} is not the run of task 1" in str(second.error) and "not started by a batch" in str(
        second.error
    )
    hand = runs_dir / reserved
    assert read_json(hand / "state.json")["goal"]["task"] == "by hand", "the run started by hand is its own"
    assert sealed_at(hand) == hand_sealed and check_run(hand) == []
    # the record was never edited: the advice is to move that run away, and the entry then runs under its id
    assert "restore the record" not in str(second.error) and f"move {reserved} out of {runs_dir}" in str(second.error)
    hand.rename(tmp_path / reserved)
    again = run_batch(tasks, using={"held": held}, root=runs_dir, batch_id="raced")
    assert [e.status for e in again.entries] == ["ok", "ok"] and again.entries[1].episode_id == reserved


@pytest.mark.parametrize("planted", ["file", "fifo"])
def test_a_file_or_fifo_under_a_reserved_id_is_named_and_left_alone(runs_dir: Path, planted: str) -> None:
    run_batch(["alpha"], using=echo, root=runs_dir, batch_id="first")
    path = runs_dir / "batches" / "first.json"
    record = json.loads(path.read_text())
    reserved = record["entries"][0]["episode_id"] = "ep_planted"
    path.write_text(json.dumps(record))
    target = runs_dir / reserved
    if planted == "file":
        target.write_text("not a run")
    else:
        os.mkfifo(target)
    [entry] = run_batch(["alpha"], using=echo, root=runs_dir, batch_id="first").entries
    what = "a file" if planted == "file" else "a FIFO (named pipe)"
    assert entry.status == "error" and f"{target} is not the run of task 0" in str(entry.error)
    assert f"it is {what}, not a run folder" in str(entry.error)
    assert target.is_fifo() if planted == "fifo" else target.read_text() == "not a run"
