"""What the event loop's own thread spends: the CPU time of each loop callback run on the thread that asks.

CPU time, not wall time: a busy machine stretches the wall time of every step (and a thread holding the GIL
stretches the loop's), but the CPU a callback takes on the loop thread is the work it did there, so a bound on it
holds under load and says what ran on the loop. The collector's passes that fall in a callback are left out: their
cost is the whole process's heap (a long test session's), not the callback's work.
"""

from __future__ import annotations

import asyncio.events
import gc
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
    collecting = [0.0, 0.0]  # when the collector's pass on this thread began, the CPU its passes took

    def collector(phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() == here:
            if phase == "start":
                collecting[0] = time.thread_time()
            else:
                collecting[1] += time.thread_time() - collecting[0]

    def timed(handle: Any) -> None:
        if threading.get_ident() != here:
            return run(handle)
        started, collected = time.thread_time(), collecting[1]
        try:
            return run(handle)
        finally:
            spent.append(time.thread_time() - started - (collecting[1] - collected))

    gc.callbacks.append(collector)
    asyncio.events.Handle._run = timed  # type: ignore[method-assign]
    try:
        yield spent
    finally:
        asyncio.events.Handle._run = run  # type: ignore[method-assign]
        gc.callbacks.remove(collector)
