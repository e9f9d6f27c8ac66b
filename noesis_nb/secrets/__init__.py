"""Secrets kept out of run directories and views: detection by value and by name, per-run scrubbing.

    find_in_text("export GH_PAT=ghp_…")  -> {"ghp_…"}          by value (detect-secrets' plugins and more)
    redact({"argv": ["curl", "-H", "Authorization: Bearer x…"]})  -> (redacted copy, hits)
    for_run(run_dir).screen(payload)     the event hot path: learn, then redact what is known
    shown(text)                          what a view may display
    shown_start(text, limit)             the same for a view that shows only the first ``limit`` characters
    shown_cut(text, limit)               text cut to ``limit`` characters, redacted before the cut
    quoted(value, limit)                 a value as a message quotes it: redacted, key-like words hidden, then cut

Layering: depends only on the standard library, orjson and (lazily) detect-secrets, so tools,
runtime and widgets can all use it. See ``guard`` for what is scrubbed when.
"""

from __future__ import annotations

from .display import SCAN_MARGIN, shown, shown_cut, shown_repr, shown_start
from .exceptions import redact_exception
from .guard import MIN_HUNTED, RunSecrets, for_run, known_everywhere, scrub_text
from .names import REDACTED_VALUE, is_secret_key
from .quoted import keys_hidden, looks_like_key, quoted
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
    "shown_repr",
    "shown_cut",
    "redact_exception",
    "quoted",
    "looks_like_key",
    "keys_hidden",
    "SCAN_MARGIN",
]
