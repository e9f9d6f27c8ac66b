"""Work that must finish though the interpreter exits: a daemon thread the exit waits for, within a bound.

A daemon thread never holds a script or a kernel open, but the exit killed it midway: a cancelled Noeta task's stop
(its interrupt, then the client's shutdown, which kills its background shells with SIGTERM, then SIGKILL) was cut off
at the end of a script, and a background job ignoring SIGTERM outlived the process. Threads started here are joined
at exit, all together for at most ``wait_s`` (the longest asked for).
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["finish_before_exit"]

_RUNNING: dict[threading.Thread, float] = {}  # each thread not ended yet, and the seconds the exit may wait for it
_LOCK = threading.Lock()
_REGISTERED: list[bool] = []


def finish_before_exit(steps: list[Callable[[], Any]], *, name: str, wait_s: float) -> threading.Thread:
    """Run ``steps`` in order on a daemon thread (a step that raises does not stop the next); the exit waits for it."""

    def run() -> None:
        try:
            for step in steps:
                try:
                    step()
                except Exception:
                    pass
        finally:
            with _LOCK:
                _RUNNING.pop(thread, None)

    thread = threading.Thread(target=run, name=name, daemon=True)
    with _LOCK:
        if not _REGISTERED:
            atexit.register(_wait_at_exit)
            _REGISTERED.append(True)
        _RUNNING[thread] = wait_s
    thread.start()
    return thread


def _wait_at_exit() -> None:
    with _LOCK:
        running = dict(_RUNNING)
    if not running:
        return
    deadline = time.monotonic() + max(running.values())
    for thread in running:
        thread.join(max(0.0, deadline - time.monotonic()))
