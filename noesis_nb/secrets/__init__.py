"""Secrets kept out of run directories and views: detection by value and by name, per-run scrubbing.

    find_in_text("export GH_PAT=ghp_…")  -> {"ghp_…"}          by value (detect-secrets' plugins and more)
    redact({"argv": ["curl", "-H", "Authorization: Bearer x…"]})  -> (redacted copy, hits)
    for_run(run_dir).screen(payload)     the event hot path: learn, then redact what is known
    shown(text)                          what a view may display
    shown_start(text, limit)             the same for a view that shows only the first ``limit`` characters

Layering: depends only on the standard library, orjson and (lazily) detect-secrets, so tools,
runtime and widgets can all use it. See ``guard`` for what is scrubbed when.
"""

from __future__ import annotations

from typing import TypeVar, overload

from .guard import MIN_HUNTED, RunSecrets, for_run, known_everywhere, scrub_text
from .names import REDACTED_VALUE, is_secret_key
from .scan import Hit, leaf_strings, redact, scan
from .text import find_in_text, might_contain

__all__ = [
    "REDACTED_VALUE",
    "MIN_HUNTED",
    "is_secret_key",
    "find_in_text",
    "might_contain",
    "scan",
    "redact",
    "Hit",
    "leaf_strings",
    "RunSecrets",
    "for_run",
    "known_everywhere",
    "scrub_text",
    "shown",
    "shown_start",
    "SCAN_MARGIN",
]

SCAN_MARGIN = 8192  # longer than any secret a detector finds or a person hands over


_T = TypeVar("_T")


@overload
def shown(text: str) -> str: ...
@overload
def shown(text: _T) -> _T: ...
def shown(text: object) -> object:
    """``text`` safe to display: every value a run of this process learned, and every secret found in it, redacted.

    Anything that is not a string (None, a number) is returned as it is.
    """
    if not isinstance(text, str) or not text:
        return text
    known = known_everywhere()
    if known:
        text = scrub_text(text, known)
    if might_contain(text.encode("utf-8", "replace")):
        for value in sorted(find_in_text(text), key=len, reverse=True):
            text = text.replace(value, REDACTED_VALUE)
    return text


def shown_start(text: str, limit: int) -> str:
    """``shown(text)`` for a view that keeps only its first ``limit`` characters.

    Only those and ``SCAN_MARGIN`` more are scanned: a secret that starts in the kept part ends in
    the scanned one, and a 200 MB line is not searched for minutes to show a few thousand characters.
    """
    return shown(text[: limit + SCAN_MARGIN])
