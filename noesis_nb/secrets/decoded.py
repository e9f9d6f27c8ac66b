"""Base64 words read as what they encode: a secret inside one is found, encoded text without one is kept.

A ``key=value`` or a ``user:password`` can be passed on base64-encoded (an OAuth ``state``, a cookie,
``Authorization: Basic …``). No pattern sees the secret in the encoded word, and a later message that
shows it decoded would not be redacted. A word that decodes to printable text (UTF-8, or UTF-16 as PowerShell's
``-EncodedCommand`` takes it) is judged by that text instead of by its randomness: it is a secret when the text
holds one (then the word is redacted as written and the secret learned as it reads), and it is kept when the text
holds none (base64 of ordinary prose or JSON is not random). Words that decode to bytes (a random key) are left to
the entropy rule.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

__all__ = ["b64_text", "encoded_secrets", "basic_credentials", "user_password"]

_MIN = 20  # the prefilter's long run: a shorter word in an otherwise clean text is never looked at
_WORD = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_URLSAFE = str.maketrans("-_", "+/")
_BASIC = re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/_-]{6,}={0,2})")


def b64_text(word: str) -> str | None:
    """The text ``word`` encodes in base64 (standard or URL-safe, padded or not), or None when it encodes
    no printable text. UTF-8 is read, and UTF-16 (little- or big-endian, with a byte-order mark or told
    by its NUL bytes): PowerShell's ``-EncodedCommand`` takes base64 of UTF-16LE."""
    body = word.rstrip("=")
    if len(body) % 4 == 1 or (("-" in body or "_" in body) and ("+" in body or "/" in body)):
        return None
    try:
        raw = base64.b64decode(body.translate(_URLSAFE) + "=" * (-len(body) % 4), validate=True)
        text = raw.decode(_utf16(raw) or "utf-8")
    except (binascii.Error, ValueError):
        return None
    text = text.removeprefix("\ufeff")
    if not text or not text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable():
        return None
    return text


def _utf16(raw: bytes) -> str | None:
    """The UTF-16 codec ``raw`` is written in, or None (then it is read as UTF-8). Told by its NUL bytes: the
    high byte of a quarter or more of its code units is NUL and the low byte of few (text partly in the first
    256 code points, as a command line is; random bytes are not); a byte-order mark is read as one and dropped."""
    if len(raw) % 2 or raw.count(0) < 2:
        return None
    units = len(raw) // 2
    for codec, high, low in (("utf-16-le", raw[1::2], raw[0::2]), ("utf-16-be", raw[0::2], raw[1::2])):
        nuls = high.count(0)
        if nuls * 4 >= units and low.count(0) * 4 < nuls:
            return codec
    return None


def encoded_secrets(text: str, find: Callable[[str], set[str]]) -> tuple[set[str], set[str]]:
    """``(found, plain_words)`` for the base64 words of ``text``: ``found`` holds each word whose decoding
    holds a secret (``find`` of the decoding) and those secrets; ``plain_words`` the words that decode to
    text holding none (not random, whatever their entropy)."""
    found: set[str] = set()
    plain_words: set[str] = set()
    for m in _WORD.finditer(text):
        word = m.group()
        if len(word) < _MIN:
            continue
        decoded = b64_text(word)
        if decoded is None:
            continue
        inside = find(decoded) or user_password(decoded)
        if inside:
            found.add(word)
            found.update(inside)
        else:
            plain_words.add(word)
    return found, plain_words


# ``user:password`` as a registry's ``auth`` or ``echo -n user:pw | base64`` encodes it: a user name (an email too),
# one ``:``, and a password of 8+ characters without blanks
_USER_PASSWORD = re.compile(r"[A-Za-z0-9._@+-]{1,64}:(?P<pw>[^\s]{8,256})")
_NOT_PASSWORD = re.compile(
    r"[0-9a-fA-F]{32,}|[0-9a-fA-F]{7,12}"  # a digest (``sha256:<hex>``), a commit
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # an email address (``mailto:…``)
    r"|[/~.].*|//.*|.*://.*"  # a path, a URL
    r"|[0-9:.,/ -]+"  # a time, a number, a port list
    # words and numbers joined by marks: a host (``db-01.internal.example.com``), a version (``1.2.3-beta.4+build5``)
    r"|(?:[A-Z]?[a-z]+[0-9]*|[0-9]+)(?:[._+/:@-](?:[A-Z]?[a-z]+[0-9]*|[0-9]+))*"
)
_CLASSES = (re.compile("[a-z]"), re.compile("[A-Z]"), re.compile("[0-9]"), re.compile(r"[^A-Za-z0-9]"))


def user_password(decoded: str) -> set[str]:
    """``{password}`` when ``decoded`` (a base64 word's text, standing alone: no ``Basic`` before it) is a
    ``user:password`` whose password has a password's shape (three kinds of characters of four, or letters and
    digits in 16+ of them), else nothing: a base64 ``note:hello`` or ``path:/usr/bin`` is ordinary text."""
    m = _USER_PASSWORD.fullmatch(decoded)
    if m is None:
        return set()
    pw = m.group("pw")
    if _NOT_PASSWORD.fullmatch(pw) is not None:
        return set()
    kinds = sum(c.search(pw) is not None for c in _CLASSES)
    return {pw} if kinds >= 3 or (kinds == 2 and len(pw) >= 16 and _CLASSES[2].search(pw) is not None) else set()


def basic_credentials(text: str) -> set[str]:
    """The password of each ``Basic <base64 of user:password>`` in ``text``, as it reads decoded."""
    found = set()
    for m in _BASIC.finditer(text):
        decoded = b64_text(m.group(1))
        if decoded and ":" in decoded:
            found.add(decoded.partition(":")[2])
    return found
