"""Timing shared by the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def timings(fn: Callable[[], Any], repeat: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """The seconds each of ``repeat`` calls of ``fn`` took, read on ``clock`` (wall time by default)."""
    spent = []
    for _ in range(repeat):
        started = clock()
        fn()
        spent.append(clock() - started)
    return spent


def median(fn: Callable[[], Any], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``fn``, in seconds."""
    return statistics.median(timings(fn, repeat))
