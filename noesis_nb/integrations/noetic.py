"""Noetic (``@noetic-tools/core``, TypeScript) stream-event logs → rows, replayed as an episode.

Noetic has no Python package, so its runs come in as recorded logs: the JSONL of
``getFullStream()`` events (``{source: "sdk"|"framework", type, data}``) plus, optionally, the
``HarnessResponse`` JSON (``{usage: {inputTokens, outputTokens, cachedTokens?}, cost?, text}``).
Framework types are ``"<agentName>:<event>"``; the prefix is kept as ``agent``. SDK text and
reasoning deltas are folded into one ``message`` / ``reasoning`` row per output item
(``outputIndex`` / ``item_id``), interleaved items kept apart. A missing
``cachedTokens`` stays None (unknown), never 0.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import NoesisNbError
from ..secrets.display import shown_cut
from ..secrets.quoted import keys_hidden, quoted
from ..store.runfiles import UnreadableRunFile, open_file, read_file
from ._emit import PHASE, Row, as_object, recorded_duration, row, usage_row
from ._jsontext import JSONTextError, loads_text
from ._lines import LINE_END, LineSplitter
from ._noetic_items import Folds
from .replay import RecordedReplay, import_rows, is_one_shot, rereadable

__all__ = ["NoeticLogError", "NoeticTurnRepeated", "noetic_rows", "noetic_replay", "import_noetic"]

Harness = dict[str, Any] | str | os.PathLike[str] | None  # the HarnessResponse, or the path of its JSON file

_FRAMEWORK = {
    "turn_started": "run_started",
    "turn_completed": "run_finished",
    "turn_aborted": "run_error",
    "inbox_injected": "steering",
    "step_started": "step_started",
    "step_completed": "step_finished",
    "step_replayed": "step_replayed",
    "tool_round_started": "tool_round_started",
    "tool_round_completed": "tool_round_finished",
    "tool_call_started": "tool_call",
    "tool_call_completed": "tool_result",
    "tool_progress": "tool_progress",
    "item_appended": "item",
    "model_call_started": "model_call_started",
    "model_call_first_event": "model_call_first_event",
    "model_call_completed": "model_call_finished",
    "model_call_stalled": "run_error",
    "stream_pipe_error": "run_error",
}
_ENDS = "turn_completed or turn_aborted"  # the framework events that end a turn (a run_unfinished error names them)
_TEXT_DELTAS = {"response.output_text.delta": "message"}
_REASONING_DELTAS = {"response.reasoning_text.delta", "response.reasoning_summary_text.delta", "response.reasoning.delta"}


class NoeticLogError(NoesisNbError, ValueError):
    """A Noetic log line that is not a stream event; the message names the line."""


class NoeticTurnRepeated(UserWarning):
    """A Noetic log ends a turn twice (a second ``turn_completed``) or starts a turnId again: the log was appended to
    twice or joined from two runs. Every event is imported as written; the run holds a ``noetic.trace_problem`` event
    naming the turn and the line, and this warning says so once per repeat."""


class _Turns:
    """Where each turnId of a log started and ended (by agent): a repeat is named, never dropped."""

    def __init__(self) -> None:
        self.started: dict[tuple[str, Any], int] = {}
        self.ended: dict[tuple[str, Any], tuple[int, str]] = {}

    def repeat(self, agent: str, name: str, data: dict[str, Any], number: int) -> str | None:
        """What is wrong with the turn event ``name`` at line ``number``, if it repeats its turn."""
        turn = data.get("turnId")
        if name not in ("turn_started", "turn_completed", "turn_aborted") or turn is None or isinstance(turn, (dict, list)):
            return None
        key, shown = (agent, turn), f"turn {quoted(turn, 80)}" + (f" of agent {quoted(agent, 80)}" if agent else "")
        if name == "turn_started":
            first = self.started.setdefault(key, number)
            if first == number:
                return None
            return f"{shown} starts again at line {number} (first at line {first}): a turnId reused"
        first_end = self.ended.setdefault(key, (number, name))
        if first_end[0] == number:
            return None
        return f"{shown} ends again at line {number} ({name}; it ended at line {first_end[0]}, {first_end[1]}): a duplicate end"


def _events(log: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, event)`` from a path, JSONL text lines, or event dicts."""
    if isinstance(log, dict):  # iterated, one event gives its keys
        raise NoeticLogError(
            f"the log is one event ({shown_cut(str(log), 60)!r}), not a list of them; "
            "pass a list of events, the JSONL file's path or its text"
        )
    lines, where, last = _lines_of(log)
    opening = True  # no event read yet: a first line opening a JSON array is a whole array, not a bad event
    for number, item in enumerate(lines, 1):
        if isinstance(item, (bytes, str)):
            if opening and _opens_array(item):
                raise _array_error(f"Noetic log {where}line {number}")
            unended = number == last or (bool(where) and isinstance(item, bytes) and not item.endswith(b"\n"))
            item = _parse_line(item, f"Noetic log {where}line {number}", unended)
            if item is None:
                continue
        opening = False
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise NoeticLogError(
                f"Noetic log {where}line {number}: expected a stream event {{source, type, data}} with a text 'type', "
                f"got {shown_cut(str(item), 120)!r}"
            )
        yield number, item


