"""Counting the calls a piece of code makes (Python and C), not timing it: a busy machine slows every call alike."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def counting_calls(name: str | None = None) -> Iterator[list[int]]:
    """``[n]``: the calls made inside the block, or with ``name`` the calls of the Python functions so named (the
    profiler hook is removed on the way out)."""
    made = [0]

    def count(frame: Any, event: str, arg: Any) -> None:
        if name is None:
            made[0] += event in ("call", "c_call")
        else:
            made[0] += event == "call" and frame.f_code.co_name == name

    sys.setprofile(count)
    try:
        yield made
    finally:
        sys.setprofile(None)


def called_from(module: str) -> bool:
    """Whether a function of ``module`` is on the caller's stack (a hook counting or acting only for one reader)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == module:
            return True
        frame = frame.f_back
    return False
