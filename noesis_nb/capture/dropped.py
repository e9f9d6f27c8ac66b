"""Work for objects the garbage collector took (a stream or raw response dropped unread), done later, never inside it.

The collector runs at any allocation, in any thread, including inside capture's own locked blocks
and the recorder's writes; a finalizer that wrote the call's event there would take a lock its
own thread holds. So a finalizer only notes the time and queues the work (a deque append, no
lock); the queue is run at the next captured call and when an episode's adapter returns.
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["when_dropped", "later", "run", "PENDING"]

#: (work, when the object was dropped) not done yet
PENDING: deque[tuple[Callable[[float], None], float]] = deque()


def when_dropped(obj: Any, work: Callable[[float], None]) -> None:
    """Queue ``work(dropped_at)`` for when ``obj`` is collected (not at interpreter exit)."""
    finalizer = weakref.finalize(obj, later, work)
    finalizer.atexit = False


def later(work: Callable[[float], None]) -> None:
    """Queue ``work(now)``: safe inside the collector (no lock, no write)."""
    PENDING.append((work, time.perf_counter()))


def run() -> None:
    """Do the queued work (each item once, whichever thread gets it); a failure is dropped with its item."""
    while PENDING:
        try:
            work, at = PENDING.popleft()
        except IndexError:  # another thread took the last one
            return
        try:
            work(at)
        except Exception:
            pass
