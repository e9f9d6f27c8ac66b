"""Streamed pieces of one message, each with the parts of a secret it carries redacted.

A secret split across two ``*_CONTENT`` / ``*_ARGS`` pieces is in neither whole, so no scan of one
piece finds it: ``"key sk-proj-Zq7K"`` then ``"d9Zq7…x"`` would reach the disk as two harmless-looking
texts that join into the key. The secrets are found in the joined text, and every piece has the
characters it holds of one replaced by ``[REDACTED]``.
"""

from __future__ import annotations

from ...secrets import REDACTED_VALUE, find_in_text

__all__ = ["masked_pieces"]


def masked_pieces(pieces: list[str]) -> list[str]:
    """``pieces`` with each one's share of a secret of ``"".join(pieces)`` replaced by ``[REDACTED]``."""
    joined = "".join(pieces)
    spans = _spans(joined, find_in_text(joined))
    if not spans:
        return list(pieces)
    out, start = [], 0
    for piece in pieces:
        end = start + len(piece)
        out.append(_mask(piece, start, [(max(a, start), min(b, end)) for a, b in spans if a < end and b > start]))
        start = end
    return out


def _spans(text: str, secrets: set[str]) -> list[tuple[int, int]]:
    """Where ``secrets`` occur in ``text``, overlapping ones merged, in order."""
    found = []
    for secret in secrets:
        at = text.find(secret)
        while secret and at >= 0:
            found.append((at, at + len(secret)))
            at = text.find(secret, at + 1)
    merged: list[tuple[int, int]] = []
    for a, b in sorted(found):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _mask(piece: str, offset: int, spans: list[tuple[int, int]]) -> str:
    """``piece`` (starting at ``offset`` of the joined text) with each span replaced by ``[REDACTED]``."""
    parts, at = [], 0
    for a, b in spans:
        parts += [piece[at : a - offset], REDACTED_VALUE]
        at = b - offset
    return "".join(parts) + piece[at:]
