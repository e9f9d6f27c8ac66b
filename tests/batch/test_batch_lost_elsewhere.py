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
