"""While another process copies a run (it holds the run's copy lock), copying it from a notebook never blocks the loop.

``upload_run`` waited for that copy with ``time.sleep`` for up to 15 minutes, on whatever thread called it: in a
cell, the kernel answered nothing meanwhile. Now a call on a thread that runs a loop is refused at once, naming
``upload_run_async``, which waits without blocking the loop. Here a real process holds the lock.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.batch import upload as upload_module
from noesis_nb.batch.upload import UploadError, upload_run
from noesis_nb.store.artifacts import verify_manifest

from .agents import echo
from .lockholder import lock_held
from .loopticks import LoopTicks


def _descriptors_on(path: Path) -> int:
    """How many of this process's open descriptors point at ``path`` (a leaked lock descriptor shows here)."""
    target = os.path.realpath(path)
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}") == target
        except OSError:  # closed while listing
            pass
    return count


@pytest.fixture
def sealed_run(runs_dir: Path) -> Path:
    episode_id = noesis_nb.solve("a", echo, runs_dir=runs_dir)
    return runs_dir / episode_id


@pytest.fixture
def holder(sealed_run: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """Another process holding the run's copy lock (an flock on its manifest, as a copy does), at most 60 s."""
    release = tmp_path / "release"
    with lock_held(sealed_run / "manifest.json", release, 60) as proc:
        yield proc, release


def test_upload_run_on_the_loop_thread_refuses_to_wait_and_names_the_awaitable_call(
    sealed_run: Path, tmp_path: Path, holder: tuple[subprocess.Popen[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upload_module, "COPY_WAIT_S", 3.0)  # before: a 3 s wait (not 15 minutes), then another error
    remote = tmp_path / "remote"
    remote.mkdir()

    async def cell() -> None:
        upload_run(sealed_run, f"file://{remote}")

    with pytest.raises(UploadError, match=r"another process is copying this run.*block the event loop.*upload_run_async"):
        asyncio.run(cell())
    assert list(remote.iterdir()) == []  # nothing written while the other copy holds the run


def test_upload_run_async_waits_for_the_other_copy_while_the_loop_goes_on(
    sealed_run: Path, tmp_path: Path, holder: tuple[subprocess.Popen[str], Path]
) -> None:
    from noesis_nb.batch import upload_run_async

    proc, release = holder
    remote = tmp_path / "remote"
    remote.mkdir()

    async def cell() -> str:
        ticks = LoopTicks().start()
        copy = asyncio.ensure_future(upload_run_async(sealed_run, f"file://{remote}"))
        await ticks.more(20)  # the loop goes on while the other process holds the run
        waited = not copy.done() and list(remote.iterdir()) == []
        release.touch()
        url = await asyncio.wait_for(copy, 30)
        ticks.stop()
        assert waited, "the copy did not wait for the other process's"
        return url

    url = asyncio.run(cell())
    assert proc.stdout is not None and proc.stdout.readline().strip() == "RELEASED"
    copy = remote / sealed_run.name
    assert url == f"file://{remote}/{sealed_run.name}"
    assert (copy / "manifest.json").read_bytes() == (sealed_run / "manifest.json").read_bytes() and verify_manifest(copy).ok


def test_a_cancelled_wait_writes_nothing_and_gives_the_lock_up(
    sealed_run: Path, tmp_path: Path, holder: tuple[subprocess.Popen[str], Path]
) -> None:
    from noesis_nb.batch import upload_run_async

    _, release = holder
    remote = tmp_path / "remote"
    remote.mkdir()

    async def cell() -> None:
        ticks = LoopTicks().start()
        copy = asyncio.ensure_future(upload_run_async(sealed_run, f"file://{remote}"))
        await ticks.more(5)
        copy.cancel()
        with pytest.raises(asyncio.CancelledError):
            await copy
        ticks.stop()

    opened_before = _descriptors_on(sealed_run / "manifest.json")
    asyncio.run(cell())
    assert list(remote.iterdir()) == []
    assert _descriptors_on(sealed_run / "manifest.json") == opened_before, "the cancelled wait kept the manifest open"
    release.touch()
    assert upload_run(sealed_run, f"file://{remote}") == f"file://{remote}/{sealed_run.name}"  # off the loop: it waits
