"""Waiting a moment for another writer, without ever blocking an event loop.

A few writes wait briefly for another process: a seal under way, a decision being written. In plain code the
wait sleeps. On a thread that runs an event loop (a notebook kernel: every cell, every widget click, every
episode) it must not: the kernel would freeze for the wait, and with it every background episode, its live view
and its buttons. There the caller does not wait; what it had to wait for is followed up by ``follow_up``, a task
on that loop that sleeps with ``await asyncio.sleep`` between looks.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["STEP_S", "running_loop", "wait_until", "await_until", "follow_up"]

#: how long a wait sleeps between two looks
STEP_S = 0.01

_FOLLOW_UPS: set[asyncio.Task[Any]] = set()  # strong references: a task nobody holds may be collected mid-way


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running on this thread, None when none is (a plain script, a worker thread)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def wait_until(done: Callable[[], bool], patience_s: float) -> bool:
    """Sleep until ``done()`` (True) or ``patience_s`` has passed (False). Only where no loop runs on this thread."""
    deadline = time.monotonic() + patience_s
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(STEP_S)
    return True


async def await_until(done: Callable[[], bool], patience_s: float) -> bool:
    """``wait_until`` for a coroutine: the loop runs on between looks."""
    deadline = time.monotonic() + patience_s
    while not done():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(STEP_S)
    return True


def follow_up(loop: asyncio.AbstractEventLoop, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Run ``work`` as a task on ``loop`` (this thread's running loop), held until it ends; its error is logged by
    the loop, never raised into whoever happens to run next."""
    task = loop.create_task(work)
    _FOLLOW_UPS.add(task)
    task.add_done_callback(_FOLLOW_UPS.discard)
    return task
