"""Provider keys a line wrap split: ``textwrap.fill`` (as CLIs and loggers wrap a message) cuts a long key
over lines, and each piece alone is no key a detector knows (the piece after ``sk-ant-api03-`` is a word
of 15 characters). Once a key's start is found, its continuation is read on: across a line break and the
next line's indentation (``\\n``, ``\\r\\n``, or ``\\n`` escaped in JSON text), while the key's alphabet goes
on and its longest length is not reached; across a space a wrap inserted (lines joined again) while the next
word looks like a piece of one (8+ characters mixing letters and digits or cases, or the rest of a key of one
length exactly). The key is found as written (with its breaks, to redact there) and joined (to hunt elsewhere).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable

__all__ = ["wrapped_keys", "FORMATS"]

_ALNUM = "A-Za-z0-9"
_WORD = r"A-Za-z0-9_\-"
_HEX = "a-f0-9"
# the key formats the detectors know by their start (``text._EXTRA``, ``text._VENDOR_KEY``, detect-secrets'
# plugins): start, the alphabet of the rest, its least and its longest length
FORMATS: tuple[tuple[str, str, int, int], ...] = (
    (r"sk-(?:ant-(?:api|admin)[0-9]{2}-|ant-|proj-|svcacct-|admin-)", _WORD, 20, 512),
    (r"sk-", _WORD, 20, 512),  # where a word starts (``_BARE``): a word ending in ``sk`` (``task-<hex>``) is an id
    (r"github_pat_", _ALNUM + "_", 22, 255),
    (r"gh[pousr]_", _ALNUM, 30, 255),
    (r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)", "A-Z0-9", 16, 16),
    (r"AIza", _WORD, 35, 35),
    (r"ya29\.", _WORD, 20, 2048),
    (r"hf_", _ALNUM, 30, 255),
    (r"npm_", _ALNUM, 36, 36),
    (r"gl(?:pat|dt|ft|soat|rt|ptt|cbt|imt|oas|agent)-", _WORD, 20, 1024),
    (r"xox[abposre]-", _ALNUM + r"\-", 10, 255),
    (r"xapp-", _ALNUM + r"\-", 22, 255),
    (r"[sr]k_(?:live|test)_", _ALNUM, 20, 255),
    (r"SG\.", _WORD + ".", 66, 66),
    (r"pypi-", _WORD, 85, 1024),
    (r"sq0csp-", _WORD, 43, 43),
    (r"gsk_", _ALNUM, 48, 255),
    (r"r8_", _ALNUM, 37, 37),
    (r"xai-", _ALNUM, 60, 255),
    (r"pplx-", _ALNUM, 48, 48),
    (r"nvapi-", _WORD, 60, 255),
    (r"lin_api_", _ALNUM, 40, 40),
    (r"tvly-", _ALNUM + r"\-", 32, 255),
    (r"whsec_", _ALNUM + "+/=", 24, 255),
    (r"figd_", _WORD, 40, 255),
    (r"jina_", _ALNUM, 40, 255),
    (r"hv[sb]\.", _WORD, 24, 255),
    (r"do[opr]_v1_", _HEX, 64, 64),
    (r"shp(?:at|ss|ca|pa)_", "a-fA-F0-9", 32, 32),
    (r"(?:e2b|sbp)_", _HEX, 40, 40),
    (r"rubygems_", _HEX, 48, 48),
    (r"AGE-SECRET-KEY-1", "0-9A-Z", 58, 58),
    (r"sntry[su]_", _WORD + "+/=", 40, 1024),
    (r"AT(?:ATT|CTT)3", _WORD + "=", 40, 1024),
)
_STARTS = re.compile("|".join(f"(?P<f{i}>{start})" for i, (start, *_) in enumerate(FORMATS)))
_RUNS = [re.compile(f"[{alphabet}]+") for _, alphabet, _, _ in FORMATS]
# a line break a wrap put between two characters of a word (a key's), with the next line's indentation; in JSON
# text a line break stands escaped, ``\n``
_BREAK = re.compile(r"(?:\r?\n|\\r\\n|\\n)(?:[ \t]|\\t)*")
_KEY_CHAR = re.compile(r"[\w.~+/=-]", re.ASCII)
_ALNUM_CHAR = re.compile("[A-Za-z0-9]")
_BARE = 1  # the format whose start must open a word, as written (a break before it opens one)
_PIECE = 8  # characters of a word after a space for it to be taken as a key's piece


def wrapped_keys(text: str) -> set[str]:
    """The keys of ``text`` that a line break or a space split, each as written (with its breaks) and joined."""
    reading, place, cuts = _unwrapped(text)
    if not cuts and " " not in text:
        return set()
    found: set[str] = set()
    for m in _STARTS.finditer(reading):
        index = int(m.lastgroup[1:])  # type: ignore[index]
        if index == _BARE and _in_word(text, place(m.start())):
            continue
        _, _, least, most = FORMATS[index]
        run, pos, body, spaced, pieces = _RUNS[index], m.end(), 0, False, [m.group()]
        while True:
            piece = run.match(reading, pos)
            taken = min(len(piece.group()), most - body) if piece else 0
            pieces.append(reading[pos : pos + taken])
            body, pos = body + taken, pos + taken
            if body >= most or (piece is not None and taken < len(piece.group())):
                break
            nxt = run.match(reading, pos + 1) if reading[pos : pos + 1] == " " else None
            if nxt is None or not _looks_like_piece(nxt.group(), body, least, most):
                break
            pos, spaced = pos + 1, True
        if body < least:
            continue
        start, end = m.start(), pos
        i = bisect_left(cuts, start)  # (a key just after a break too: after ``\n`` in JSON text no word starts)
        if not spaced and not (i < len(cuts) and cuts[i] < end):  # on one line, whole: the detectors read it
            continue
        found.add("".join(pieces))
        found.add(text[place(start) : place(end - 1) + 1])
    return found


def _in_word(text: str, at: int) -> bool:
    """Whether ``text[at]`` stands inside a word: after a letter or digit that no escape (``\\n``) ends."""
    return at > 0 and _ALNUM_CHAR.match(text, at - 1) is not None and not (at > 1 and text[at - 2] == "\\")


def _looks_like_piece(word: str, body: int, least: int, most: int) -> bool:
    """Whether ``word`` after a space goes on a key of ``body`` characters: it completes a key of one length exactly,
    ends at a hyphen (where a wrap breaks a word), or is long and mixes letters and digits or cases, as a key's random
    piece does (prose's next word does not)."""
    if least == most and body + len(word) == most:
        return True
    if word.endswith("-") and len(word) >= 2 and body + len(word) <= most:  # a wrap breaks after a key's hyphens
        return True
    if len(word) < _PIECE or body + len(word) > most:
        return False
    classes = any(c.isdigit() for c in word) + any(c.islower() for c in word) + any(c.isupper() for c in word)
    return classes >= 2


def _unwrapped(text: str) -> tuple[str, Callable[[int], int], list[int]]:
    """``text`` read without the line breaks (and indentation) that stand inside a word, ``place(i)`` (where the
    reading's ``i``-th character stands in ``text``) and the places in the reading where a line after a break starts."""
    if "\n" not in text and "\\n" not in text:
        return text, _same, []
    pieces: list[str] = []
    cuts: list[int] = []
    shifts: list[int] = []
    pos = removed = length = 0
    for m in _BREAK.finditer(text):
        a, b = m.span()
        if b >= len(text) or not _KEY_CHAR.match(text, b):
            continue
        # a break inside a word is taken out; one before a word is read as a space (a key starts after it: after
        # ``\n`` in JSON text the detectors see no word start)
        kept = "" if a > 0 and _KEY_CHAR.match(text, a - 1) else " "
        pieces.append(text[pos:a] + kept)
        length += a - pos + len(kept)
        removed += b - a - len(kept)
        cuts.append(length)
        shifts.append(removed)
        pos = b
    if not cuts:
        return text, _same, []
    pieces.append(text[pos:])

    def place(i: int) -> int:
        k = bisect_right(cuts, i)
        return i + (shifts[k - 1] if k else 0)

    return "".join(pieces), place, cuts


def _same(i: int) -> int:
    return i
