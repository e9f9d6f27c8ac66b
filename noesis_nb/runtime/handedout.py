"""Coroutines ``ctx`` hands to an adapter, kept until they start, so one never awaited is named when the adapter returns.

``ctx.tool_async(...)`` without ``await`` makes a coroutine nobody runs: the tool never runs and the
episode would end looking fine (Python's own RuntimeWarning comes later, if at all, and names no
tool). Cost per call: one dict insert and one pop.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Coroutine
from typing import Any

from ..errors import NotAwaitedError

__all__ = ["HandedOut"]


class HandedOut:
    """The calls handed out and not started yet, by key (each coroutine pops its own key when it starts)."""

    __slots__ = ("_keys", "_waiting")

    def __init__(self) -> None:
        self._keys = itertools.count()
        self._waiting: dict[int, tuple[str, Coroutine[Any, Any, Any]]] = {}

    def add(self, call: str, make: Callable[[int], Coroutine[Any, Any, Any]]) -> Coroutine[Any, Any, Any]:
        key = next(self._keys)
        coro = make(key)
        self._waiting[key] = (call, coro)
        return coro

    def started(self, key: int) -> None:
        self._waiting.pop(key, None)

    def close(self) -> list[str]:
        """Close what never started (no RuntimeWarning of Python's for them) and return their calls. A coroutine
        already closed is no forgotten ``await``: a task cancelled before its first step (``wait_for(…, 0)``,
        ``create_task(…).cancel()``) or one the adapter closed itself."""
        waiting, self._waiting = self._waiting, {}
        calls = []
        for call, coro in waiting.values():
            if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
                coro.close()
                calls.append(call)
        return calls

    def check(self) -> None:
        """Raise one ``NotAwaitedError`` naming every call handed out and never awaited."""
        calls = self.close()
        if calls:
            raise NotAwaitedError(calls)
