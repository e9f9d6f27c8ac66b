"""A value as an error message, warning or log line quotes it: redacted first, then cut, never a key's head.

A message that quotes ``value[:60]!r`` cuts a key so that no detector recognises the 60 characters left, and
one that quotes a short value whole (an id, a name) shows a key too short or too cut for the detectors
(``ghp_`` and 10 characters). ``quoted`` redacts what ``shown`` finds, then hides every word that starts like a
key (``sk-``, ``ghp_``, ``AKIA``, ``xoxb-``, ``eyJ``…) or looks random, then cuts; a value that is one such word
is named by its length alone, so the message still says what was wrong with it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from typing import Any

from .._safetext import capped_marks, safe_repr
from ..errors import guessed, redact_with
from .display import SCAN_MARGIN, shown, shown_cut
from .exact import exact
from .guard import known_shown
from .names import REDACTED_VALUE
from .public_ids import public_id
from .randomness import RUN_ID, entropy_ok, path_parts, random_words, temp_plain, without_ids

__all__ = ["quoted", "quoted_url", "quoted_text", "looks_like_key", "starts_like_key", "keys_hidden", "typo_hint"]

# the starts of the key formats people paste: OpenAI/Anthropic/Stripe ``sk-``/``sk_``/``rk_``, GitHub, GitLab,
# Slack, AWS access key ids, Google, Hugging Face, npm, PyPI, SendGrid, a JWT's ``{"`` header in base64
_PREFIX = re.compile(
    r"(?:"
    # distinctive starts, found even glued to the word before them (``xxxeyJhbGci…``)
    r"(?:sk-proj-|sk-ant-|sk-svcacct-|gh[pousr]_|github_pat_|glpat-|xox[abposre]-|xapp-)[A-Za-z0-9_-]{3}"
    r"|(?:AKIA|ASIA)[A-Z0-9]{12}|eyJ[A-Za-z0-9_-]{3}"
    # shorter starts, at the start of a word only
    r"|(?<![A-Za-z0-9])(?:(?:sk|rk)[-_](?:live_|test_|admin-)?[A-Za-z0-9_-]{3}|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{4}"
    r"|AIza[0-9A-Za-z_-]{3}|hf_[A-Za-z]{3}|npm_[A-Za-z0-9]{3}|pypi-[A-Za-z0-9]{3}|SG\.[A-Za-z0-9_-]{3})"
    r")[A-Za-z0-9_+/=.:-]*"
)

# a word too short for ``random_words`` (a key cut at 12 characters): random when it mixes upper case, lower case
# and digits and passes the same randomness test (ids of one case and digits, ULIDs, hex, are kept); up to the
# windows' 24, so a path of 20 to 23 (``/tmp/p1/<12 random>``, whose parts ``random_words`` finds too short) is judged
# by its parts here
_SHORT_WORD = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{10,23}(?![A-Za-z0-9+/_-])")
# a longer word is also read in windows: a key glued to other text (``xxxx…<40 random characters>``) makes the
# whole word too plain to pass, while every window inside the key passes
_LONG_WORD = re.compile(r"[A-Za-z0-9+/_-]{24,}")
_WINDOW = 16
_KEY_CHARS = frozenset(string.ascii_letters + string.digits + "+=")
# an episode or batch id mistyped (ULIDs are read in any case): ``ep_01M8…GWQx`` is quoted, so the message shows it
_NEAR_ULID = re.compile(r"(?:[a-z]{1,8}_)?[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}")
# one with a character or two too many or too few, after a prefix noesis_nb mints ids with (``ep_<ULID>x``): an id
# slip, not a key (it was named by its length alone, so the person could not see what they had typed)
_NEAR_MINTED = re.compile(r"(?:ep|req|batch|chk)_[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{23,27}")
_MINTED_PREFIX = re.compile(r"(?:ep|req|batch|chk)_")
# letters a ULID reads as digits (Crockford's base32 leaves them out for that): O as 0; I and L as 1
_AS_DIGITS = str.maketrans({"O": "0", "I": "1", "L": "1"})
_AS_DIGITS_LETTERS = ("O", "I", "L")
# an escape ``repr`` writes for a character it does not show (``'\U000a6324'``): its hex digits are no word of the
# text, and beside the letters after it they read as a random one (``U000a63241``)
_REPR_ESCAPE = re.compile(r"\\(?:U[0-9a-f]{8}|u[0-9a-f]{4}|x[0-9a-f]{2})")


def _short_random(word: str) -> bool:
    mixed = any(c.isupper() for c in word) and any(c.islower() for c in word) and any(c.isdigit() for c in word)
    return mixed and entropy_ok(word)


def _random_parts(word: str, real: str | None = None) -> list[str]:
    """The runs of ``word`` covered by random-looking windows, each widened to the letters and digits around it
    (a key's first or last characters may lack a digit or a capital), longest first. Each window's mix of cases
    and digits is read from running counts: only a mixed window pays the randomness test."""
    counts = [(0, 0, 0)]
    for c in word:
        u, lo, d = counts[-1]
        counts.append((u + c.isupper(), lo + c.islower(), d + c.isdigit()))
    spans: list[list[int]] = []
    if not all(counts[-1]):  # no capital, small letter or digit anywhere: no window mixes them
        return []
    for start in range(len(word) - _WINDOW + 1):
        first, last = counts[start], counts[start + _WINDOW]
        if not all(b > a for a, b in zip(first, last)) or not entropy_ok(word[start : start + _WINDOW]):
            continue
        if spans and start <= spans[-1][1]:
            spans[-1][1] = start + _WINDOW
        else:
            spans.append([start, start + _WINDOW])
    for span in spans:
        while span[0] > 0 and word[span[0] - 1] in _KEY_CHARS:
            span[0] -= 1
        while span[1] < len(word) and word[span[1]] in _KEY_CHARS:
            span[1] += 1
    real = word if real is None else real  # what ``word`` reads as (``temp_plain``), in the same places
    return sorted({real[a:b] for a, b in spans}, key=len, reverse=True)


def _random_words(text: str) -> list[str]:
    text = RUN_ID.sub(lambda m: " " * len(m.group()), text) if "ep_" in text else text  # a run id typed: no key
    text = _REPR_ESCAPE.sub(lambda m: " " * len(m.group()), text) if "\\" in text else text
    short = (m.group() for m in _SHORT_WORD.finditer(text))
    found = [*random_words(text), *(w for w in _path_judged(short) if len(w) >= 10 and _short_random(w))]
    clean = without_ids(text)  # a ULID's capitals beside a path's words are no key
    plain = temp_plain(clean)  # temporary folders' names read as plain letters, in their places
    for m in _LONG_WORD.finditer(plain):
        word, real = m.group(), clean[m.start() : m.end()]
        spans = path_parts(word)  # a path is judged by its pieces, not whole: a random folder's name is no key
        pieces = [(word, real)] if spans is None else [(word[a:b], real[a:b]) for a, b in spans]
        if "/" in real:  # a public id between ``/`` (``ipfs.io/ipfs/<cid>``): the other parts are judged
            cut = real.split("/")
            if any(len(p) >= 20 and public_id(p) for p in cut):
                pieces, at = [], 0
                for part in cut:
                    pieces.append((word[at : at + len(part)], part))
                    at += len(part) + 1
        for piece, real_piece in pieces:
            if real_piece in found or (len(real_piece) >= 20 and public_id(real_piece)):  # its checksum proves it
                continue
            if len(piece) >= 24:
                found += _random_parts(piece, real_piece)
            elif len(piece) >= 10 and _short_random(piece):  # a path's part too short for the windows (a key cut short)
                found.append(real_piece)
    return found


def _path_judged(words: Iterator[str]) -> Iterator[str]:
    """``words``, each file path among them as the pieces it is judged by (``randomness.path_parts``: a short path
    such as ``/tmp/p1/runsA`` is its parts, not one word mixing cases and digits), any other without the separators
    around it (a key cut short before a path's ``/`` is no name)."""
    for word in words:
        spans = path_parts(word)
        yield from (word.strip("+/_-"),) if spans is None else (word[a:b] for a, b in spans)


def starts_like_key(text: str) -> bool:
    """Whether ``text`` holds a word that starts as a key of a known format does (``sk-proj-``, ``ghp_``, ``AKIA``,
    ``xoxb-``, a JWT's ``eyJ``…), however it goes on."""
    return _PREFIX.search(text) is not None


def looks_like_key(text: str) -> bool:
    """Whether ``text`` holds a word that starts like a key or looks random (however short or cut it is)."""
    return starts_like_key(text) or bool(_random_words(text))


def keys_hidden(text: str) -> str:
    """``text`` with its secrets redacted (``shown``) and its key-like words replaced: for a message built by code
    that quotes values whole (argparse's ``invalid choice: 'sk-…'``)."""
    out = _PREFIX.sub(REDACTED_VALUE, shown(text))
    for word in sorted(set(_random_words(out)), key=len, reverse=True):
        out = out.replace(word, REDACTED_VALUE)
    return out


def quoted_text(text: str, limit: int = 80) -> str:
    """``text`` redacted (``shown``), its key-like words replaced, then cut to ``limit`` characters (unquoted)."""
    return shown_cut(keys_hidden(exact(text)[: limit + SCAN_MARGIN]), limit)


def quoted(value: Any, limit: int = 200) -> str:
    """``repr(value)`` for a message: secrets and key-like words redacted first, then cut to about ``limit``
    characters (``…`` and the length said when cut). A string that is all key is named by its length alone:
    ``<a 51-character value that looks like a key, not shown>``. Controls and invisible characters are escaped (as
    ``repr`` writes them), and a pile of combining marks is cut to a few, ``\ufffd`` where marks were dropped: a
    message naming a hostile value draws nothing over the lines around it."""
    return capped_marks(_quoted(value, limit), exact=True)


def _near_id(value: str) -> bool:
    """An id in capitals with a slip or two, or all in small letters (``show(h.episode_id.lower())``), or one with a
    letter or two a ULID reads as a digit (``ep_O1M…``: ``O`` typed for ``0``, ``I`` or ``L`` for ``1``)."""
    if _MINTED_PREFIX.match(value) and 0 < sum(map(value.count, _AS_DIGITS_LETTERS)) <= 2:
        return _near_id(value.translate(_AS_DIGITS))  # capitals only: a minted prefix is in small letters
    if _NEAR_ULID.fullmatch(value):
        body = value[-26:]
    elif _NEAR_MINTED.fullmatch(value):
        body = value.partition("_")[2]
    else:
        return False
    return sum(map(str.islower, body)) <= 2 or body == body.lower()


def _quoted(value: Any, limit: int) -> str:
    if isinstance(value, str):
        value = exact(value)  # a subclass's own ``__eq__`` would say its redacted text is itself, and be quoted whole
        if _near_id(value) and value not in known_shown():
            return repr(value)
        text = quoted_text(value, limit)
        if text.strip() == REDACTED_VALUE or (REDACTED_VALUE in text and not _bare(text)):
            return f"<a {len(value)}-character value that looks like a key, not shown>"
        if len(value) > limit:
            return f"{text!r}… ({len(value)} characters)"
        return repr(text) if text != value else repr(value)
    rendered = _rendered(value, limit + SCAN_MARGIN)
    text = quoted_text(rendered, limit)
    return text if len(rendered) <= limit else f"{text}…"


# a URL's scheme (``s3://``, ``https://``): left alone beside a marker, it says nothing about the value
_SCHEME = re.compile(r"\A[A-Za-z][A-Za-z0-9+.-]*://")


def _bare(text: str) -> str:
    """What ``text`` shows besides its markers, a URL's scheme and the signs around them: nothing when all of it was
    a key (``s3://<key>`` quoted ``'s3://[REDACTED]'`` is named by its length as the key alone is)."""
    return _SCHEME.sub("", text.replace(REDACTED_VALUE, "")).strip(" :/=._-")


def quoted_url(url: str, limit: int = 80) -> str:
    """``quoted(url)``, read as a URL for its secrets even without its scheme (``alice:<token>@host:4318``)."""
    if _SCHEME.match(url) is not None:
        return quoted(url, limit)
    text = quoted("http://" + url, limit + 7)
    if text.startswith("<a "):
        return f"<a {len(url)}-character value that looks like a key, not shown>"
    return text[0] + text[8:].replace(f"({len(url) + 7} characters)", f"({len(url)} characters)")


def _rendered(value: Any, limit: int) -> str:
    """``repr(value)`` as Python writes it (a dict in its own order) for a small container, bounded otherwise."""
    if isinstance(value, (list, tuple, dict, set, frozenset)) and len(value) <= 100:
        try:
            text = repr(value)
        except Exception:  # a hostile item's ``__repr__``: said by ``safe_repr``
            return safe_repr(value, limit)
        return text[:limit]
    return safe_repr(value, limit)


def typo_hint(value: Any, choices: Any) -> str:
    """`` (did you mean 'audit'?)`` when ``value`` looks like a typo of one of ``choices``; "" for a key (no typo,
    and ``guessed`` quotes the value whole) or no close choice."""
    if not isinstance(value, str) or looks_like_key(value):
        return ""
    return guessed([value], choices).removeprefix(repr(value))


redact_with(quoted_text)  # errors name paths (a run root may carry a key) redacted: that module cannot import this one
