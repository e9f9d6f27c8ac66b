"""How a hidden part of a name is written when shown: ``[REDACTED:<mark>]`` (``namemarks``), told from text.

Kept apart from the marks themselves (which need this user's key, ``_sealkey``) so that the modules below the key
(``ids``) read shown names too.
"""

from __future__ import annotations

import re

from .names import REDACTED_VALUE

__all__ = ["MARK_HEX", "HIDDEN", "holds_hidden", "unmarked", "hidden_pieces"]

MARK_HEX = 16  # hex digits of a hidden name's mark: 64 bits
#: a hidden part of a name as shown: ``[REDACTED:<mark>]``, or a bare ``[REDACTED]`` (a path from an older output)
HIDDEN = re.compile(rf"\[REDACTED(?::[0-9a-f]{{{MARK_HEX}}})?\]")
_MARKED = re.compile(rf"\[REDACTED:[0-9a-f]{{{MARK_HEX}}}\]")


def holds_hidden(text: str) -> bool:
    """Whether ``text`` holds a hidden part as a name is shown (``[REDACTED:<mark>]`` or ``[REDACTED]``)."""
    return "[REDACTED" in text and HIDDEN.search(text) is not None


def unmarked(text: str) -> str:
    """``text`` with each ``[REDACTED:<mark>]`` a bare ``[REDACTED]``: as names were shown before marks."""
    return _MARKED.sub(REDACTED_VALUE, text) if "[REDACTED:" in text else text


def hidden_pieces(name: str, kept: list[str]) -> list[str] | None:
    """The pieces of ``name`` that ``kept`` (the parts shown between ``[REDACTED]``) leave out, each non-empty, or
    None when ``kept`` does not fit ``name``. One left-to-right pass (each kept part found at its earliest place
    after the last): linear, where a pattern ``"(.+?)".join(kept)`` backtracked for minutes on a long name whose
    shown form was cut short. The earliest place is the one that fit: it leaves the most room for what follows."""
    first, middle, last = kept[0], kept[1:-1], kept[-1]
    end = len(name) - len(last)  # where the last hidden piece ends
    if not name.startswith(first) or not name.endswith(last) or end < len(first):
        return None
    pieces, pos = [], len(first)
    for part in middle:
        found = name.find(part, pos + 1, end - 1)  # a piece before it and one after it hold a character each
        if found < 0:
            return None
        pieces.append(name[pos:found])
        pos = found + len(part)
    if end <= pos:
        return None
    return [*pieces, name[pos:end]]
