"""How a hidden part of a name is written when shown: ``[REDACTED:<mark>]`` (``namemarks``), told from text.

Kept apart from the marks themselves (which need this user's key, ``_sealkey``) so that the modules below the key
(``ids``) read shown names too.
"""

from __future__ import annotations

import re

from .names import REDACTED_VALUE

__all__ = ["MARK_HEX", "HIDDEN", "holds_hidden", "unmarked"]

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
