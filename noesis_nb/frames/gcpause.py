"""Loads run with the cyclic garbage collector held off.

A load builds hundreds of thousands of acyclic dicts and lists while the previous frame's are
still alive; a full collection in the middle rescans all of them (a warm reload of 10,000 runs
spent most of its time there). Nothing a load builds is cyclic, so pausing the collector for the
whole call loses nothing; it runs again as usual afterwards.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["gc_paused", "without_gc"]

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC for the block (nested blocks leave it to the outermost)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def without_gc(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run inside :func:`gc_paused` (the public frame functions)."""

    @functools.wraps(fn)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return fn(*args, **kwargs)

    return wrapped
