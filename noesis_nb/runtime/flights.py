"""Calls an adapter left running when it ended: each one's end is recorded before the episode pauses or seals.

``asyncio.gather`` does not cancel its other awaitables when one raises: a draft that unwinds ``solve`` to its pause,
a tool that fails. Nor does anything stop a task the adapter created and never awaited. Such a tool or model call
would run on while the episode wrote its pause or seal, and its end (``tool.execution.succeeded``, its execution
record) would be refused or cut off with the loop. So when the adapter has ended, the calls it left are ended first:

- a pause, an error or a result: each is waited for to its end (a tool is bounded by its own timeout) and recorded
  as it ended; its effect happened, and ``resume_run`` never runs it again;
- a cancellation (a stop, an interrupt, the loop going away): each is cancelled, and a tool stopped while it ran is
  recorded ``tool.execution.outcome_unknown``; a cancellation arriving while they are waited for does the same.

Once the adapter has ended nothing new starts on the episode's loop (``refuse``): a call its left-over tasks reach
is cancelled before its tool runs.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .drain import InFlight
from .stubborn import STOP_GRACE_S

__all__ = ["LeftRunning"]


class LeftRunning:
    """The calls started on the episode's loop (each with its task), so those the adapter left can be ended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[InFlight, tuple[asyncio.Task[Any], asyncio.Future[None]]] = {}
        self.adapter_ended = False

    def track(self, call: InFlight, loop: asyncio.AbstractEventLoop | None) -> None:
        """Note ``call`` when it starts in a task of ``loop`` (the episode's); a call on another thread is not
        awaitable here (a sync adapter's thread: ``Episode._stop_thread_calls`` ends the tools it runs). Refused
        (``CancelledError``, before it runs) once the adapter has ended."""
        task = _task_on(loop)
        if task is None:
            return
        with self._lock:
            if self.adapter_ended:
                raise asyncio.CancelledError(f"{call.kind} {call.name!r}: the adapter has ended; nothing more starts")
            assert loop is not None
            self._calls[call] = (task, loop.create_future())
            call.tracked = True

    def ended(self, call: InFlight) -> None:
        """``call`` ended (from any thread): whoever waits for it goes on."""
        with self._lock:
            found = self._calls.pop(call, None)
        if found is None:
            return
        ended = found[1]
        loop = ended.get_loop()
        if _task_on(loop) is not None:
            _settle(ended)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(_settle, ended)

    async def settle(self, *, stop: bool, limit_s: float | None = None) -> list[str]:
        """The adapter has ended: end the calls it left running, waiting for each (``stop`` False; at most ``limit_s``
        seconds when given: a drain's time left) or cancelling each (``stop`` True, past ``limit_s``, or when this
        wait is cancelled: then the cancellation goes on). Returns the names of the calls whose task did not stop
        within ``STOP_GRACE_S`` of being cancelled."""
        with self._lock:
            self.adapter_ended = True
            left = [(call, task, ended) for call, (task, ended) in self._calls.items() if not ended.done()]
        if not left:
            return []
        if not stop:
            try:
                await asyncio.wait_for(_ends(left), limit_s)
            except TimeoutError:
                pass
            except asyncio.CancelledError:
                await _cancel(left)
                raise
        return await _cancel(left)


async def _ends(left: list[tuple[InFlight, asyncio.Task[Any], asyncio.Future[None]]]) -> None:
    """Wait until each call in ``left`` has ended (or its task has, should it end without saying so)."""
    while waiting := [(task, ended) for _, task, ended in left if not ended.done() and not task.done()]:
        await asyncio.wait({f for pair in waiting for f in pair}, return_when=asyncio.FIRST_COMPLETED)


async def _cancel(left: list[tuple[InFlight, asyncio.Task[Any], asyncio.Future[None]]]) -> list[str]:
    """Cancel the tasks of the calls in ``left`` still running, and wait (at most ``STOP_GRACE_S``) until they end."""
    running = [(call, task) for call, task, ended in left if not ended.done() and not task.done()]
    for _, task in running:
        task.cancel()
    if running:
        await asyncio.wait({task for _, task in running}, timeout=STOP_GRACE_S)
    return [call.name for call, task in running if not task.done()]


def _task_on(loop: asyncio.AbstractEventLoop | None) -> asyncio.Task[Any] | None:
    """The task running now on ``loop`` in this thread, or None (another thread, another loop, no task)."""
    if loop is None:
        return None
    # (asked at every tool and model call: a sync adapter's thread, which has no loop, is told without raising and
    # catching ``get_running_loop``'s RuntimeError)
    return asyncio.current_task(loop) if asyncio.events._get_running_loop() is loop else None


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
