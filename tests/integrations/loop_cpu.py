"""What the event loop's own thread spends: the CPU time of each loop callback run on the thread that asks.

CPU time, not wall time: a busy machine stretches the wall time of every step (and a thread holding the GIL
stretches the loop's), but the CPU a callback takes on the loop thread is the work it did there, so a bound on it
holds under load and says what ran on the loop.
"""

from __future__ import annotations

import asyncio.events
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["loop_cpu"]


@contextmanager
def loop_cpu() -> Iterator[list[float]]:
    """Within it, the list gets the CPU seconds of each callback a loop runs on this thread."""
    spent: list[float] = []
    here = threading.get_ident()
    run = asyncio.events.Handle._run

    def timed(handle: Any) -> None:
        if threading.get_ident() != here:
            return run(handle)
        started = time.thread_time()
        try:
            return run(handle)
        finally:
            spent.append(time.thread_time() - started)

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]
    try:
        yield spent
    finally:
        asyncio.events.Handle._run = run  # type: ignore[method-assign]
