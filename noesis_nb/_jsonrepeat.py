"""Whether a JSON text writes a key twice in one object, and its reading with such keys unknown: the check alone,
importing nothing of noesis_nb (the secrets sweep asks it too). ``_jsonkeys`` says why, and reports.

The check costs one re-serialisation: every key of the text read is followed by one ``:`` byte, and a colon inside a
string is a ``:`` byte or a ``\\u003a`` escape; orjson writes each key of the object read, and every colon of its
strings, as one ``:``. So the text holds more colons (``:`` and ``\\u003a``) than the object's own JSON only when a
key came twice (or the text holds a backslash before ``u003a``): only then is it parsed again, by a parser that sees
each key, to know which. A text holding as many is free of repeats, whatever its spacing or escapes.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["colons", "may_repeat", "screened", "walked", "without_repeats"]


_BIG = 1 << 16
_COLON = ord(":")


def colons(data: bytes, start: int = 0, end: int | None = None) -> int:
    """The ``:`` bytes and ``\\u003a`` escapes of ``data[start:end]`` (counted in place, no copy)."""
    stop = len(data) if end is None else end
    if stop - start > _BIG:  # counted by numpy: bytes.count of one byte is a plain loop, ~3x slower
        import numpy as np  # only for texts this large: ``import noesis_nb`` does not pay numpy's import (~0.1-0.6 s)

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


def without_repeats(text: bytes | str) -> tuple[Any, list[str]]:
    """(``text`` parsed with each key written twice in an object read as unknown, None; those keys in text order).

    ``text`` is JSON orjson has read (so it parses); called only where ``may_repeat`` says a key may come twice."""
    repeated: list[str] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) != len(pairs):
            for key in _twice(pairs):
                found[key] = None
                repeated.append(key)
        return found

    try:
        value = json.loads(text, object_pairs_hook=pairs_hook)
    except RecursionError:  # nested as deep as orjson reads (1,024) is past Python's limit where this is called
        value, keys, _ = walked(text)
        return value, keys
    return value, repeated


def _twice(pairs: list[tuple[str, Any]]) -> list[str]:
    """The keys that come more than once in ``pairs``, each once, in the order of their first coming."""
    counts: dict[str, int] = {}
    for key, _ in pairs:
        counts[key] = counts.get(key, 0) + 1
    return [key for key, count in counts.items() if count > 1]


# a JSON text's tokens: a string (escapes kept), one punctuation byte, or a literal (number, true, false, null)
_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.S)
_KEY = object()  # an object's next string is a key


def walked(text: bytes | str) -> tuple[Any, list[str], int | None]:
    """``without_repeats`` without recursion, whatever the nesting (and with no process-wide state such as the
    recursion limit, which another thread may be counting on), and the offset in ``text`` of the first key that
    comes again (None when none does). ``text`` is JSON orjson has read: its tokens are taken as well formed."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    repeated: list[str] = []
    first: int | None = None
    # each open container: [pairs or items, is an object, its pending key (or _KEY), offset of that key]
    stack: list[list[Any]] = []
    root: Any = None
    for match in _TOKENS.finditer(data):
        token = match.group()
        head = token[0]
        if head == 0x7B or head == 0x5B:  # { [
            stack.append([[], head == 0x7B, _KEY, 0])
            continue
        if head == 0x2C:  # ,
            if stack[-1][1]:
                stack[-1][2] = _KEY
            continue
        if head == 0x3A:  # :
            continue
        if head == 0x7D or head == 0x5D:  # } ]
            items, is_object, _, _ = stack.pop()
            if is_object:
                value = {key: item for key, item, _ in items}
                if len(value) != len(items):
                    keys = _twice([(key, None) for key, _, _ in items])
                    value.update(dict.fromkeys(keys))
                    repeated.extend(keys)
                    seen: set[str] = set()
                    for key, _, at in items:
                        if key in seen:
                            first = at if first is None else min(first, at)
                            break
                        seen.add(key)
            else:
                value = items
        else:
            value = orjson.loads(token)
            if stack and stack[-1][1] and stack[-1][2] is _KEY:  # a key
                stack[-1][2], stack[-1][3] = value, match.start()
                continue
        if not stack:
            root = value
        elif stack[-1][1]:
            top = stack[-1]
            top[0].append((top[2], value, top[3]))
            top[2] = None
        else:
            stack[-1][0].append(value)
    return root, repeated, first


def screened(text: bytes, value: Any) -> tuple[Any, list[str]]:
    """(``value``, []) for orjson's reading ``value`` of the JSON document ``text``; when a key comes twice in it,
    its reading with those keys unknown and the keys (``without_repeats``)."""
    counted = text.count(b":") if len(text) <= _BIG and text.find(b"\\") == -1 else colons(text)  # a document: small
    if not may_repeat(counted, value):
        return value, []
    return without_repeats(text)
