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
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import orjson

from .secrets.quoted import quoted

__all__ = [
    "Repeated",
    "RepeatedKeyWarning",
    "check_texts",
    "checked",
    "colons",
    "loads_checked",
    "may_repeat",
    "repeated_key",
    "is_repeated_reason",
    "repeated_reason",
    "screened",
    "walked",
    "where_repeated",
    "without_repeats",
]


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
    counted = text.count(b":") if len(text) <= _BIG and b"\\" not in text else colons(text)  # a document: small
    if not may_repeat(counted, value):
        return value, []
    return without_repeats(text)


class Repeated(NamedTuple):
    """Keys a JSON document writes twice in one object (read as unknown), and the report to make of them once."""

    keys: list[str]
    line: int  # the document's line (1-based) where the first of them comes again
    reason: str  # ``repeated_reason``


class RepeatedKeyWarning(UserWarning):
    """A JSON document read for the caller writes a key twice in one object: that key is read as unknown."""


def where_repeated(path: str, repeated: Repeated) -> str:
    """One line naming the file, the line and the keys of ``repeated``."""
    return f"{path}, line {repeated.line}: {repeated.reason}"


def loads_checked(text: bytes) -> tuple[Any, Repeated | None]:
    """The JSON document ``text`` as orjson reads it (raising ``orjson.JSONDecodeError`` as it does), each key it
    writes twice in one object read as unknown (None), never its first or last value; and, when one does, what to
    report (``Repeated``), else None. The one reader of JSON from disk or from another process that a repeated key
    could change a figure, a decision, a status or an id of; one re-serialisation when no key comes twice."""
    return checked(text, orjson.loads(text))


def checked(text: bytes, value: Any) -> tuple[Any, Repeated | None]:
    """``loads_checked`` for ``value``, orjson's reading of ``text`` (read already)."""
    screened_value, keys = screened(text, value)
    if not keys:
        return value, None
    at = walked(text)[2]
    line = 1 if at is None else text.count(b"\n", 0, at) + 1
    return screened_value, Repeated(keys, line, repeated_reason(keys))


def repeated_reason(keys: list[str]) -> str:
    """A problem's reason for ``keys`` written twice in one object (read as unknown)."""
    named = ", ".join(quoted(k, 60) for k in dict.fromkeys(keys))
    which = "key" if len(set(keys)) == 1 else "keys"
    return (
        f"the {which} {named} comes twice in one object, and readers disagree on which value counts: read as unknown. "
        "The producer must write each key once"
    )


def is_repeated_reason(reason: str) -> bool:
    """Whether a problem's ``reason`` is ``repeated_reason``'s."""
    return "comes twice in one object, and readers disagree" in reason


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
