"""A peer's value as a run stores and an approval shows it: whole when its JSON is short, else a bounded preview.

The value comes from another system (a LangGraph ``interrupt()``, an AG-UI interrupt) and may hold megabytes. It is
handled on the notebook's event loop, so only its head is read: strings are cut and containers stop once the
preview's characters are spoken for, before anything is converted, serialised or screened for secrets. The work is
the same for a 2 MB value as for a 200 MB one.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from .._jsonio import to_jsonable
from .._safetext import safe_repr

__all__ = ["json_preview", "json_head"]

_CUT_WORD = re.compile(r'[^\s",\[\]{}()]+\Z')  # the word a cut ends in: part of a secret would slip past redaction
_DEPTH = 32  # container levels read; one nested deeper is kept as its bounded repr


def json_preview(value: Any, limit: int, option: str = "max_value_chars") -> Any:
    """``value`` as JSON data when its JSON text has at most ``limit`` characters; else ``{"preview": its first
    ``limit`` characters (never ending inside a word), "truncated": how much there was and the ``option`` to raise}``."""
    head, cut = json_head(value, limit)
    data = to_jsonable(head)
    text = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    if not cut and len(text) <= limit:
        return data
    size = f"more than {limit}" if cut else str(len(text))
    return {
        "preview": _CUT_WORD.sub("", text[:limit]),
        "truncated": f"{size} characters of JSON, the first {limit} kept; pass {option}= a larger number for more",
    }


def json_head(value: Any, limit: int) -> tuple[Any, bool]:
    """The part of ``value`` whose JSON text starts as ``value``'s does, for more than ``limit`` characters, and
    whether anything was left out. Each item read takes at least one character of JSON, so at most ``limit`` items
    and ``limit`` characters of text are read, whatever the value's size (``left`` counts the characters written
    before the point reached, at least)."""
    reader = _Head(limit)
    return reader.take(value, 0), reader.cut


class _Head:
    def __init__(self, budget: int) -> None:
        self.left, self.cut = budget, False

    def take(self, value: Any, depth: int) -> Any:
        if isinstance(value, (bytes, bytearray)):  # stored as its UTF-8 text: 4 bytes or fewer a character
            room = 4 * max(self.left, 0)
            value, self.cut = bytes(value[:room]).decode("utf-8", "replace"), self.cut or len(value) > room
        if isinstance(value, str):
            room = max(self.left, 0)
            if len(value) > room:
                value, self.cut = value[:room], True
            self.left -= len(value) + 2  # its quotes (a cut one's closing quote comes after the cut)
            return value
        if not isinstance(value, (dict, list, tuple, set, frozenset)):
            self.left -= 1  # a number, a null, or an object to_jsonable converts (its repr is bounded there)
            return value
        if depth >= _DEPTH:
            return self.take(safe_repr(value, self.left + 1), depth)
        self.left -= 1  # its opening bracket (a cut keeps no closing one of its own)
        try:
            kept = self._dict(value, depth) if isinstance(value, dict) else self._items(value, depth)
        except Exception:  # a subclass whose items() or iteration raises: kept as its bounded repr
            return self.take(safe_repr(value, self.left + 1), depth)
        self.left -= 1  # its closing bracket, before whatever follows
        return kept

    def _dict(self, value: dict[Any, Any], depth: int) -> dict[Any, Any]:
        kept: dict[Any, Any] = {}
        for key, item in value.items():
            if self.left <= 0:
                self.cut = True
                break
            key = self.take(key, depth + 1) if isinstance(key, str) else key
            self.left -= 1  # the colon
            kept[key] = self.take(item, depth + 1)
        return kept

    def _items(self, value: Any, depth: int) -> list[Any]:
        kept: list[Any] = []
        for item in value:
            if self.left <= 0:
                self.cut = True
                break
            kept.append(self.take(item, depth + 1))
        return kept
