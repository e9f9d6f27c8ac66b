"""While another process holds a batch's lock (it plans the same batch), ``batch(...)`` never blocks the event loop.

The lock was waited for with ``time.sleep`` inside ``batch(...)`` (a cell's call, on the kernel's loop) and inside
the re-queue of a lost run: for up to 60 s the kernel answered nothing, its views froze and the batch's other
episodes stood still. Here a real process holds the lock until the notebook's loop has visibly gone on.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import noesis_nb
from noesis_nb.errors import InvalidOptionError

from ..conftest import REPO
from .agents import echo
from .lockholder import lock_held
from .loopticks import LoopTicks


def test_batch_called_while_another_process_holds_its_lock_leaves_the_loop_running(runs_dir: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    with lock_held(runs_dir / "batches" / "nightly.json.lock", release, 20) as holder:
        assert holder.stdout is not None

        async def cell() -> tuple[int, list[str]]:
            ticks = LoopTicks().start()
            await asyncio.sleep(0)
            handle = noesis_nb.batch(["a", "b"], using=echo, root=runs_dir, batch_id="nightly")
            await ticks.more(20)  # the loop goes on while the other process holds the lock
            planned_early = [e.status for e in handle.entries]
            release.touch()
            await asyncio.wait_for(handle.wait(), 30)
            ticks.stop()
            return len(planned_early), [str(e.status) for e in handle.entries]

        waiting, statuses = asyncio.run(cell())
        assert holder.stdout.readline().strip() == "RELEASED", "the lock was given up because the loop ran, not at the end"
        assert waiting == 2 and statuses == ["ok", "ok"]


# holds the lock, puts a record of another task list in place once ``go`` appears, then gives the lock up
RECORDER = """
import fcntl, os, shutil, sys, time
from pathlib import Path
lock, record, go = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
lock.parent.mkdir(parents=True, exist_ok=True)
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("HELD", flush=True)
end = time.monotonic() + 20
while not go.exists() and time.monotonic() < end:
    time.sleep(0.01)
shutil.copyfile(record, lock.with_name("nightly.json.part"))
os.replace(lock.with_name("nightly.json.part"), lock.with_name("nightly.json"))
os.close(fd)
"""


def test_a_record_written_by_the_process_holding_the_lock_is_checked_once_planned(runs_dir: Path, tmp_path: Path) -> None:
    """The call that planned later (the lock was busy) reads the record the other process wrote: another task list
    is the one error of a batch called with other tasks, named in each entry and raised by ``wait()``."""
    other = tmp_path / "other"

    async def first() -> None:
        await noesis_nb.batch(["x"], using=echo, root=other, batch_id="nightly").wait()

    asyncio.run(first())
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    lock = runs_dir / "batches" / "nightly.json.lock"
    record = other / "batches" / "nightly.json"
    holder = subprocess.Popen(
        [sys.executable, "-c", RECORDER, str(lock), str(record), str(go)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "HELD"

        async def cell() -> tuple[list[str], str]:
            handle = noesis_nb.batch(["a", "b"], using=echo, root=runs_dir, batch_id="nightly")
            go.touch()
            try:
                await asyncio.wait_for(handle.wait(), 30)
            except InvalidOptionError as exc:
                return [str(e.error) for e in handle.entries], str(exc)
            return [str(e.status) for e in handle.entries], ""

        said, raised = asyncio.run(cell())
        assert "recorded with another task list" in raised
        assert len(said) == 2 and all("could not be planned" in s and "another task list" in s for s in said), said
        assert not [p for p in runs_dir.iterdir() if p.name.startswith("ep_")], "nothing ran"
    finally:
        holder.kill()
        holder.wait()
