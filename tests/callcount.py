"""Counting the calls a piece of code makes (Python and C), not timing it: a busy machine slows every call alike."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def counting_calls() -> Iterator[list[int]]:
    """``[n]``: the calls made inside the block (the profiler hook is removed on the way out)."""
    made = [0]

    def count(frame: Any, event: str, arg: Any) -> None:
        made[0] += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        yield made
    finally:
        sys.setprofile(None)
