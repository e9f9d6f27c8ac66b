"""JSON that writes a key twice in one object, found without slowing the reading of JSON that does not.

Readers disagree on which value of a repeated key counts (Python, JavaScript and orjson keep the last, others the
first), so ``{"input_tokens": 100, "input_tokens": 999999999}`` would be one run here and another in the producer's
own tools. orjson, which reads every run file, keeps the last without a word. Each reader of JSON from disk or from
another process that a repeated key could change a figure, a decision, a status or an id of reads it with
``loads_checked`` (or ``checked``, ``check_texts`` for many lines): the key is read as unknown and reported once, with
its file and line. The check itself (one re-serialisation when no key comes twice) is ``_jsonrepeat``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import orjson

from ._jsonrepeat import colons, may_repeat, screened, walked, without_repeats
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


def repeated_key(pairs: list[tuple[str, Any]]) -> str | None:
    """The first key that comes twice in one object's ``pairs``; None when each comes once."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


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
