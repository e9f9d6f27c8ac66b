"""Stopping a task whose code swallows its cancellation (an adapter or scorer catching ``CancelledError``).

asyncio can only ask a task to stop. One that catches every ``CancelledError`` would run for good:
its episode never sealed (and its lock held), a batch's scorer busy after the batch was cancelled,
``asyncio.run`` hanging at exit. So it gets a few seconds to wind up, then its coroutine is
closed (``GeneratorExit`` where it waits: its ``finally`` blocks run, its ``except CancelledError`` not).
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["STOP_GRACE_S", "Stoppable", "stop_task", "stop_in_background", "forced_line", "left_unread"]

#: how long a cancelled adapter or scorer may take to wind up: inside the 5 s an interrupted cell waits for its episode
STOP_GRACE_S = 3.0


class Stoppable:
    """A coroutine run (``run()``) so that it can be closed when it swallows its cancellation: its task then
    ends cancelled, as if it had let the cancellation through."""

    def __init__(self, coro: Awaitable[Any]):
        self.coro = coro
        self.closed = False

    async def run(self) -> Any:
        try:
            return await self.coro
        except (RuntimeError, StopIteration):  # what awaiting a closed coroutine raises
            if self.closed:
                raise asyncio.CancelledError("closed: it ignored its cancellation") from None
            raise

    def close(self) -> None:
        self.closed = True
        close = getattr(self.coro, "close", None)
        if callable(close):
            with contextlib.suppress(RuntimeError):  # it ignored GeneratorExit as well: nothing more can be done
                close()


async def stop_task(task: asyncio.Future[Any], stoppable: Stoppable, grace_s: float = STOP_GRACE_S) -> bool:
    """Cancel ``task`` and wait until it ends, at most ``grace_s`` seconds (its own cleanup is not cancelled
    again), then close its coroutine; True when it had to be closed. Cancelled meanwhile (a second interrupt),
    it closes it at once."""
    task.cancel()
    try:
        await asyncio.wait({task}, timeout=grace_s)
    except asyncio.CancelledError:
        _close(task, stoppable)
        raise
    if task.done():
        return False
    _close(task, stoppable)
    return True


def left_unread(task: asyncio.Future[Any], consumed: BaseException | None) -> BaseException | None:
    """The exception a finished task ended with, read now, when its awaiter left without reading it (``consumed`` is
    what the awaiter itself raised: the task's own exception, read already, or another one); None otherwise.

    A task stopped while it was ending (an adapter refused a tool by a drain as the episode was cancelled) keeps its
    exception unread, and asyncio says "Task exception was never retrieved" on stderr when it is collected: reading
    it here lets its owner decide what to say (an expected ending nothing, another one in its own report)."""
    if not task.done() or task.cancelled():
        return None
    ended = task.exception()  # marks it read
    return None if ended is None or ended is consumed else ended


def _close(task: asyncio.Future[Any], stoppable: Stoppable) -> None:
    """End a task that ignores its cancellation: close its coroutine, then let the task notice."""
    if not task.done():
        stoppable.close()
        task.cancel()


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # a late failure: nobody waits for it, nor logs it


def stop_in_background(
    task: asyncio.Future[Any], stoppable: Stoppable, what: str, tell: Callable[[str], None] | None = None
) -> None:
    """``stop_task`` without waiting for it (a scorer no episode needs any more); says so when it had to be closed."""

    async def stop() -> None:
        if await stop_task(task, stoppable):
            said = forced_line(what)
            if tell is not None:
                tell(said)
            warnings.warn(said, RuntimeWarning, stacklevel=1)

    task.add_done_callback(_retrieve)  # a late failure: nobody waits for it, nor logs it
    if task.done():
        return
    stopper = asyncio.ensure_future(stop())
    stopper.add_done_callback(_retrieve)


def forced_line(what: str) -> str:
    """What a person is told when ``what`` had to be stopped by force."""
    return (
        f"{what} went on for {STOP_GRACE_S:g} s after it was cancelled (it catches asyncio.CancelledError without "
        "re-raising it), so noesis_nb closed its coroutine; let CancelledError propagate (re-raise it after cleaning up)"
    )
