"""Columns of text for a terminal or a notebook's plain output, measured as they are drawn, not in code points.

A CJK character or most emoji take two columns, a combining mark or a zero-width joiner none: padded by
``len``, a table with a Japanese task or an emoji event name drifts right on every line after it. ``wcwidth``
(which IPython's prompt_toolkit brings, so it is there wherever the magics are) knows emoji sequences; without
it, ``unicodedata``'s East Asian width and combining classes give the same answer for all but those.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

_wcswidth: Callable[[str], int] | None
try:
    from wcwidth import wcswidth as _wcswidth
except ImportError:  # pragma: no cover - IPython brings it
    _wcswidth = None

__all__ = ["display_width", "pad"]

_ZERO = frozenset({"Mn", "Me", "Cf"})  # combining marks, enclosing marks, format characters (ZWJ, bidi marks)


def _char_width(char: str) -> int:
    if unicodedata.category(char) in _ZERO and char != "\u00ad":  # a soft hyphen is drawn where it is shown
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """How many columns ``text`` takes in a monospaced font (wide characters 2, combining and format ones 0)."""
    if text.isascii():
        return len(text)
    if _wcswidth is not None:
        width = _wcswidth(text)
        if width >= 0:  # -1: a control character, which it does not measure
            return int(width)
    return sum(_char_width(c) for c in text)


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` columns (as ``f"{text:{width}}"`` does, counted in columns)."""
    return text + " " * max(0, width - display_width(text))
