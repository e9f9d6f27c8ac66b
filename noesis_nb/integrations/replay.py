"""Recorded traces as episodes: replay rows through the same path a live adapter uses.

``RecordedReplay(rows, source=...)`` is a sync adapter (it runs in a worker thread and reads
``rows`` lazily, so a log that is still being written can be followed). Every frame and the
view load the resulting run like any other. A recorded failure (a ``run_error`` row not
followed by a ``run_finished``) ends the episode ``error`` with the recorded reason. A replay given
a one-shot source (an open file, a generator) refuses a second episode rather than recording an
empty ``ok`` run: that source was read by the first (:func:`rereadable`). A trace with no rows at all (an
empty file or list) is refused the same way: an ``ok`` run of nothing would read as a good import.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import NoesisNbError
from ..runtime.api import solve
from ..secrets.quoted import quoted
from ._emit import Row, emit_row

__all__ = ["EmptyTraceError", "RecordedReplay", "RecordedRunError", "TraceAlreadyReadError", "import_rows", "rereadable"]


class RecordedRunError(NoesisNbError):
    """The recorded run itself failed (its log ends in an error); the replayed episode ends ``error``."""


class TraceAlreadyReadError(NoesisNbError, ValueError):
    """A replay's one-shot source (an open file, a generator) was read by an earlier episode."""


class EmptyTraceError(NoesisNbError, ValueError):
    """A recorded trace with no events at all: nothing to import, and an empty ``ok`` run would say otherwise."""


def _empty(source: str, name: str | None) -> EmptyTraceError:
    """The error for a trace that gave no rows, naming it (``name``: its file, when known) and the fix."""
    given = f" {quoted(name, 200)}" if name else ""
    return EmptyTraceError(
        f"the {source} trace{given} holds no events (an empty file or list, or only blank lines); nothing was "
        "recorded: pass the recorded trace with its events (check the path, and that its writer has finished)"
    )


def rereadable(given: Any, what: str) -> Callable[[], Any]:
    """A zero-argument callable giving ``given`` for each episode of a replay.

    A path, a text or a list can be read again; a one-shot iterator (an open file, a generator) cannot: the
    second call raises :class:`TraceAlreadyReadError` saying so, where the replay would otherwise record an
    empty run as if the trace held nothing.
    """
    if isinstance(given, (str, bytes, os.PathLike)) or not _is_iterator(given):
        return lambda: given
    read = False

    def once() -> Any:
        nonlocal read
        if read:
            raise TraceAlreadyReadError(
                f"this {what} replay was given a one-shot {type(given).__name__} (an open file, a generator or an "
                "iterator), which an earlier episode already read; pass the log's path or a list, which can be read "
                "again, or build a new replay for each episode"
            )
        read = True
        return given

    return once


def _is_iterator(value: Any) -> bool:
    try:
        return iter(value) is value
    except TypeError:
        return False


class RecordedReplay:
    """Replay ``rows`` (an iterable of ``(phase, payload)``, or a zero-argument callable giving one).

    The episode's result is ``result`` when given, else the recorded final answer (the last
    ``run_finished`` answer/result, a recorded ``answer``, or the last non-user message text);
    ``output`` maps it.
    """

    def __init__(
        self,
        rows: Iterable[Row] | Callable[[], Iterable[Row]],
        *,
        source: str,
        result: Any = None,
        output: Callable[[Any], Any] | None = None,
    ):
        self.rows = rows if callable(rows) else rereadable(rows, source)
        self.source, self.result, self.output = source, result, output

    def __repr__(self) -> str:
        return f"RecordedReplay(source={quoted(self.source)})"

    def invoke(self, task: Any, ctx: Any) -> Any:
        items = self.rows()
        answer, failure, seen = None, None, False
        for item in items:
            seen = True
            emit_row(ctx, item)
            payload = item[1]
            kind = payload.get("kind")
            if kind == "run_error":
                failure = payload.get("error") or payload.get("message") or "the recorded run failed"
            elif kind == "run_finished":
                failure = None
                found = next((payload[k] for k in ("answer", "result", "text") if payload.get(k) is not None), None)
                answer = found if found is not None else answer
            elif kind == "message" and payload.get("role") not in ("user", "system") and payload.get("text"):
                answer = payload["text"]
            elif payload.get("answer") is not None:  # e.g. a recorded final response
                answer = payload["answer"]
        if not seen:
            raise _empty(self.source, None)
        if failure is not None:
            raise RecordedRunError(f"the recorded {self.source} run failed: {failure}")
        value = self.result if self.result is not None else answer
        return self.output(value) if self.output else value  # an awaitable here is awaited by the engine


def import_rows(
    rows: Iterable[Row] | Callable[[], Iterable[Row]],
    *,
    task: str,
    source: str,
    result: Any = None,
    name: str | None = None,
    **opts: Any,
) -> str:
    """Write ``rows`` as a sealed Noēsis run (``solve`` with :class:`RecordedReplay`); returns the episode id.

    The first row is read here, before the run is written: a log that is not there or is not a log at all
    (a missing path, a folder, one event instead of a list) raises its error to the caller rather than
    leaving an ``error`` run behind; so does a trace with no rows (:class:`EmptyTraceError`, naming ``name``, its
    file). A bad row further on still ends the run ``error`` with what came before.
    """
    items = iter(rows() if callable(rows) else rows)
    first = next(items, _NOTHING)
    if first is _NOTHING:
        raise _empty(source, name)
    replayed = itertools.chain((first,), items)
    replay = RecordedReplay(replayed, source=source, result=result)
    try:
        return solve(task, using=replay, **opts)  # the engine tags the run with replay.source
    except BaseException:
        _close_quietly(items)
        raise


def _close_quietly(items: Any) -> None:
    """Close a log file left open by a run that ended early, without hiding why it ended.

    The engine reads the rows on a worker thread: after a Ctrl-C that thread may still be inside the
    generator, which then cannot be closed (``ValueError: generator already executing``); it is left to
    finish, and the caller sees the run's own outcome (e.g. the episode sealed ``cancelled``).
    """
    close = getattr(items, "close", None)
    if close is None or getattr(items, "gi_running", False):
        return
    try:
        close()
    except Exception:  # a generator that fails while closing; the run's own error is the one to raise
        pass


_NOTHING: Any = object()
