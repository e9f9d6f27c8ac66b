"""JSON that writes a key twice in one object, found without slowing the reading of JSON that does not.

Readers disagree on which value of a repeated key counts (Python, JavaScript and orjson keep the last, others the
first), so ``{"input_tokens": 100, "input_tokens": 999999999}`` would be one run here and another in the producer's
own tools. orjson, which reads every run file, keeps the last without a word.

The check costs one re-serialisation: every key of the text read is followed by one ``:`` byte, and a colon inside a
string is a ``:`` byte or a ``\\u003a`` escape; orjson writes each key of the object read, and every colon of its
strings, as one ``:``. So the text holds more colons (``:`` and ``\\u003a``) than the object's own JSON only when a
key came twice (or the text holds a backslash before ``u003a``): only then is it parsed again, by a parser that sees
each key, to know which. A text holding as many is free of repeats, whatever its spacing or escapes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import orjson

from .secrets.quoted import quoted

__all__ = ["check_texts", "colons", "screened", "may_repeat", "repeated_key", "without_repeats", "repeated_reason"]


_BIG = 1 << 16
_COLON = ord(":")


def colons(data: bytes, start: int = 0, end: int | None = None) -> int:
    """The ``:`` bytes and ``\\u003a`` escapes of ``data[start:end]`` (counted in place, no copy)."""
    stop = len(data) if end is None else end
    if stop - start > _BIG:  # counted by numpy: bytes.count of one byte is a plain loop, ~3x slower
        count = int(np.count_nonzero(np.frombuffer(data, np.uint8, stop - start, start) == _COLON))
    else:
        count = data.count(b":", start, stop)
    if data.find(b"\\", start, stop) != -1 and data.find(b"\\u003", start, stop) != -1:  # one byte first (memchr)
        count += data.count(b"\\u003a", start, stop) + data.count(b"\\u003A", start, stop)
    return count


def may_repeat(text_colons: int, value: Any) -> bool:
    """Whether the JSON text with ``text_colons`` (``colons``) that orjson read as ``value`` may write a key twice;
    False means it surely does not (a list of values read from many texts is checked against their colons' sum)."""
    try:
        return orjson.dumps(value).count(b":") != text_colons
    except (TypeError, orjson.JSONEncodeError):
        return True


def repeated_key(pairs: list[tuple[str, Any]]) -> str | None:
    """The first key that comes twice in one object's ``pairs``; None when each comes once."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


def without_repeats(text: bytes | str) -> tuple[Any, list[str]]:
    """(``text`` parsed with each key written twice in an object read as unknown, None; those keys in text order).

    ``text`` is JSON orjson has read (so it parses); called only where ``may_repeat`` says a key may come twice."""
    repeated: list[str] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) != len(pairs):
            counts: dict[str, int] = {}
            for key, _ in pairs:
                counts[key] = counts.get(key, 0) + 1
            for key, count in counts.items():
                if count > 1:
                    found[key] = None
                    repeated.append(key)
        return found

    try:
        value = json.loads(text, object_pairs_hook=pairs_hook)
    except RecursionError:  # nested as deep as orjson reads (1,024) is past Python's limit where this is called
        repeated.clear()
        value = _deep(lambda: json.loads(text, object_pairs_hook=pairs_hook))
    return value, repeated


def _deep(parse: Callable[[], Any]) -> Any:
    """``parse()`` with room for JSON nested as deep as orjson reads, however deep the caller's own stack is (a
    repeated key hidden under 1,000 levels of lists is found all the same)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 1200)  # process-wide for this call: only ever higher, restored after
    try:
        return parse()
    finally:
        sys.setrecursionlimit(limit)


def screened(text: bytes, value: Any) -> tuple[Any, list[str]]:
    """(``value``, []) for orjson's reading ``value`` of the JSON document ``text``; when a key comes twice in it,
    its reading with those keys unknown and the keys (``without_repeats``)."""
    counted = text.count(b":") if len(text) <= _BIG and b"\\" not in text else colons(text)  # a document: small
    if not may_repeat(counted, value):
        return value, []
    return without_repeats(text)


def repeated_reason(keys: list[str]) -> str:
    """A problem's reason for ``keys`` written twice in one object (read as unknown)."""
    named = ", ".join(quoted(k, 60) for k in dict.fromkeys(keys))
    which = "key" if len(set(keys)) == 1 else "keys"
    return (
        f"the {which} {named} comes twice in one object, and readers disagree on which value counts: read as unknown. "
        "The producer must write each key once"
    )


def check_texts(
    texts: list[bytes], values: list[Any], report: Callable[[int, str], None], text_colons: int | None = None
) -> None:
    """Replace each of ``values`` (orjson's reading of ``texts``, one for one) whose text writes a key twice by its
    reading with those keys unknown (``without_repeats``), and ``report(index, reason)`` it. ``text_colons``: the
    texts' colons when known (counted over the whole file at once)."""
    total = sum(map(colons, texts)) if text_colons is None else text_colons
    if not may_repeat(total, values):
        return
    for index, text in enumerate(texts):
        if may_repeat(colons(text), values[index]):
            value, keys = without_repeats(text)
            if keys:
                values[index] = value
                report(index, repeated_reason(keys))
