"""Counting the calls a piece of code makes (Python and C), not timing it: a busy machine slows every call alike."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
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


def calls_per_event(ctx: Any, task: str, counted: Callable[[str, Any], bool], events: int = 20) -> list[int]:
    """For each of ``events`` plain events (``{"step": i, "text": "thought number i about <task>"}``, as the engine
    benchmark emits them, after three to warm up): the calls ``counted(event, arg)`` picks (a profiler's event and
    argument) that its ``ctx.emit`` made."""
    for i in range(3):
        ctx.emit("reason", {"step": i, "text": f"warm-up {i}"})
    made = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if counted(event, arg):
            made[0] += 1

    counts = []
    for i in range(events):
        payload = {"step": i, "text": f"thought number {i} about {task}"}
        made[0] = 0
        sys.setprofile(profile)
        try:
            ctx.emit("reason", payload)
        finally:
            sys.setprofile(None)
        counts.append(made[0])
    return counts
