"""Folder names that print alike: the key two run folders are one episode id by, and what hides in a name.

A copy of a run under ``ep_…\\u200b…`` (a zero-width space inside), ``ep_… `` (a trailing space) or with a TAB, a
line end or a bidi override in its name prints as the genuine id: read as a run of its own, its tokens would be
counted twice with nothing said. Names equal once NFKC-folded and rid of format, control and space characters are one
id in two folders (``source.distinct_runs``); a name holding such characters is said, escaped, with its fix.
"""

from __future__ import annotations

import unicodedata

__all__ = ["folded_id", "hidden_in", "escaped", "difference"]

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


def escaped(name: str) -> str:
    """``name`` with each character that may print like another (a combining mark, a character NFKC folds to another,
    one that prints as nothing or blank) written as its escape (``ep_cafe\\u0301``), so two look-alikes read apart."""
    if _plain(name):
        return name
    return "".join(_escape(c) if _may_pass_for_another(c) else c for c in name)


def _may_pass_for_another(c: str) -> bool:
    if c.isascii():
        return not c.isprintable() or c == " "
    return unicodedata.combining(c) > 0 or unicodedata.category(c) in _UNSEEN or unicodedata.normalize("NFKD", c) != c


def _escape(c: str) -> str:
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def difference(name: str, other: str) -> str:
    """How ``name`` differs from ``other``, which reads as the same id: in Unicode normalization (one composed, NFC,
    the other decomposed, NFD), in compatibility forms (NFKC: a full-width letter, a ligature), or in characters that
    print as nothing; "" when none of these tells them apart."""
    nfc = unicodedata.normalize("NFC", name)
    if name != other and nfc == unicodedata.normalize("NFC", other):

        def form(text: str) -> str:
            return "composed (NFC)" if text == unicodedata.normalize("NFC", text) else "decomposed (NFD)"

        marks = dict.fromkeys(c for c in name + other if unicodedata.combining(c))
        said = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'a combining mark')}" for c in marks)
        return f"; the two differ only in Unicode normalization: this name is {form(name)}, the other {form(other)}" + (
            f" (a letter followed by {said} in the decomposed one)" if said else ""
        )
    if unicodedata.normalize("NFKC", name) == unicodedata.normalize("NFKC", other):
        odd = dict.fromkeys(c for c in name + other if not c.isascii() and unicodedata.normalize("NFKC", c) != c)
        said = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in odd)
        return f"; the two differ in compatibility forms (NFKC folds {said} to plain letters)" if said else ""
    hidden = hidden_in(name) + hidden_in(other)
    return f"; they differ in characters that print as nothing or as blank ({', '.join(dict.fromkeys(hidden))})" if hidden else ""
