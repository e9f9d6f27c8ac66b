"""Saying where a batch called again parts from its record, so that the two sides never read alike.

Texts that differ only where a cut or the eye cannot tell — past the shown length, in Unicode
normalisation (``é`` as one character or as ``e`` and an accent) — are named by what differs and where.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Literal

from .._jsonio import canonical_json
from ..secrets.quoted import keys_hidden, quoted, quoted_text

__all__ = ["first_difference", "short"]

_WINDOW = 30  # characters shown either side of where two texts part
_FORMS: tuple[Literal["NFC", "NFD", "NFKC", "NFKD"], ...] = ("NFC", "NFD", "NFKC", "NFKD")  # the lesser change first
_ACCENTS = "a letter and its accent written as one character or as two"


def short(value: Any) -> str:
    """A task as its text when it has no tags or inputs, else the value; its repr, cut to 80 characters."""
    return quoted(
        value.get("task")
        if isinstance(value, dict)
        and set(value) <= {"task", "tags", "inputs"}
        and not value.get("tags")
        and not value.get("inputs")
        else value,
        80,
    )


def _cut(text: str) -> str:
    """``text`` (entries as compared) redacted, then cut to 80 characters: a key in a task is not shown in part."""
    return quoted_text(text, 80) if len(text) <= 80 else quoted_text(text, 77) + "…"


def _same_but_task(old: Any, new: Any) -> bool:
    """Whether two entries differ only in their task (a text each, or entries that are dicts alike but for it)."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return True
    rest = [canonical_json({k: v for k, v in entry.items() if k != "task"}) for entry in (old, new)]
    return rest[0] == rest[1]


def first_difference(before: list[Any], now: list[Any]) -> str:
    """``[3] was 'a', now 'b'`` or ``3 recorded, 4 now``: the first place two recorded lists part."""
    for index, (old, new) in enumerate(zip(before, now)):
        if canonical_json(old) != canonical_json(new):
            return f"[{index}] {apart(old, new)}"
    return f"{len(before)} recorded, {len(now)} now"


def apart(old: Any, new: Any) -> str:
    """``was X, now Y``, told so that X and Y never read the same: past the shown length, or where they differ
    in letters that look alike (another normalisation, a Cyrillic ``а`` for a Latin ``a``), by where they part."""
    was, now = short(old), short(new)
    a, b = (v.get("task") if isinstance(v, dict) else v for v in (old, new))
    if not (isinstance(a, str) and isinstance(b, str) and a != b and _same_but_task(old, new)):
        # the whole entries, as compared (keys sorted): a tag changed beside the task is named, and where they
        # part is counted in the text shown, not in a repr whose keys come in another order
        a, b = (canonical_json(v).decode("utf-8") for v in (old, new))
        was, now = _cut(a), _cut(b)
    held = next((form for form in _FORMS if unicodedata.normalize(form, b) == a), None)
    if held is not None:  # the form that turns what is passed now into what was recorded: the fix that works
        why = _ACCENTS if held in ("NFC", "NFD") else "a ligature, a full-width or other compatibility character"
        return (
            f"was {was}, now the same text in another Unicode normalisation ({why}); the record holds it in {held}: "
            f"pass the tasks as recorded, e.g. unicodedata.normalize({held!r}, task) for each"
        )
    mixed = unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)
    at = _parting(a, b)
    if was != now and a[at : at + 1].isascii() and b[at : at + 1].isascii() and at < 60:
        return f"was {was}, now {now}"  # they part where both are shown, in characters that read apart
    windows = _windows(a, b)
    if mixed:  # no one form gives the record back: it mixes them, so only its own characters match it
        return (
            f"the same text in another Unicode normalisation ({_ACCENTS}), and the record mixes forms (no one of "
            f"{', '.join(_FORMS)} gives it back); pass the tasks exactly as recorded: they part at character {at}{windows}"
        )
    return f"they part at character {at}{windows}"


def _parting(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _windows(a: str, b: str) -> str:
    """``: was …'xy', now …'xz'``: the texts about where they part, escaped (``ascii``), each redacted whole first
    as every text the batch shows is (``keys_hidden``): a window cut from the middle of a key is no key a detector
    finds. Where they part only in what is redacted, that is said instead."""
    a, b = keys_hidden(a), keys_hidden(b)
    if a == b:
        return ", at what looks like a secret (not shown)"
    at = _parting(a, b)
    start = max(0, at - _WINDOW)
    cut = "…" if start else ""
    return f": was {cut}{ascii(a[start : at + _WINDOW])}, now {cut}{ascii(b[start : at + _WINDOW])}"
