"""A small ``text/event-stream`` decoder (the AG-UI SDK ships an encoder but no parser).

Only ``data:`` fields matter to AG-UI: one event per blank-line-terminated block, several
``data:`` lines joined with newlines, ``:`` comments (keep-alives) ignored. Errors name the
SSE line where the bad event began, so a broken producer can be found. ``max_event_bytes`` caps
one event's data, however many ``data:`` lines carry it: a producer that never sends the blank
line ending an event cannot fill memory line by line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...errors import NoesisNbError
from ...secrets import shown_cut
from .._jsontext import JSONTextError, loads_text
from .._lines import split_text

__all__ = ["AGUIStreamError", "SSEDecoder", "decode_event", "parse_sse"]


class AGUIStreamError(NoesisNbError, ValueError):
    """An AG-UI stream that cannot be read: bad SSE/JSON, an invalid event, or a run that never ends."""

    def __init__(self, message: str, *, line: int | None = None):
        self.line = line
        super().__init__(message)


class SSEDecoder:
    """Feed lines one by one; :meth:`feed` returns ``(first_line_number, data)`` when an event completes.

    ``max_event_bytes`` (None: no cap) bounds one event's data in UTF-8 bytes; ``where`` names the stream in errors.
    """

    def __init__(self, max_event_bytes: int | None = None, where: str = "SSE stream") -> None:
        self.line = 0
        self.max_event_bytes, self.where = max_event_bytes, where
        self._data: list[str] = []
        self._size = 0
        self._first = 0

    def feed(self, line: str) -> tuple[int, str] | None:
        self.line += 1
        # a byte order mark opens a body saved with one (SSE drops it) or one of several joined: never part of a field name
        line = line.rstrip("\r\n").removeprefix("\ufeff")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if field == "data":
            if not self._data:
                self._first, self._size = self.line, 0
            value = value[1:] if value.startswith(" ") else value
            self._data.append(value)
            self._count(value)
        return None  # event:, id:, retry: carry nothing AG-UI needs

    def _count(self, value: str) -> None:
        """Add one data line to the event's size; past ``max_event_bytes`` the event is refused, naming where it began."""
        if self.max_event_bytes is None:
            return
        self._size += (len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))) + 1
        if self._size > self.max_event_bytes:
            lines = len(self._data)
            self._data = []
            raise AGUIStreamError(
                f"{self.where}, line {self._first}: one SSE event is over {self.max_event_bytes} bytes ({lines} data: "
                "line(s) and no blank line ending it yet); the server sends an oversized event, or pass "
                "max_line_bytes= a larger number",
                line=self._first,
            )

    def close(self) -> tuple[int, str] | None:
        """The last event when the stream ended without a blank line."""
        return self._dispatch()

    def _dispatch(self) -> tuple[int, str] | None:
        if not self._data:
            return None
        data, self._data = "\n".join(self._data), []
        return self._first, data


def decode_event(line: int, data: str, where: str = "SSE stream") -> dict[str, Any]:
    """One ``data:`` payload as an event dict, or :class:`AGUIStreamError` naming the line."""
    try:
        event = loads_text(data)
    except JSONTextError as exc:
        raise AGUIStreamError(
            f"{where}, line {line}: the event is {exc.reason.replace('not JSON', 'not valid JSON')}: "
            f"{shown_cut(data, 120)!r}. Fix the producer; everything before this line was kept.",
            line=line,
        ) from None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise AGUIStreamError(
            f"{where}, line {line}: an AG-UI event must be a JSON object with a string 'type', got {shown_cut(data, 120)!r}",
            line=line,
        )
    return event


def parse_sse(lines: Iterable[str], where: str = "SSE stream") -> Iterator[dict[str, Any]]:
    """Event dicts from SSE text lines (e.g. a recorded ``.sse`` file's lines).

    A line may still hold line ends (CRLF, LF or CR, as SSE allows: a CR-only file read without
    universal newlines is one "line"): each is a line of its own."""
    decoder = SSEDecoder()
    for given in lines:
        for line in split_text(given):
            got = decoder.feed(line)
            if got:
                yield decode_event(*got, where=where)
    got = decoder.close()
    if got:
        yield decode_event(*got, where=where)
