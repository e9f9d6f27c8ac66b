"""Turns of the running event loop, counted: a test sees that the loop went on while something waited."""

from __future__ import annotations

import asyncio


class LoopTicks:
    """A task that counts a tick every 5 ms of the loop; ``await ticks.more(20)`` returns once 20 more have come."""

    def __init__(self) -> None:
        self.count = 0
        self._task: asyncio.Future[None] | None = None

    def start(self) -> LoopTicks:
        self._task = asyncio.ensure_future(self._tick())
        return self

    async def _tick(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(0.005)

    async def more(self, n: int = 20) -> None:
        seen = self.count
        while self.count < seen + n:
            await asyncio.sleep(0.005)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
