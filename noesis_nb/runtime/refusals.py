"""A run's own write refused (disk full, over quota, a file past the size limit, read-only, no permission, a failing
device): found however the adapter took it (raised, wrapped, caught), so the episode ends unsealed with one
``RunWriteError`` (``resume_run`` seals it once there is room), never sealed as the adapter's error.

The refusal is written in the run when the log still takes it (an ``error`` event, ``RUN_WRITE_REFUSED``), so the
``resume_run`` that seals the run says why its process left it, not that the process died."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import RunGoneError, RunWriteError, refused_write

__all__ = ["RUN_WRITE_REFUSED", "recorded_refusal", "refusal_event", "run_refusal"]

#: the ``reason_code`` of the ``error`` event saying the episode's process could not write its run
RUN_WRITE_REFUSED = "run_write_refused"


def _within(path: Any, run_dir: Path) -> bool:
    """Whether ``path`` (an error's ``filename``) is a file of ``run_dir``."""
    if not path:
        return False
    try:
        return os.path.commonpath([os.path.abspath(os.fspath(path)), os.path.abspath(run_dir)]) == os.path.abspath(run_dir)
    except (TypeError, ValueError):
        return False


def run_refusal(exc: BaseException | None, run_dir: Path) -> RunWriteError | None:
    """The refused write of one of ``run_dir``'s files in ``exc`` (itself, what it was raised from or during, or one
    of a group's exceptions), as a ``RunWriteError``; None when there is none (the adapter's own error)."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen or len(seen) > 100:
            continue
        seen.add(id(current))
        if isinstance(current, RunGoneError) or (isinstance(current, RunWriteError) and _within(current.filename, run_dir)):
            return current
        if refused_write(current) and _within(getattr(current, "filename", None), run_dir):
            assert isinstance(current, OSError)
            return RunWriteError.of(current.filename, current)
        todo += [current.__cause__, current.__context__, *getattr(current, "exceptions", ())]
    return None


def refusal_event(exc: RunWriteError, said: str) -> dict[str, Any]:
    """The payload of the ``error`` event recording the refusal (``said``: what the episode told its caller)."""
    refusal = str(exc).removesuffix(f"; {exc.advice}")  # what was refused; its advice is the caller's, at the time
    return {
        "error": {"type": type(exc).__name__, "message": refusal[:2000], "path": exc.filename, "errno": exc.errno},
        "reason_code": RUN_WRITE_REFUSED,
        "reason": said,
    }


def recorded_refusal(events: list[dict[str, Any]], since: int = 0) -> str | None:
    """The message of the last refusal written in ``events`` (from index ``since``), or None."""
    for event in reversed(events[since:]):
        payload = event.get("payload")
        if event.get("phase") == "error" and isinstance(payload, dict) and payload.get("reason_code") == RUN_WRITE_REFUSED:
            error = payload.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            return str(message) if message else "a write of the run was refused"
    return None
