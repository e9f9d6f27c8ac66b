"""Text as it reads once its disguises are undone: character escapes decoded, invisible characters dropped.

A secret, or the name that marks one, can be written so that no pattern sees it while every reader
(a JSON or Python parser, a browser, a person) still does: ``\\u0070assword=…``, a token spelled
entirely in ``\\uXXXX``/``\\xXX`` escapes, ``&#x70;assword=…``, ``pass\\u200bword`` with a zero-width
space. ``plain`` is that reading; ``unescape`` also maps each character of it back to where it
stands in the text, so what is found in the reading can be redacted as written.

The invisible characters are a class, not a list: every format character (Cf: zero-width spaces and
joiners, soft hyphen, bidi controls, tags), every combining mark (Mn, Me: ``s\u0301k-proj-…`` shows as
``śk-proj-…``; variation selectors are marks too), NUL and the other control characters but the tab, line breaks
and field separators (``\x01``-``\x1b``, DEL, C1: a page shows none of them), and the Hangul fillers, which show as
blanks. A
character that reads as one of a key's ASCII characters is read as that character: a compatibility form (``ｓｋ-…``
in fullwidth forms, ``𝐬``, ``ⓢ``), a letter written with its accent (``ś``, ``ǵ``: NFKD, its marks dropped), and
the Cyrillic and Greek letters drawn as Latin ones (``ѕk-…``, ``ghр_…``: ``LOOK_ALIKES``); a space of another
width (the ideographic ``\u3000``, a no-break space) reads as a space. Both tables are built from ``unicodedata``
on the first non-ASCII text (a scan of 130,000 code points: no import pays for it).

Both are only called on text that holds a sign of a disguise (a backslash, ``&#``, a non-ASCII
character): ordinary text never pays for them.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import cache

__all__ = [
    "INVISIBLE_CHARS",
    "INVISIBLE",
    "hidden",
    "hides",
    "folds",
    "reads_differently",
    "ESCAPE",
    "unescape",
    "readable",
    "plain",
    "maybe_disguised",
    "may_hide",
    "CONTROL",
    "SHOWN_BYTES",
    "LOOK_ALIKES",
    "percent_decoded",
    "written_end",
]

# characters that show as nothing (zero-width spaces and joiners, word joiner, BOM, soft hyphen, bidi
# marks, NUL): one inside a token or a name hides it from every pattern. NUL is here for UTF-16: its bytes
# read as UTF-8 (as bytes are stored) are the text with a NUL beside each ASCII character
INVISIBLE_CHARS = "\x00\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]")  # the common ones; ``hidden()`` is the whole class
_BLANK_LETTERS = "\u115f\u1160\u3164\uffa0\u2800"  # the Hangul fillers and the blank braille pattern: show as nothing
_HIDDEN_CATEGORIES = frozenset({"Mn", "Me", "Cf"})
# the control characters that show as nothing: every one but the tab and line breaks (``\t \n \v \f \r``, NEL)
# and the separators of fields and records (FS, GS, RS, US: ``\x1c``-``\x1f``), which part words as a space does
_CONTROLS = (*range(0x01, 0x09), *range(0x0E, 0x1C), *range(0x7F, 0x85), *range(0x86, 0xA0))
#: one ASCII control character that shows as nothing: ASCII text holding none reads as written
CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f]")
#: every byte but those control characters: ``data.translate(None, SHOWN_BYTES)`` is empty when ASCII bytes hold none
#: (the cheap test: a fifth of ``CONTROL``'s search, a byte at a time in C)
SHOWN_BYTES = bytes(b for b in range(256) if b > 0x1B and b != 0x7F or 0x09 <= b <= 0x0D)
# what a character is read as when it is one of these (a key's characters): fullwidth punctuation in CJK
# prose (``，``, ``：``, ``（``) is read as written
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.")
#: letters of other scripts drawn as a Latin letter or digit (Unicode's confusables of one ASCII character): a key
#: spelled with one (``ѕk-proj-…``, ``ghр_…`` in Cyrillic) shows as the key
LOOK_ALIKES = {
    **dict(zip("аеорсухѕіјԁԛԝһӏүѵ", "aeopcyxsijdqwhlyv")),  # Cyrillic
    **dict(zip("АВЕКМНОРСТХЅІЈҮԚԜӀЗ", "ABEKMHOPCTXSIJYQWI3")),
    **dict(zip("αορνιυχγϲϳ", "aopviuxycj")),  # Greek
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿ", "ABEZHIKMNOPTYXCJ")),
    **dict(zip("ıȷɡɑɩ", "ijgai")),  # Latin letters of other shapes
}
# NEL between two characters of a word: a line break to Python, nothing to a browser or a notebook (``hunt\x85er2``)
_NEL_IN_WORD = "|\x85(?<=[\\w-]\x85)(?=[\\w-])"
# the code points scanned: the first two planes, and plane 14's tags and variation selectors (the planes between
# hold CJK ideographs and nothing else that hides or folds)
_SCANNED = (range(0x80, 0x20000), range(0xE0000, 0xE1000))


def _char_class(chars: Iterable[int]) -> str:
    """A pattern matching one of the code points ``chars`` (ascending). Those past U+FFFF are a second class behind a
    one-range test: sre reads a class holding them as a list of ranges, tried one by one on every character."""
    parts: dict[bool, list[str]] = {False: [], True: []}
    run: list[int] = []
    for code in (*chars, -2):
        if run and code == run[-1] + 1 and (code > 0xFFFF) == (run[0] > 0xFFFF):
            run.append(code)
            continue
        if run:
            span = re.escape(chr(run[0])) + ("-" + re.escape(chr(run[-1])) if len(run) > 1 else "")
            parts[run[0] > 0xFFFF].append(span)
        run = [code]
    bmp, astral = "".join(parts[False]), "".join(parts[True])
    either = [f"[{bmp}]"] if bmp else []
    either += [f"(?=[\U00010000-\U0010ffff])[{astral}]"] if astral else []
    return "|".join(either) or "(?!)"  # an empty class is no pattern: ``[]`` would read the ``]`` after it


@cache
def _tables() -> tuple[re.Pattern[str], dict[int, str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """``(hidden, folded, either, folds, hidden_bmp)``: the invisible characters, each folded character's ASCII
    reading, a pattern matching any of both, one matching a folded character, and the invisible characters of the
    first plane as one class (see the module's docstring)."""
    dropped = {0, *_CONTROLS, *map(ord, _BLANK_LETTERS)}  # (the rest of ``INVISIBLE_CHARS`` is of the categories scanned)
    folded: dict[int, str] = {ord(char): reading for char, reading in LOOK_ALIKES.items()}
    for block in _SCANNED:
        for code in block:
            char = chr(code)
            category = unicodedata.category(char)
            if category in _HIDDEN_CATEGORIES:
                dropped.add(code)
                continue
            reading = unicodedata.normalize("NFKD", char)
            if reading != char:  # a compatibility form, or a letter with its accent (``ś`` is ``s`` and a mark)
                reading = "".join(c for c in reading if unicodedata.category(c) not in _HIDDEN_CATEGORIES)
                if len(reading) == 1 and (reading in _KEY_CHARS or (reading == " " and category == "Zs")):
                    folded[code] = reading  # one character: each stays in its place
    hidden_class = _char_class(sorted(dropped)) + _NEL_IN_WORD
    either = _char_class(sorted(dropped | set(folded) | {0x85}))
    bmp = re.compile(_char_class(sorted(code for code in dropped if code <= 0xFFFF)))
    return re.compile(hidden_class), folded, re.compile(either), re.compile(_char_class(sorted(folded))), bmp


def hidden() -> re.Pattern[str]:
    """A pattern matching one invisible character (the whole class: format characters, combining marks, NUL, …)."""
    return _tables()[0]


def hides(text: str) -> bool:
    """Whether ``text`` holds an invisible character (``hidden().search``, several times faster on text holding none:
    one class searched, not the class, the planes past the first and NEL inside a word tried at every place)."""
    tables = _tables()
    if tables[4].search(text) is not None:
        return True
    return ("\x85" in text or _ASTRAL.search(text) is not None) and tables[0].search(text) is not None


def folds() -> dict[int, str]:
    """``str.translate``'s table of the characters read as one ASCII character (``ｓ`` as ``s``, ``𝟕`` as ``7``)."""
    return _tables()[1]


def reads_differently(text: str) -> bool:
    """Whether ``text`` holds an invisible character or one read as another (cheap for ASCII text: False)."""
    if text.isascii():
        return bool(text.encode().translate(None, SHOWN_BYTES))
    return _tables()[2].search(text) is not None


@cache
def _fold_tables() -> tuple[list[int | str], dict[int, str]]:
    """``folds()`` for ``str.translate``: a list indexed by the code points of the first plane (each its own code, or
    its reading) and a table of the folded characters past it. A dict lacks most characters, and ``translate`` pays
    for the KeyError of each (a megabyte of Russian prose: 140 ms, the list 70 ms)."""
    table: list[int | str] = list(range(0x10000))
    astral: dict[int, str] = {}
    for code, reading in folds().items():
        if code < 0x10000:
            table[code] = reading
        else:
            astral[code] = reading
    return table, astral


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def folded(text: str) -> str:
    """``text`` with the characters read as another (``folds``) so read, each in its place (the same length)."""
    if text.isascii():
        return text
    table, astral = _fold_tables()
    read = text.translate(table)  # (a character past the list is an IndexError there: kept as written)
    if _ASTRAL.search(read) is not None:
        read = read.translate(astral)
    return read


# one character written as an escape: JSON, Python, JavaScript, C (``\u0070``, ``\U00000070``, ``\x70``,
# ``\u{70}``, octal ``\160``, ``\N{LATIN SMALL LETTER P}``, JSON's ``\/`` that hides a URL's ``://``; a doubled
# backslash too, as JSON writes a literal one) or an HTML numeric reference
# (``&#x70;``, ``&#112;``, the ``;`` optional as browsers read it)
ESCAPE = re.compile(
    r"\\\\?(?:u(?P<high>[dD][89abAB][0-9A-Fa-f]{2})\\\\?u(?P<low>[dD][c-fC-F][0-9A-Fa-f]{2})"  # a surrogate pair: one character
    r"|u\{(?P<braced>[0-9A-Fa-f]{1,6})\}|u(?P<u4>[0-9A-Fa-f]{4})|U(?P<u8>[0-9A-Fa-f]{8})|x(?P<x2>[0-9A-Fa-f]{2})"
    r"|(?P<octal>[0-3][0-7]{2})|N\{(?P<named>[A-Za-z0-9 -]{2,88})\}|(?P<slash>/))"
    r"|&#(?:[xX](?P<hexref>[0-9A-Fa-f]{1,6})|(?P<decref>[0-9]{1,7}));?"
)
_BASES = {"decref": 10, "octal": 8}


def _char(match: re.Match[str]) -> str:
    """The character an escape stands for; the escape itself when it stands for none (a lone surrogate, past U+10FFFF)."""
    group = match.lastgroup or "decref"  # the one group that matched: its digits, a name or the slash
    if group == "slash":
        return "/"
    if group == "low":  # JSON and JavaScript write a character past U+FFFF as two escapes
        high, low = int(match.group("high"), 16), int(match.group("low"), 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    if group == "named":
        try:
            return unicodedata.lookup(match.group(group))
        except KeyError:
            return match.group()
    code = int(match.group(group), _BASES.get(group, 16))
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match.group()


def written_end(text: str, at: int, *, escapes: bool = True) -> int:
    """Where the character of a reading that stands at ``at`` in ``text`` ends there: past its escape when written as
    one (``escapes``: the reading is ``readable``'s), and past the invisible characters written after it that are no
    control character (a mark, a joiner on it). A control character after it (the ESC of a colour code, NUL) and what
    follows are not: a value found in the reading ends before it, and an escape written in source (``\\x1b``) too."""
    end = at + 1
    if escapes and text[at] in "\\&" and (match := ESCAPE.match(text, at)) is not None and len(_char(match)) == 1:
        end = match.end()
    invisible = hidden()
    while end < len(text) and text[end] > "\x9f" and invisible.match(text, end) is not None:
        end += 1
    return end


def maybe_disguised(text: str) -> bool:
    """Cheap: False means ``plain(text) == text``."""
    if not text.isascii() or "\\" in text or ("&" in text and "&#" in text):
        return True
    return bool(text.encode().translate(None, SHOWN_BYTES))


def may_hide(text: str) -> bool:
    """Cheap: False means ``text`` holds no invisible character."""
    return not text.isascii() or bool(text.encode().translate(None, SHOWN_BYTES))


def plain(text: str) -> str:
    """``text`` with its escapes decoded and its invisible characters dropped (``text`` itself when it has neither)."""
    if not maybe_disguised(text):
        return text
    if ("\\" in text or "&" in text) and ESCAPE.search(text) is not None:
        text = ESCAPE.sub(_char, text)
    if reads_differently(text):
        text = hidden().sub("", folded(text))
    return text


def unescape(text: str) -> tuple[str, list[int]]:
    """``(decoded, starts)``: ``text`` with its escapes decoded, and for each index ``i`` of ``decoded`` (and
    ``len(decoded)``) where it starts in ``text``: ``decoded[i:j]`` is written as ``text[starts[i]:starts[j]]``."""

    def read(match: re.Match[str]) -> Iterator[tuple[str, int]]:
        char = _char(match)
        if len(char) == 1:
            yield char, match.start()
        else:  # left as written: each character where it stands
            yield from zip(char, range(match.start(), match.end()))

    return _decoded(text, ESCAPE, read)


def _decoded(
    text: str, pattern: re.Pattern[str], read: Callable[[re.Match[str]], Iterable[tuple[str, int]]]
) -> tuple[str, list[int]]:
    """``text`` with each match of ``pattern`` replaced by what ``read`` makes of it (pieces of text, each with
    where it starts in ``text``), and the index map ``unescape`` describes."""
    pieces: list[str] = []
    starts: list[int] = []
    pos = 0
    for match in pattern.finditer(text):
        pieces.append(text[pos : match.start()])
        starts.extend(range(pos, match.start()))
        for chars, start in read(match):
            pieces.append(chars)
            starts.extend([start] * len(chars))
        pos = match.end()
    pieces.append(text[pos:])
    starts.extend(range(pos, len(text) + 1))
    return "".join(pieces), starts


def readable(text: str) -> tuple[str, list[int]]:
    """``unescape(text)`` with the invisible characters also dropped: ``(plain(text), starts)``, each character
    of the reading mapped to where it starts in ``text`` (a value found in the reading is redacted as written)."""
    if ("\\" in text or "&" in text) and ESCAPE.search(text) is not None:
        decoded, starts = unescape(text)
    else:
        decoded, starts = text, list(range(len(text) + 1))
    if not reads_differently(decoded):
        return decoded, starts
    if _tables()[3].search(decoded) is not None:
        decoded = folded(decoded)  # (in place: the same length)
    invisible = hidden()
    kept: list[int] = []  # the places of the characters kept, a run at a time (not a test per character)
    pos = 0
    for match in invisible.finditer(decoded):
        kept.extend(range(pos, match.start()))
        pos = match.end()
    kept.extend(range(pos, len(decoded)))
    if starts[-1] == len(decoded):  # no escape decoded (each shortens the text): each place is its own
        return invisible.sub("", decoded), [*kept, len(decoded)]
    return invisible.sub("", decoded), [starts[i] for i in kept] + [starts[len(decoded)]]


_PERCENT_RUN = re.compile("(?:%[0-9A-Fa-f]{2})+")


def percent_decoded(text: str) -> tuple[str, list[int]]:
    """``(unquote(text, errors="replace"), starts)``: ``text`` percent-decoded (each run of ``%XX`` read as UTF-8),
    and for each index of the reading (and its length) where it starts in ``text``, as ``unescape`` gives them."""

    def read(match: re.Match[str]) -> Iterator[tuple[str, int]]:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        begin = match.start()  # where the bytes not yet read as a character start
        for at in range(match.start(), match.end(), 3):
            chars = decoder.decode(bytes((int(text[at + 1 : at + 3], 16),)))
            if chars:
                yield chars, begin
                begin = at if decoder.getstate()[0] else at + 3  # this byte may start the next character
        yield decoder.decode(b"", final=True), begin

    return _decoded(text, _PERCENT_RUN, read)