def _lines_of(log: Any) -> tuple[Iterable[Any], str, int | None]:
    """``(lines, where, last)``: the log's lines; ``where`` names its file in errors (when one is read); ``last`` is
    the number of a text's last line, which has no line end (a file's lines have one, but a torn last)."""
    content = isinstance(log, (bytes, bytearray))  # the log's content as bytes (a file read with "rb", a response body)
    if content:
        log = _decoded(bytes(log))
    if isinstance(log, str) and _opens_array(log) and (content or not os.path.lexists(log)):  # an array's text, no path
        raise _array_error("Noetic log text")
    if not content and _is_path(log):
        return _file_lines(log), f"{os.fspath(log)}, ", None
    if isinstance(log, str):
        lines = LINE_END.split(log)  # CRLF, LF or CR (a Windows writer's): str.splitlines also cuts at U+2028, U+0085…
        return lines, "", len(lines)
    return log, "", None


def _decoded(data: bytes) -> str:
    """A log given as bytes, as its text (a path is given as str or a path object, never as bytes)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoeticLogError(
            f"Noetic log bytes: not UTF-8 text ({exc.reason} at byte {exc.start}); save the log as UTF-8, or pass the "
            "path of its file"
        ) from None
    return text


def _opens_array(line: bytes | str) -> bool:
    """Whether a line starts a JSON array (``[``, after blanks and a byte order mark)."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return text.lstrip().removeprefix("\ufeff").lstrip().startswith("[")


def _array_error(where: str) -> NoeticLogError:
    """A log saved as one JSON array of events: JSONL holds one event a line; say how to pass it instead."""
    return NoeticLogError(
        f"{where}: the log is a JSON array, not JSONL (one {{source, type, data}} event a line); pass the list "
        "itself (json.load of the file, or json.loads of the text), or save the events one a line"
    )


def _is_path(log: Any) -> bool:
    """Whether ``log`` names the log's file; else it is the JSONL text itself, which starts with an event's ``{``
    (or is blank: an empty log, not a file named by blanks)."""
    if isinstance(log, os.PathLike):
        return True
    head = log.lstrip().removeprefix("\ufeff").lstrip() if isinstance(log, str) else "{"
    return bool(head) and not head.startswith("{")


def _parse_line(item: bytes | str, where: str, unended: bool) -> Any:
    """One JSONL line as its JSON value (None when blank), or :class:`NoeticLogError` naming ``where``.

    A line that has no line end and stops inside a value (or a character) is the file's last: the log was cut
    short, or its writer is still writing that line; the error says so rather than asking for the line to be
    fixed. A whole line that is wrong is the usual error, line end or not (JSONL is often joined without a last one).
    """
    if isinstance(item, bytes):
        try:
            item = item.decode("utf-8")
        except UnicodeDecodeError as exc:
            torn = unended and exc.reason == "unexpected end of data"  # a character's bytes cut short
            raise NoeticLogError(
                f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start}){_torn(torn, 'save the log as UTF-8')}"
            ) from None
    # a byte order mark starts line 1 of a file saved with one, or any line of files joined by `cat`
    item = item.removeprefix("\ufeff")
    if not item.strip():
        return None
    try:
        return loads_text(item)
    except JSONTextError as exc:
        torn = unended and exc.ends_early
        raise NoeticLogError(f"{where}: {exc.reason}: {quoted(item, 120)}{_torn(torn, _FIX_LINE)}") from None


