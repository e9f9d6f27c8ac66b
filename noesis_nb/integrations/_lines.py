"""Lines of another system's text, ended by CRLF, LF or CR (a log written on Windows, an SSE stream).

One splitter for every reader, so a file and a stream agree on where a line ends. Only those three end
a line: ``str.splitlines`` also cuts at U+2028, U+0085 and form feeds, which JSON strings may hold raw.
"""

from __future__ import annotations

import re

__all__ = ["LINE_END", "LineSplitter", "split_text"]

LINE_END = re.compile(r"\r\n|\r|\n")
_BYTE_END = re.compile(rb"[\r\n]")


def split_text(text: str) -> list[str]:
    """``text``'s lines without their ends; a final line end ends the last line (it opens no empty one)."""
    if text.endswith("\n"):
        text = text[:-1]
    if text.endswith("\r"):
        text = text[:-1]
    return LINE_END.split(text)


class LineSplitter:
    """Feed bytes as they arrive; :meth:`feed` gives the lines they completed (without their ends).

    A CRLF split between two reads is one line end. :meth:`close` gives the last line when it had no
    end. ``pending`` is the size of the line still open (a caller caps it), in linear time over the input.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._after_cr = False  # the last read ended in a CR: an LF first in the next one belongs to it

    @property
    def pending(self) -> int:
        return len(self._buffer)

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        if self._after_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._after_cr = False
        buffer = self._buffer
        scanned = len(buffer)  # what the buffer holds was searched already: it has no line end
        buffer += chunk
        lines, start = [], 0
        while found := _BYTE_END.search(buffer, max(start, scanned)):
            end = found.start()
            lines.append(bytes(buffer[start:end]))
            start = end + 1
            if buffer[end] == 13:  # CR: an LF right after it is part of the same line end
                if start == len(buffer):
                    self._after_cr = True
                elif buffer[start] == 10:
                    start += 1
        del buffer[:start]
        return lines

    def close(self) -> bytes | None:
        """The last line when the input ended without a line end, else None."""
        if not self._buffer:
            return None
        rest, self._buffer = bytes(self._buffer), bytearray()
        return rest
