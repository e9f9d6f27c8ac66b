"""Folder names that print alike: the key two run folders are one episode id by, and what hides in a name.

A copy of a run under ``ep_…\\u200b…`` (a zero-width space inside), ``ep_… `` (a trailing space) or with a TAB, a
line end or a bidi override in its name prints as the genuine id: read as a run of its own, its tokens would be
counted twice with nothing said. Names equal once NFKC-folded and rid of format, control and space characters are one
id in two folders (``source.distinct_runs``); a name holding such characters is said, escaped, with its fix.
"""

from __future__ import annotations

import unicodedata

__all__ = ["folded_id", "hidden_in"]

#: categories that print as nothing or as blank: format (zero-width, bidi controls), control, separators
_UNSEEN = frozenset({"Cf", "Cc", "Zs", "Zl", "Zp"})
_RLO, _PDF = "\u202e", "\u202c"


def _plain(name: str) -> bool:
    """Whether ``name`` is printable ASCII without a space: the usual id, which folds to itself."""
    return name.isascii() and name.isprintable() and " " not in name


def folded_id(name: str) -> str:
    """``name`` as it reads: a right-to-left override's span in the order it prints, NFKC-folded, its format, control
    and space characters removed."""
    if _plain(name):
        return name
    while _RLO in name:  # a right-to-left override prints the text after it reversed, up to a pop (U+202C) or the end
        head, _, tail = name.partition(_RLO)
        span, _, rest = tail.partition(_PDF)
        name = head + span[::-1] + rest
    return "".join(c for c in unicodedata.normalize("NFKC", name) if unicodedata.category(c) not in _UNSEEN)


def hidden_in(name: str) -> list[str]:
    """The characters of ``name`` that print as nothing or as blank, each as ``U+XXXX NAME`` (none for a plain id)."""
    if _plain(name):
        return []
    found = dict.fromkeys(c for c in name if unicodedata.category(c) in _UNSEEN)
    return [f"U+{ord(c):04X} {unicodedata.name(c, '(a control character)')}" for c in found]