_FIX_LINE = "fix that line (or import a copy of the log without it)"


def _torn(torn: bool, fix: str) -> str:
    """The end of a bad line's error: that it was cut short (when it was), and what to do."""
    if not torn:
        return f"; {fix}"
    return (
        "; it is the last line and has no line end: the log was cut short or is still being written; "
        "import it again once its writer has finished, or import a copy of the log without that line"
    )


def _refuse_nul(path: str | os.PathLike[str], what: str, fix: str) -> None:
    """A path holding a NUL names no file (``open`` raises a bare ValueError): one error naming it and the fix."""
    if "\x00" in os.fsdecode(os.fspath(path)):
        raise NoeticLogError(f"{what} {quoted(os.fspath(path), 80)}: a path has no NUL character; pass the path of {fix}")


def _file_lines(log: str | os.PathLike[str]) -> Iterator[bytes]:
    """The lines of a recorded log, read as they are parsed; a FIFO, folder or device is refused, never waited on."""
    _refuse_nul(log, "Noetic log", "the recorded JSONL file")
    try:
        fh = open_file(os.fspath(log))
    except UnreadableRunFile as exc:
        raise NoeticLogError(f"Noetic log {keys_hidden(str(exc))}; pass the path of the recorded JSONL file") from None
    if fh is None:
        raise FileNotFoundError(f"Noetic log {quoted(os.fspath(log))} does not exist; pass the path of the recorded JSONL file")
    splitter = LineSplitter()  # CRLF, LF or CR: a log written on Windows, or by a CR-only writer, reads alike
    with fh:
        while chunk := fh.read(1 << 16):
            for line in splitter.feed(chunk):
                yield line + b"\n"  # ended: its end, whichever it was, said as LF
    rest = splitter.close()
    if rest is not None:
        yield rest  # the last line, without a line end (cut short, or a writer still at work)


def noetic_rows(log: Any, harness_response: Harness = None) -> Iterator[Row]:
    """Rows for a Noetic stream log (lazily, in order), then the harness response's usage row.

    ``harness_response``: the ``HarnessResponse`` as a dict, or the path of its JSON file.
    """
    harness = _harness(harness_response)
    folds = Folds()
    turns = _Turns()
    for number, event in _events(log):
        data = as_object(event.get("data"))
        kind_name = event["type"]
        if event.get("source") == "sdk" and (kind_name in _TEXT_DELTAS or kind_name in _REASONING_DELTAS):
            folds.add(_TEXT_DELTAS.get(kind_name, "reasoning"), event, data)
            continue
        yield from folds.before(event, data)
        if event.get("source") == "framework":
            agent, _, name = kind_name.partition(":") if ":" in kind_name else ("", "", kind_name)
            kind = _FRAMEWORK.get(name, "custom")
            error = data.get("reason") or (
                f"model stream stalled (idle {data.get('idleTimeoutMs')} ms)"
                if name == "model_call_stalled"
                else data.get("error")
            )
            yield row(
                PHASE,
                "noetic",
                name,
                kind,
                agent=agent or None,
                data=data,
                error=error if kind == "run_error" else None,
                duration_ms=recorded_duration(data.get("durationMs")),  # turn_completed's: the event's metrics once imported
            )
            repeated = turns.repeat(agent, name, data, number)
            if repeated is not None:  # kept as written, and said: in the run and at once
                said = f"Noetic log: {repeated}; every event is imported as written (a log appended to twice, or two joined?)"
                warnings.warn(said, NoeticTurnRepeated, stacklevel=2)
                yield row(PHASE, "noetic", "trace_problem", "custom", problem=said, turn_id=data.get("turnId"), line=number)
        else:
            yield row(PHASE, "noetic", f"sdk.{kind_name}", "custom", data=data, output_index=event.get("outputIndex"))
    yield from folds.flush()
    if harness:
        yield from _harness_rows(harness)


