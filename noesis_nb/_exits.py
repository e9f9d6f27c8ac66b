"""``KeyboardInterrupt``/``SystemExit`` raised by user code that runs as a task of the package's.

asyncio re-raises those two out of the event loop itself when a task ends with one, which stops
a notebook's loop for good. Code the package runs for a user (an adapter, a python tool) is
awaited through ``held_exits``, so the exit comes out as an ordinary exception the caller unwraps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["HeldExit", "held_exits", "exits_held", "is_exit", "being_cancelled"]

T = TypeVar("T")


def is_exit(exc: BaseException | None) -> bool:
    """``KeyboardInterrupt`` or ``SystemExit``: a stop that belongs to the caller, not to the code that raised it."""
    return isinstance(exc, (KeyboardInterrupt, SystemExit))


class HeldExit(Exception):
    """An exit raised by user code, carried as an ordinary exception (``exit`` is the original)."""

    def __init__(self, exit: BaseException):
        super().__init__(f"user code raised {type(exit).__name__}")
        self.exit = exit


async def held_exits(call: Awaitable[T]) -> T:
    """Await ``call``; an exit it raises comes out as :class:`HeldExit`."""
    try:
        return await call
    except (KeyboardInterrupt, SystemExit) as exc:
        raise HeldExit(exc) from None


def exits_held(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` whose exits come out as :class:`HeldExit`, for a call run on a thread of its own: held on that thread,
    so a KeyboardInterrupt landing on the loop thread while it is awaited (Ctrl-C there) is never taken for its own."""

    def call(*args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except (KeyboardInterrupt, SystemExit) as exc:
            raise HeldExit(exc) from None

    return call


def being_cancelled() -> bool:
    """Whether the running task is being cancelled (``Task.cancelling()``): a ``CancelledError`` then is that stop;
    otherwise it is what the user code that raised it ended with (a tool or a scorer awaiting a task another
    cancelled), that code's failure."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
