"""``upload_to``: every sealed run of a batch is copied exactly once, whoever sealed it.

A run the batch followed but another process ended (a pause decided and resumed by ``resume_run`` in another
process, the episodes of another kernel running the same batch) was never copied: only runs this process
sealed or resumed were. A copy cut short by a kill is completed by the batch that follows the run.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import noesis_nb
from noesis_nb.store.artifacts import verify_manifest

from ..conftest import REPO
from .agents import asks, slow

# resumes a decided run in this process (the batch's own kernel stays alive, its follower looking on)
RESUME_ELSEWHERE = """
import sys
import noesis_nb
from tests.batch.agents import asks
noesis_nb.approve_draft(sys.argv[1], approver_id="ana")
noesis_nb.resume_run(sys.argv[1], using=asks)
print("SEALED", flush=True)
"""

# runs the batch (no upload_to) until its 'approve' episode is paused, then waits to be killed
PAUSER = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import asks

async def main():
    tasks = [{"task": "approve it", "inputs": {"out": sys.argv[2]}}, {"task": "just answer"}]
    handle = noesis_nb.batch(tasks, using=asks, root=sys.argv[1], batch_id="b")
    await handle
    print("PAUSED" if handle.counts() == {"ok": 1, "paused": 1} else handle.counts(), flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""

# runs the batch without upload_to; its 'slow' episode ends while the notebook's batch follows it
OWNER = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import slow

async def main():
    handle = noesis_nb.batch([{"task": "a", "inputs": {"sleep": 1.5}}], using=slow, root=sys.argv[1], batch_id="own")
    while handle.counts() != {"running": 1}:
        await asyncio.sleep(0.01)
    print("RUNNING", flush=True)
    await handle.wait()

asyncio.run(main())
"""

# runs the batch with upload_to and is killed as it writes the copy's manifest
KILLED_MID_COPY = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import kill_at_copy_manifest, slow
kill_at_copy_manifest()

async def main():
    handle = noesis_nb.batch([{"task": "a", "inputs": {"sleep": 1.5}}], using=slow, root=sys.argv[1], batch_id="own",
                             upload_to=sys.argv[2])
    while handle.counts() != {"running": 1}:
        await asyncio.sleep(0.01)
    print("RUNNING", flush=True)
    await handle.wait()

asyncio.run(main())
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "NOESIS_NB_APPROVER": "ask"}


def _whole(run_dir: Path, copy: Path) -> bool:
    return (copy / "manifest.json").read_bytes() == (run_dir / "manifest.json").read_bytes() and verify_manifest(copy).ok


def test_a_pause_resumed_and_sealed_by_another_process_is_copied(runs_dir: Path, tmp_path: Path, monkeypatch) -> None:
    """The kernel that paused the run was killed; the batch called again follows the pause on disk, and another
    process decides and resumes it (``resume_run``): the batch copies the run that process sealed."""
    monkeypatch.setenv("NOESIS_NB_APPROVER", "ask")
    remote = tmp_path / "remote"
    remote.mkdir()
    out = tmp_path / "out.txt"
    tasks = [{"task": "approve it", "inputs": {"out": str(out)}}, {"task": "just answer"}]
    first = subprocess.Popen(
        [sys.executable, "-c", PAUSER, str(runs_dir), str(out)], env=_env(), stdout=subprocess.PIPE, text=True
    )
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "PAUSED"
    finally:
        first.kill()
        first.wait()

    async def cell() -> noesis_nb.BatchHandle:
        handle = noesis_nb.batch(tasks, using=asks, root=runs_dir, batch_id="b", upload_to=f"file://{remote}")
        await asyncio.wait_for(handle, 30)  # one ok, one paused on disk, followed
        (paused,) = [e for e in handle.entries if e.status == "paused"]
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", RESUME_ELSEWHERE, str(paused.run_dir), env=_env(), stdout=asyncio.subprocess.PIPE
        )
        said, _ = await asyncio.wait_for(proc.communicate(), 60)
        await asyncio.wait_for(handle.wait(), 30)
        return handle

    handle = asyncio.run(cell())
    assert sorted(str(e.status) for e in handle.entries) == ["ok", "ok"], [(e.status, e.error) for e in handle.entries]
    assert out.read_text() == "approve it\n", "the decided write ran once"
    for entry in handle.entries:
        assert entry.error is None and entry.run_dir is not None
        assert _whole(entry.run_dir, remote / str(entry.episode_id))


def _follow_other_kernel(runs_dir: Path, url: str, script: str, *args: str) -> tuple[noesis_nb.BatchHandle, int]:
    proc = subprocess.Popen([sys.executable, "-c", script, str(runs_dir), *args], env=_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "RUNNING"

        async def cell() -> noesis_nb.BatchHandle:
            task = [{"task": "a", "inputs": {"sleep": 1.5}}]
            return await asyncio.wait_for(
                noesis_nb.batch(task, using=slow, root=runs_dir, batch_id="own", upload_to=url).wait(), 60
            )

        handle = asyncio.run(cell())
    finally:
        code = proc.wait(timeout=60)
    return handle, code


def test_a_run_another_kernel_sealed_while_the_batch_followed_it_is_copied_once(runs_dir: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    remote.mkdir()
    handle, code = _follow_other_kernel(runs_dir, f"file://{remote}", OWNER)
    assert code == 0
    (entry,) = handle.entries
    assert entry.status == "ok" and entry.error is None and entry.run_dir is not None
    assert [p.name for p in remote.iterdir()] == [entry.episode_id]
    assert _whole(entry.run_dir, remote / str(entry.episode_id))


def test_a_copy_cut_short_by_a_kill_in_the_sealing_process_is_completed_by_the_follower(runs_dir: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    remote.mkdir()
    url = f"file://{remote}"
    handle, code = _follow_other_kernel(runs_dir, url, KILLED_MID_COPY, url)
    # the sealing process copies at once; the follower looks every 0.25 s, so it almost never copies first (then the
    # other process finds the copy whole, writes nothing and is not killed)
    assert code in (-signal.SIGKILL, 0)
    (entry,) = handle.entries
    assert entry.status == "ok" and entry.error is None and entry.run_dir is not None
    assert _whole(entry.run_dir, remote / str(entry.episode_id))