def _harness(value: Any) -> dict[str, Any] | None:
    """The harness response as a dict, read from its JSON file when given a path (never a FIFO, folder or device)."""
    if value is None or isinstance(value, dict):
        return value
    if not isinstance(value, (str, os.PathLike)):
        raise NoeticLogError(
            f"harness_response={quoted(value, 80)}: pass the HarnessResponse as a dict or the path of its JSON file"
        )
    _refuse_nul(value, "Noetic harness response", "the HarnessResponse JSON file")
    try:
        got = read_file(os.fspath(value))
    except UnreadableRunFile as exc:
        raise NoeticLogError(
            f"Noetic harness response {keys_hidden(str(exc))}; pass the path of the HarnessResponse JSON file"
        ) from None
    if got is None:
        raise FileNotFoundError(
            f"Noetic harness response {quoted(os.fspath(value))} does not exist; pass the path of its JSON file"
        )
    where = f"Noetic harness response {quoted(os.fspath(value), 200)}"
    try:  # the log lines' own reader: a key written twice is refused here too, never read as its last value
        doc = loads_text(got[0].removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise NoeticLogError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    except JSONTextError as exc:
        raise NoeticLogError(f"{where}: {exc.reason}; fix the file, or pass the HarnessResponse as a dict") from None
    if not isinstance(doc, dict):
        raise NoeticLogError(f"{where}: expected a JSON object, got {type(doc).__name__}")
    return doc


def _harness_rows(response: dict[str, Any]) -> Iterator[Row]:
    usage = as_object(response.get("usage"))
    yield usage_row(
        "noetic",
        model=response.get("model"),
        provider=response.get("provider"),
        input_tokens=usage.get("inputTokens"),
        output_tokens=usage.get("outputTokens"),
        cached_input_tokens=usage.get("cachedTokens"),
        cache_write_input_tokens=usage.get("cacheWriteTokens"),
        cost_usd=response.get("cost"),
        scope="harness_response",
    )
    if response.get("text") is not None:
        yield row(
            PHASE,
            "noetic",
            "harness_response",
            "harness_response",
            answer=response.get("text"),
            items=len(items) if isinstance(items := response.get("items"), list) else None,
        )


def noetic_replay(log: Any, harness_response: Harness = None, *, output: Callable[[Any], Any] | None = None) -> RecordedReplay:
    """An adapter replaying a Noetic log (``using=noetic_replay("stream.jsonl", harness)``)."""
    given = rereadable(log, "noetic")
    return RecordedReplay(
        lambda: noetic_rows(given(), harness_response), source="noetic", output=output, end_names=_ENDS, timed=False
    )


def import_noetic(log: Any, harness_response: Harness = None, *, task: str = "imported Noetic run", **opts: Any) -> str:
    """Write a Noetic log as a sealed Noēsis run; returns the episode id (``runs_dir=`` etc. as for ``solve``)."""
    name = os.fspath(log) if not isinstance(log, (bytes, bytearray)) and _is_path(log) else None
    whole = not is_one_shot(log)  # a path, a text or a list is complete; an open file may still be written
    rows = lambda: noetic_rows(log, harness_response)  # noqa: E731
    return import_rows(rows, task=task, source="noetic", name=name, whole=whole, end_names=_ENDS, timed=False, **opts)
