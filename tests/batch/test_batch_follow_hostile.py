"""A batch following another kernel's runs (a real process, killed with kill -9): a cancel here, or a run folder
removed meanwhile, never leaves ``await batch`` waiting for good, and each entry says what became of it."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import read_summary

from ..conftest import REPO
from .agents import slow
from .test_batch_resume import OWNER

TASKS = [{"task": t, "inputs": {"sleep": 60}} for t in ("one", "two")]


@pytest.fixture
def owner(runs_dir: Path) -> Iterator[subprocess.Popen[str]]:
    """Another kernel running the batch ``shared`` (both its episodes running for a minute)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", OWNER, str(runs_dir)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
        yield proc
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def _kill(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def test_a_cancel_here_then_the_owner_killed_still_ends_the_batch(runs_dir: Path, owner: subprocess.Popen[str]) -> None:
    """Before, ``cancel()`` stopped the following: the other kernel's runs stayed ``running`` here for good."""

    async def main() -> noesis_nb.BatchHandle:
        handle = noesis_nb.batch(TASKS, using={"agent": slow}, root=runs_dir, batch_id="shared")
        await asyncio.sleep(0.3)
        assert handle.counts() == {"running": 2}
        handle.cancel()
        _kill(owner)
        return await asyncio.wait_for(handle, 10)

    handle = asyncio.run(main())
    assert [e.status for e in handle.entries] == ["error", "error"]
    for entry in handle.entries:
        assert entry.run_dir is not None
        assert "process_lost" in read_summary(entry.run_dir)["x-noesis_nb"]["reasons"]


def test_a_followed_run_folder_removed_is_an_error_naming_it(runs_dir: Path, owner: subprocess.Popen[str]) -> None:
    """Before, the entry whose folder was removed stayed ``running``: every look failed and ``await batch`` waited."""

    async def main() -> tuple[noesis_nb.BatchHandle, Path]:
        handle = noesis_nb.batch(TASKS, using={"agent": slow}, root=runs_dir, batch_id="shared")
        await asyncio.sleep(0.3)
        removed = handle.entries[0].run_dir
        assert removed is not None
        shutil.rmtree(removed)
        _kill(owner)
        return await asyncio.wait_for(handle, 10), removed

    handle, removed = asyncio.run(main())
    first, second = handle.entries
    assert first.status == "error" and f"its run folder {removed} was removed while the batch followed it" in str(first.error)
    assert "batch_id='shared'" in str(first.error)
    assert second.status == "error" and "its process died while it ran" in str(second.error)


PAUSER = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import asks

async def main():
    tasks = [{"task": "approve one", "inputs": {"out": sys.argv[2]}}]
    handle = noesis_nb.batch(tasks, using={"agent": asks}, root=sys.argv[1], batch_id="paused")
    await handle
    print("READY", handle.counts(), flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


def _paused_on_disk_and_decided(runs_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A batch run paused on its draft in a process then killed, its draft approved since: (its run, the file its tool writes)."""
    out = tmp_path / "out.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NOESIS_NB_APPROVER": "ask"}
    proc = subprocess.Popen([sys.executable, "-c", PAUSER, str(runs_dir), str(out)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY {'paused': 1}"
    finally:
        _kill(proc)
    (run_dir,) = [p for p in runs_dir.iterdir() if p.name.startswith("ep_")]
    noesis_nb.approve_draft(run_dir, approver_id="ana")
    return run_dir, out


def test_a_cancel_leaves_a_decided_run_paused_on_disk_and_ends_the_batch(runs_dir: Path, tmp_path: Path) -> None:
    """A run paused on disk (its kernel killed) and decided since: a batch cancelled before continuing it says
    ``paused`` and ends; the decision is not executed, and the next call of the batch continues it."""
    run_dir, out = _paused_on_disk_and_decided(runs_dir, tmp_path)
    from .agents import asks

    tasks = [{"task": "approve one", "inputs": {"out": str(out)}}]

    async def main(cancel: bool) -> noesis_nb.BatchHandle:
        handle = noesis_nb.batch(tasks, using={"agent": asks}, root=runs_dir, batch_id="paused")
        if cancel:
            handle.cancel()
        if not cancel:
            return await asyncio.wait_for(handle.wait(), 10)
        await asyncio.wait_for(handle, 10)
        for _ in range(100):  # nothing keeps following the run it will not continue: the batch's task ends
            if handle._runner is not None and handle._runner.done():
                return handle
            await asyncio.sleep(0.05)
        raise AssertionError("a cancelled batch still follows its paused run")

    stopped = asyncio.run(main(cancel=True))
    assert [e.status for e in stopped.entries] == ["paused"]
    assert not out.exists(), "the approved write did not run"
    again = asyncio.run(main(cancel=False))
    assert [e.status for e in again.entries] == ["ok"]
    assert out.read_text() == "approve one\n"


def test_a_run_no_resume_can_seal_ends_its_entry_naming_it_and_the_batch_ends(runs_dir: Path) -> None:
    """A sealed run whose manifest.json was replaced by a folder reads unsealed, and ``resume_run`` changes nothing on
    it: the batch recovered it again every quarter second and ``batch.wait()`` never returned."""
    tasks = [{"task": "one", "inputs": {"sleep": 0}}]

    async def call() -> noesis_nb.BatchHandle:
        handle = noesis_nb.batch(tasks, using={"agent": slow}, root=runs_dir, batch_id="crafted")
        await asyncio.wait_for(handle.wait(), 20)
        return handle

    (entry,) = asyncio.run(call()).entries
    assert entry.status == "ok" and entry.run_dir is not None
    (entry.run_dir / "manifest.json").unlink()
    (entry.run_dir / "manifest.json").mkdir()
    (again,) = asyncio.run(call()).entries
    assert again.status == "error" and again.episode_id == entry.episode_id
    assert f"its run {entry.run_dir} cannot be sealed" in str(again.error) and "move it out of" in str(again.error)
    assert (entry.run_dir / "manifest.json").is_dir()  # left as it was


def test_a_run_whose_recovery_fails_keeps_saying_why_when_the_batch_uploads(runs_dir: Path, tmp_path: Path) -> None:
    """With ``upload_to``, the pass that copies the runs ended before this call skips those whose recovery failed
    (they are not sealed): each entry still says why it could not be recovered, not 'upload … failed: … not sealed'."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", OWNER, str(runs_dir)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
    finally:
        _kill(proc)  # both runs lost mid-way
    runs = sorted(p for p in runs_dir.iterdir() if p.name.startswith("ep_"))
    for run in runs:  # a line inside each log: a run continues only from a whole log
        lines = (run / "events.jsonl").read_bytes().splitlines(keepends=True)
        lines[1] = b"{not json\n"
        (run / "events.jsonl").write_bytes(b"".join(lines))
    tasks = [{"task": t, "inputs": {"sleep": 60}} for t in ("one", "two")]  # as the batch was recorded

    async def call() -> noesis_nb.BatchHandle:
        handle = noesis_nb.batch(
            tasks, using={"agent": slow}, root=runs_dir, batch_id="shared", upload_to=(tmp_path / "copies").as_uri()
        )
        await asyncio.wait_for(handle.wait(), 30)
        return handle

    entries = asyncio.run(call()).entries
    assert sorted(e.episode_id or "" for e in entries) == [run.name for run in runs]
    for entry in entries:
        # why, whichever found it (the plan's recovery or the follower's): the broken log, and no upload's failure
        assert entry.status == "error" and "EventLogIntegrityError" in str(entry.error), entry.error
        assert "upload" not in str(entry.error), entry.error


def test_a_decided_run_its_resume_refuses_waits_as_paused_and_goes_on_once_repaired(runs_dir: Path, tmp_path: Path) -> None:
    """A run paused on disk, decided, then its state.json changed: ``resume_run`` refuses it until the file is restored.
    The batch tried it again every quarter second, read ``running``, and ``await batch`` never returned; now the entry
    waits ``paused`` naming what to repair, and the batch resumes it once the file is back (its write runs once)."""
    run_dir, out = _paused_on_disk_and_decided(runs_dir, tmp_path)
    state = (run_dir / "state.json").read_bytes()
    (run_dir / "state.json").write_bytes(state.replace(b"{", b'{"changed": 1, ', 1))
    from .agents import asks

    tasks = [{"task": "approve one", "inputs": {"out": str(out)}}]

    async def main() -> tuple[str, str, list[str], noesis_nb.BatchHandle]:
        handle = noesis_nb.batch(tasks, using={"agent": asks}, root=runs_dir, batch_id="paused")
        await asyncio.wait_for(handle, 10)
        (entry,) = handle.entries
        waiting, said = entry.status, str(entry.error)
        flips: list[str] = []
        handle.on_change(lambda e: flips.append(e.status))
        await asyncio.sleep(1.0)  # four looks of the follower: the run, unchanged, is not resumed again
        unchanged = list(flips)
        (run_dir / "state.json").write_bytes(state)
        return waiting, said, unchanged, await asyncio.wait_for(handle.wait(), 10)

    waiting, said, flips, handle = asyncio.run(main())
    assert waiting == "paused" and "state.json changed since the pause" in said and "once the run's files change" in said
    assert flips == []  # it was resumed again at every look: running, paused, running …
    assert [(e.status, e.error) for e in handle.entries] == [("ok", None)]
    assert out.read_text() == "approve one\n"
