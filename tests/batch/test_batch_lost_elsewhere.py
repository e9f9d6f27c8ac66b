"""A batch call whose queued entry was started by another call that died, and was then recovered and run
again by a third call, runs it as the record now says: it follows the third call's episode to its end instead
of reporting the lost run as the entry's end (three real processes: this one, a killed one, a live one)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import noesis_nb
from noesis_nb.batch.follow import Follower
from noesis_nb.batch.handle import BatchEntry, BatchHandle
from noesis_nb.batch.plan import EntryPlan
from noesis_nb.batch.record import load_record, record_path
from noesis_nb.batch.spec import BatchSpec, parse_tasks, parse_using
from noesis_nb.runtime.resume import resume_from_disk
from tests.batch.agents import slow

ROOT = Path(__file__).resolve().parents[2]
TASKS = [{"task": "zero", "inputs": {"sleep": 6}}, {"task": "one", "inputs": {"sleep": 1}}]
_CALL = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import slow
async def main():
    h = noesis_nb.batch({tasks!r}, using={{"agent": slow}}, root=sys.argv[1], batch_id="same", concurrency=2)
    if sys.argv[2] == "die":  # hold task one's run, then wait to be killed
        while h.entries[1].status != "running" or h.entries[1].handle is None:
            await asyncio.sleep(0.02)
        print("RUNNING", flush=True)
        await asyncio.sleep(120)
    await h
    print([(e.status, e.episode_id) for e in h.entries], flush=True)
asyncio.run(main())
"""


def _call(root: Path, role: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = _CALL.format(tasks=TASKS)
    return subprocess.Popen([sys.executable, "-c", code, str(root), role], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)


def test_a_queued_entry_lost_elsewhere_and_run_again_there_is_followed_to_its_end(tmp_path: Path) -> None:
    async def cell() -> tuple[list[tuple[str, str | None, str | None]], str]:
        batch = noesis_nb.batch(TASKS, using={"agent": slow}, root=tmp_path, batch_id="same", concurrency=1)
        while batch.counts() != {"running": 1, "queued": 1}:  # task zero holds the one slot, task one waits
            await asyncio.sleep(0.02)
        owner = _call(tmp_path, "die")
        assert owner.stdout is not None and owner.stdout.readline().strip() == "RUNNING"
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
        third = _call(tmp_path, "live")  # recovers task one's run (sealed lost) and runs the task again
        await asyncio.wait_for(batch, 120)
        out, _ = third.communicate(timeout=120)
        return [(e.status, e.episode_id, e.error) for e in batch.entries], out

    entries, third = asyncio.run(cell())
    record = json.loads((tmp_path / "batches" / "same.json").read_text())["entries"]
    assert len(record[1]["previous"]) == 1, record  # task one's lost run, and the one run again
    assert entries == [("ok", record[0]["episode_id"], None), ("ok", record[1]["episode_id"], None)], entries
    assert third.strip() == repr([("ok", record[0]["episode_id"]), ("ok", record[1]["episode_id"])])
    marks = [p.name for p in tmp_path.iterdir() if p.name.startswith("ep_")]
    assert sorted(marks) == sorted([record[0]["episode_id"], record[1]["episode_id"], *record[1]["previous"]])


_OWNER = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import slow
async def main():
    h = noesis_nb.batch({tasks!r}, using={{"agent": slow}}, root=sys.argv[1], batch_id="same", concurrency=2)
    while h.counts() != {{"running": 2}}:
        await asyncio.sleep(0.02)
    print("RUNNING", flush=True)
    await asyncio.sleep(120)
asyncio.run(main())
"""


def test_a_followed_lost_run_another_call_sealed_first_runs_again_as_the_record_says(tmp_path: Path) -> None:
    """Two calls of a batch whose process died: one recovers the lost run as it plans (seals it, then records its
    next episode), the other follows it, saw it unsealed and nobody holding it, and recovers it too — finding it
    sealed already. That one must take the episode the record names next (now or once the first call records it),
    as a run found sealed on a look is, not end the entry with the lost run (it did, when it looked before the
    first call had written the record: the two calls then disagreed on the entry). A run this call sealed itself
    still ends the entry, which says how the batch runs it again."""
    tasks = [{"task": t, "inputs": {"sleep": 60}} for t in ("zero", "one")]
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER.format(tasks=tasks), str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout is not None and owner.stdout.readline().strip() == "RUNNING"
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    spec = BatchSpec("same", tmp_path, parse_tasks(tasks), parse_using({"agent": slow}), 2, None, None, {})
    path = record_path(tmp_path, "same")
    plan = EntryPlan(spec, load_record(path) or {}, path)  # both runs lost: followed as a call that saw them held does
    asked: list[tuple[int, bool]] = []

    def requeue(entry: BatchEntry, *, moved_only: bool = False) -> bool:
        asked.append((entry.index, moved_only))
        return True

    async def cell() -> None:
        handle = BatchHandle("same", tmp_path, path, plan.entries, asyncio.get_running_loop())
        follower = Follower(handle, spec, asyncio.Semaphore(2), requeue=requeue)
        zero, one = plan.entries
        assert zero.run_dir is not None and one.run_dir is not None
        assert (await resume_from_disk(zero.run_dir)).action == "sealed_lost"  # the other call, first
        await follower._resume(zero, lost=True)
        await follower._resume(one, lost=True)  # this call seals it itself

    asyncio.run(cell())
    assert asked == [(0, False), (1, True)], asked
