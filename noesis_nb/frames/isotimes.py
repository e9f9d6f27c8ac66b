"""Event timestamps without pyarrow: the writer's fixed ISO-8601 shape parsed with numpy, anything else by ``timetext``.

Engines write ``YYYY-MM-DDTHH:MM:SS.ffffff+HH:MM`` (32 ASCII characters). ``TimeColumn`` keeps
those as 32 bytes a row (not a Python string each), and parses all of them at once with numpy
arithmetic when the column is built. A row that is not exactly that shape, or whose fields are
out of range (a 13th month, 30 February, a year pandas' nanosecond range cannot hold), goes to
``timetext.utc_micros`` (the frames' one rule), so both paths give the same instants and the same
unparseable strings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .timetext import NAT, micros_of

__all__ = ["TimeColumn", "parse_fixed", "WIDTH"]

WIDTH = 32
_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22, 23, 24, 25, 27, 28, 30, 31]
_SEPARATORS = {4: "-", 7: "-", 10: "T", 13: ":", 16: ":", 19: ".", 29: ":"}
_FILLER = b"\x00" * WIDTH  # a row kept aside (``odd``): never passes the shape check
_EPOCH_MONTH = np.datetime64("1970-01", "M")


class TimeColumn:
    """Timestamp strings (or None) appended run by run; ``build`` gives UTC microseconds and the strings that did not parse."""

    __slots__ = ("buf", "odd", "rows")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.odd: dict[int, Any] = {}  # row -> value not in the fixed shape (None, another ISO form, junk)
        self.rows = 0

    def extend(self, values: list[Any]) -> None:
        n = len(values)
        try:
            joined = "".join(values)
        except TypeError:  # a None (missing or already reported): row by row
            joined = None
        if joined is not None and len(joined) == WIDTH * n and joined.isascii() and (n == 0 or set(map(len, values)) == {WIDTH}):
            self.buf += joined.encode("ascii")
        else:
            for i, value in enumerate(values):
                if type(value) is str and len(value) == WIDTH and value.isascii():
                    self.buf += value.encode("ascii")
                else:
                    self.buf += _FILLER
                    self.odd[self.rows + i] = value
        self.rows += n

    def build(self) -> tuple[pd.api.extensions.ExtensionArray, list[tuple[int, Any]]]:
        """The ``datetime64[us, UTC]`` array, and (row, value) for each non-missing value that is not a time."""
        micros, unparsed = self.micros()
        return pd.Series(micros.view("M8[us]")).dt.tz_localize("UTC").array, unparsed

    def micros(self) -> tuple[np.ndarray, list[tuple[int, Any]]]:
        """UTC microseconds (``NAT`` when unknown), and (row, value) for each non-missing value that is not a time."""
        micros, ok = parse_fixed(bytes(self.buf), self.rows)
        rest = np.flatnonzero(~ok)
        unparsed: list[tuple[int, Any]] = []
        if len(rest):
            raw = [self.odd[row] if row in self.odd else self._text(row) for row in rest.tolist()]
            values = micros_of(raw)
            micros[rest] = values
            unparsed = [(row, v) for row, v, t in zip(rest.tolist(), raw, values.tolist()) if t == NAT and v is not None]
        return micros, unparsed

    def _text(self, row: int) -> str:
        return bytes(self.buf[row * WIDTH : (row + 1) * WIDTH]).decode("ascii")


def parse_fixed(buf: bytes, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """UTC microseconds of ``rows`` fixed-shape ASCII timestamps packed in ``buf``, and which rows had that shape.

    A row is accepted only when every separator and digit is where the shape puts it, the sign
    is ``+`` or ``-``, and every field is in range (calendar-checked day, years 1678–2261 so
    pandas' nanosecond range holds them too); rejected rows are 0 in the result.
    """
    micros = np.zeros(rows, dtype=np.int64)
    if rows == 0:
        return micros, np.zeros(0, dtype=bool)
    chars = np.frombuffer(buf, dtype=np.uint8, count=rows * WIDTH).reshape(rows, WIDTH)
    digits = chars[:, _DIGITS] - np.uint8(48)  # wraps below '0' to > 9
    ok = (digits < 10).all(axis=1)
    for at, sep in _SEPARATORS.items():
        ok &= chars[:, at] == ord(sep)
    sign = chars[:, 26]
    ok &= (sign == ord("+")) | (sign == ord("-"))

    def field(*cols: int) -> np.ndarray:
        value = digits[:, cols[0]].astype(np.int64)
        for c in cols[1:]:
            value = value * 10 + digits[:, c]
        return value

    year, month, day = field(0, 1, 2, 3), field(4, 5), field(6, 7)
    hour, minute, second, frac = field(8, 9), field(10, 11), field(12, 13), field(14, 15, 16, 17, 18, 19)
    off_h, off_m = field(20, 21), field(22, 23)
    ok &= (year >= 1678) & (year <= 2261) & (month >= 1) & (month <= 12) & (day >= 1)
    ok &= (hour <= 23) & (minute <= 59) & (second <= 59) & (off_h <= 23) & (off_m <= 59)
    months = np.where(ok, (year - 1970) * 12 + month - 1, 0)
    first = (_EPOCH_MONTH + months).astype("M8[D]").astype(np.int64)
    length = (_EPOCH_MONTH + months + 1).astype("M8[D]").astype(np.int64) - first
    ok &= day <= length
    offset = (off_h * 60 + off_m) * np.where(sign == ord("-"), -1, 1)
    seconds = (first + day - 1) * 86400 + hour * 3600 + (minute - offset) * 60 + second
    np.copyto(micros, seconds * 1_000_000 + frac, where=ok)
    return micros, ok
