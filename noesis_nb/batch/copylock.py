"""The lock that keeps two processes from copying one run at once: an ``flock`` on the sealed run's ``manifest.json``.

A sealed run's files never change, so the manifest is opened read-only. Waiting for another process's copy is
either a blocking wait (a worker's thread, a script) or an awaited one (the notebook's loop): a wait on the loop's
thread that would block is refused at once, naming the awaitable call, so the kernel never stands still.
Where the file system cannot lock (say NFS without write access), copies are not kept apart: each is still whole.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

try:  # POSIX; elsewhere two processes may copy one run at once (each copy still whole)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from ..errors import NoesisNbError

__all__ = ["UploadError", "open_lock", "take_now", "wait_blocking", "wait_async", "on_loop_thread"]

POLL_S = 0.05  # how often a waiting copy looks whether the other process's copy has ended


class UploadError(NoesisNbError):
    """A run could not be copied, or its copy does not match its manifest."""


def open_lock(run_dir: Path) -> int:
    """A descriptor of ``run_dir``'s manifest to lock (closed by the caller)."""
    try:
        return os.open(run_dir / "manifest.json", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UploadError(f"run {run_dir.name}: its manifest cannot be opened ({exc.strerror or exc}); not uploaded") from None


def take_now(fd: int) -> bool:
    """Take the lock if no other process holds it; True when taken (or where nothing can be locked)."""
    if fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # no flock on this file system
        return True
    return True


def on_loop_thread() -> bool:
    """Whether an event loop runs in this thread (a notebook cell, a coroutine): a blocking wait would freeze it."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def wait_blocking(fd: int, what: str, wait_s: float, instead: str) -> None:
    """Take the lock, waiting (blocking this thread) while another process holds it, up to ``wait_s``. On a thread
    that runs an event loop a wait is refused at once: ``instead`` names the awaitable call that waits."""
    if take_now(fd):
        return
    if on_loop_thread():
        raise UploadError(
            f"{what}: another process is copying this run; waiting here would block the event loop (the kernel) "
            f"until it ends. Use {instead}, which waits without blocking it, or call again once that copy has ended"
        )
    deadline = time.monotonic() + wait_s
    while not take_now(fd):
        if time.monotonic() > deadline:
            raise _too_long(what, wait_s)
        time.sleep(POLL_S)


async def wait_async(fd: int, what: str, wait_s: float) -> None:
    """Take the lock, awaiting (the loop goes on; cancellable) while another process holds it, up to ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while not take_now(fd):
        if time.monotonic() > deadline:
            raise _too_long(what, wait_s)
        await asyncio.sleep(POLL_S)


def _too_long(what: str, wait_s: float) -> UploadError:
    return UploadError(
        f"{what}: another process has been copying this run for {wait_s:.0f} s; "
        "call the batch again once it has ended (it completes a copy cut short)"
    )
