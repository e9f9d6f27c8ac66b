"""An adapter's exception, its secrets redacted before the cell's traceback shows it.

``handle.result()`` raises the adapter's own exception (its type is what ``except`` clauses
catch), and IPython prints its message into the notebook, which is saved and shared. So the
exception is kept and its message parts are redacted in place, as the run's files are: the
arguments, the file names and reasons some built-in errors print, and notes, through its cause
and context. A message an exception builds from other attributes cannot be reached this way.
"""

from __future__ import annotations

from typing import Any

from .display import shown

__all__ = ["redact_exception"]

_TEXT_ATTRIBUTES = ("filename", "filename2", "strerror", "msg", "reason", "text")


def redact_exception(exc: BaseException) -> BaseException:
    """Redact in place what ``shown`` would hide from ``exc``'s message, cause, context and group members; returns it."""
    pending: list[BaseException] = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        try:
            _redact_one(current)
        except Exception:  # an exception class that refuses changes keeps its message: never fail on the error path
            pass
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        pending.extend(e for e in getattr(current, "exceptions", ()) if isinstance(e, BaseException))
    return exc


def _redact_one(exc: BaseException) -> None:
    args = exc.args
    redacted = tuple(_redacted(a) for a in args)
    if any(new is not old for new, old in zip(redacted, args, strict=True)):
        exc.args = redacted
    for name in _TEXT_ATTRIBUTES:
        value = getattr(exc, name, None)
        if isinstance(value, str) and (new := shown(value)) != value:
            setattr(exc, name, new)
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list):
        notes[:] = [shown(n) if isinstance(n, str) else n for n in notes]


def _redacted(value: Any) -> Any:
    """A string argument with its secrets redacted (the same object when it holds none)."""
    if isinstance(value, str):
        new = shown(value)
        return value if new == value else new
    return value
