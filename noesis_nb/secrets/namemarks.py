"""A hidden name's shown form: ``[REDACTED:<mark>]``, the mark a keyed hash of the text hidden.

A run folder, draft or file named with a credential is shown redacted. Shown as a bare ``[REDACTED]``, two runs
named with two tokens looked alike: a frame's ``groupby("episode_id")`` and joins merged them without a word, and
the shown path opened neither. Each hidden piece of a name is shown ``[REDACTED:<16 hex>]`` instead: the first 64
bits of HMAC-SHA256 of the piece, under a key made from this user's seal key (``_sealkey``: mode 0600, made once).
So the mark is the same in every process and kernel of the user (a shown path opens its run again), differs for
two tokens (a collision among 100,000 names: ~3e-10), and tells nothing of the token to anyone without the key.
Where a secret *value* is hidden in text, it stays a bare ``[REDACTED]``.
"""

from __future__ import annotations

import hashlib
import hmac
import threading

from .._sealkey import seal_key
from ..errors import mark_names_with
from .hiddenparts import MARK_HEX, hidden_pieces
from .names import REDACTED_VALUE
from .text import find_in_text

__all__ = ["marked"]

_PURPOSE = b"noesis_nb shown names 1"  # the seal key signs records; names are marked under a key of their own
_lock = threading.Lock()
_key: bytes | None = None


def _names_key() -> bytes:
    """The key marks are made under: derived from the seal key for this use alone, once per process."""
    global _key
    with _lock:
        if _key is None:
            _key = hmac.new(seal_key(), _PURPOSE, hashlib.sha256).digest()
        return _key


def _mark(hidden: str) -> str:
    """``hidden``'s mark: 16 hex digits of its keyed hash, the first that no detector reads as a secret (shown
    again, a mark read as one would be hidden in turn; none of 80,000 random marks was)."""
    key, data = _names_key(), hidden.encode("utf-8", "surrogatepass")
    for n in range(8):
        mark = hmac.new(key, bytes([n]) + data, hashlib.sha256).hexdigest()[:MARK_HEX]
        if not find_in_text(f"[REDACTED:{mark}]"):
            return mark
    return mark


def marked(name: str, shown: str) -> str:
    """``shown`` (``name`` redacted: ``[REDACTED]`` where each secret stood) with each ``[REDACTED]`` marked by the
    piece of ``name`` it hides. When the pieces cannot be told apart (``name`` itself holds ``[REDACTED]``, or
    ``shown`` is not ``name`` with pieces replaced), each is marked by the whole name: still distinct and stable."""
    if REDACTED_VALUE not in shown or shown.count(REDACTED_VALUE) == name.count(REDACTED_VALUE):
        return shown  # nothing hidden here (a ``[REDACTED]`` in ``name`` was hidden before: what it hid is not known)
    kept = shown.split(REDACTED_VALUE)
    hidden = hidden_pieces(name, kept) if REDACTED_VALUE not in name else None
    pieces = hidden if hidden is not None else [name] * (len(kept) - 1)
    out = [kept[0]]
    for piece, part in zip(pieces, kept[1:]):
        out += [f"[REDACTED:{_mark(piece)}]", part]
    return "".join(out)


mark_names_with(marked)  # errors name paths (a run folder may be named with a key): that module cannot import this one
