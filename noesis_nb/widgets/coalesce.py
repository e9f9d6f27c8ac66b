"""Coalescing: many events from any thread become at most one redraw per interval on the loop.

Events go into a deque (atomic append, no lock). The first poke after a redraw arms one timer
on the episode's loop; the timer drains everything and redraws once. The next redraw waits at
least ``interval``, and longer when the last redraw was large for the event rate: a redraw may
spend ``bytes_per_event`` per event that arrived plus ``bytes_per_second``. Without a running
loop (a run read from disk, a plain script) every poke redraws at once.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Coalescer"]


class Coalescer:
    def __init__(
        self,
        redraw: Callable[[], None],
        loop: Callable[[], asyncio.AbstractEventLoop | None],
        *,
        interval: float = 0.1,
        bytes_per_event: int = 50,
        bytes_per_second: int = 6_000,
    ):
        self.redraw, self.loop = redraw, loop
        self.interval, self.bytes_per_event, self.bytes_per_second = interval, bytes_per_event, bytes_per_second
        self.inbox: deque[Mapping[str, Any]] = deque()
        self.closed = False
        self._armed = False
        self._ticking = False
        self._last = float("-inf")
        self._delay = interval

    def push(self, event: Mapping[str, Any]) -> None:
        """Queue one event and ask for a redraw (any thread; cheap)."""
        self.inbox.append(event)
        if not self._armed:
            self.poke()

    def poke(self) -> None:
        """Ask for a redraw soon. Safe from any thread."""
        if self._armed or self.closed:
            return
        loop = self.loop()
        if loop is None or not loop.is_running():
            self.redraw()
            return
        self._armed = True
        try:
            loop.call_soon_threadsafe(self._arm)
        except RuntimeError:  # the loop closed meanwhile
            self._armed = False
            self.redraw()

    def _arm(self) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(max(0.0, self._last + self._delay - loop.time()), self._fire)

    def _fire(self) -> None:
        self._armed = False  # before drawing: events arriving during the redraw arm the next one
        if not self.closed:
            self.redraw()

    def drain(self) -> list[Mapping[str, Any]]:
        events = []
        while self.inbox:
            events.append(self.inbox.popleft())
        return events

    def spent(self, sent_bytes: int, events: int) -> None:
        """After a redraw: how many bytes it sent for how many new events sets the next delay."""
        loop = self.loop()
        if loop is None:
            return
        now = loop.time()
        span = min(max(now - self._last, 1e-3), 10.0)
        budget = self.bytes_per_second + self.bytes_per_event * events / span
        self._delay = max(self.interval, sent_bytes / budget)
        self._last = now

    def tick(self, seconds: float = 1.0) -> None:
        """One extra redraw in ``seconds`` (e.g. so an elapsed time moves while nothing happens)."""
        loop = self.loop()
        if self._ticking or loop is None or self.closed:
            return
        self._ticking = True

        def fire() -> None:
            self._ticking = False
            self.poke()

        try:
            loop.call_soon_threadsafe(loop.call_later, seconds, fire)
        except RuntimeError:
            self._ticking = False
