"""Passwords given in words or in a file's line shape, with no ``name=value`` around them.

``my password is X``, ``The wifi passphrase is X``, ``my db password is:`` and X alone on the next line; a ``.pgpass``
line (``host:port:database:user:X``, its ``\\:`` and ``\\\\`` escapes read as libpq reads them); ``htpasswd -b file user
X``. Each pattern opens at a literal the text must hold (``pass`` in any case, ``htpasswd``, a port between
colons), and no part of one can give characters back to another, so a long line is read once (linear).

A word after ``password is`` is taken only when it reads as no English word: it holds a digit or a symbol, or mixes
cases inside it (``password is required``, ``password is incorrect``, ``passphrase is set`` stay).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .gates import Gate
from .names import stands_for

__all__ = [
    "PGPASS_HINT",
    "PGPASS_HINT_BYTES",
    "SAID_HINT",
    "SHORT_SAID_HINT",
    "SHORT_SAID_HINT_BYTES",
    "prose_passwords",
    "pgpass_passwords",
]

# ``password is X`` / ``passphrase was now: X``: the name, ``is`` or ``was``, the word (quotes, backticks kept out);
# or the saying ends its line (``my db password is:``) and the next line (past blank ones) is the word alone (a line
# holding more is prose: ``the password is`` / ``required for login``). Every run of blanks possessive: a long one
# with no word after it is read once, not split every way
_WORD_SAID = r"[\"'`“‘]?([^\s\"'`“”‘’]{6,1024})"
_SAID = Gate(
    re.compile(
        r"(?i)(?<![a-z])pass(?:words?|phrase|code|wd)(?![a-z])[ \t]++(?:is|was)(?:[ \t]++now)?(?:[ \t]*+:)?"
        rf"(?:[ \t]++{_WORD_SAID}|(?:[ \t]*+\r?\n)++[ \t]*+{_WORD_SAID}[\"'`”’]?[ \t]*+(?=\r?\n|\Z))"
    ),
    ("pass",),
    0,
    0,
    True,
)
#: what a text in small letters holds when it may say a password in words (``_SAID``'s opening)
SAID_HINT = re.compile(r"pass(?:words?|phrase|code|wd)[ \t]+(?:is|was)[ \t\r\n]")
# the same said with another grammar (what ``_SAID`` does not read): a few words naming what it is for between the name
# and ``is`` (``the password to the db is X``, ``the pw for root was X``), ``password => X`` / ``-> X``, the short names
# (``my pw is X``, ``pwd``, ``passwd``), and a password set ``to`` or ``as`` X (``set the password to X``, ``changed
# password to X``: a verb of setting in the words before it). Every run possessive, the words between at most three
_NAMES_SAID = r"(?:pass(?:words?|phrase|code|wd)|pwd?)"
_SAID_OTHERWISE = re.compile(
    rf"(?i)(?<![a-z]){_NAMES_SAID}(?![a-z])"
    r"(?:(?:[ \t]++(?:for|to|of|on)(?:[ \t]++(?!(?:is|was)\b)[\w.@-]{1,40}+){1,3}+)?[ \t]++(?:is|was)(?:[ \t]++now)?"
    r"(?:[ \t]*+:)?|[ \t]*+[=-]>|(?P<to>[ \t]++(?:to|as)))[ \t]++"
    r"[\"'`“‘]?([^\s\"'`“”‘’]{6,1024})"
)
_SETTING = re.compile(r"(?i)\b(?:set|sets|setting|change[sd]?|changing|reset(?:s|ting)?|update[sd]?|updating)\b")
#: what a text in small letters holds when it may say a password by a short name (``my pw is X``): no keyword names it
SHORT_SAID_HINT = re.compile(r"(?<![a-z])pwd?[ \t]+(?:is|was)[ \t]")
SHORT_SAID_HINT_BYTES = re.compile(SHORT_SAID_HINT.pattern.encode())
# a ``.pgpass`` line written inside a command or a list (``echo 'host:5432:db:user:X' >> ~/.pgpass``, ``- host:5432:…``):
# the line's five fields between a quote, a list's ``-`` or a blank and the end of the quoted or bare word
_PGPASS_INSIDE = re.compile(
    r"(?:(?<=['\"])|(?<=^-[ \t])|(?<=\n-[ \t])|(?<=[ \t]-[ \t]))([^:\s\\'\"]+):(?:[0-9]{1,5}|\*):[^:\s\\'\"]+:[^:\s\\'\"]+"
    r":((?:[^:\s\\'\"]|\\[:\\])++)(?=['\"]|[ \t]*(?:\r?\n|$))"
)
# ``htpasswd -b[c…] file user X``, ``htpasswd -nb user X``: the flags, then two or three words (the last the password)
_WORD = r"""(?:"[^"\n]*"|'[^'\n]*'|[^\s"';&|]+)"""
_HTPASSWD = Gate(
    re.compile(rf"(?<![\w-])htpasswd((?:[ \t]+-[A-Za-z]+)++)[ \t]+({_WORD})[ \t]+({_WORD})(?:[ \t]+({_WORD}))?"),
    ("htpasswd",),
    0,
    0,
    False,
)
# a ``.pgpass`` line: hostname:port:database:username:password, alone on its line (``*`` for any in the first four).
# A backslash escapes the character after it in any field, as libpq reads the file: ``\:`` is a colon of the value,
# ``\\`` a backslash (a password may start with either, or with a quote)
_FIELD = r"(?:[^:\s\\]|\\[^\s])++"
_PGPASS = re.compile(rf"(?m)^[ \t]*({_FIELD}):(?:[0-9]{{1,5}}|\*):{_FIELD}:{_FIELD}:({_FIELD})[ \t]*\r?$")
#: what a text holds when it may hold a ``.pgpass`` line: a port (or ``*``) between colons, three more fields after it
#: (no quote in the second and third: one ends a JSON string; the password may start with one, or with an escape)
_HINT_FIELD = r"(?:[^:\s\\\"]|\\[^\s])++"
PGPASS_HINT = re.compile(rf":(?:[0-9]{{1,5}}|\*):{_HINT_FIELD}:{_HINT_FIELD}:(?:[^:\s\\]|\\[^\s])")
#: the same in JSON text, where the text's ``\`` is written ``\\`` and its quote ``\"``: escapes, read as above
PGPASS_HINT_BYTES = re.compile(PGPASS_HINT.pattern.encode())
_ESCAPED = re.compile(r"\\(.)")
_TRAILING = ".,;:!?)]}"
_PLACEHOLDER = frozenset("<{[")  # ``<password>``, ``{{ pw }}``, a redaction
#: a word standing for a password, not one: ``%s``, ``%(password)s``, ``****``, ``####``; and a reference
#: (``names.stands_for``: ``${PW}``, ``$(pass show db)``, ``$DB_PASSWORD``, ``$pw``; ``$uperS3cret99`` or
#: ``#Welcome2024`` is a password)
_STANDS_FOR = re.compile(r"%(?:\([^)]*\))?[sdr]|[*#x•]+", re.S)


def _reads_as_password(word: str) -> bool:
    """A word no English sentence holds as one: a digit or a symbol in it, or its cases mixed past its first letter."""
    if len(word) < 6 or word[0] in _PLACEHOLDER or "://" in word or word.count("/") > 1:
        return False
    bare = word.rstrip(_TRAILING)
    if _STANDS_FOR.fullmatch(bare) or (bare[:1] == "$" and stands_for(bare)):
        return False
    if word.isalpha():
        return not (word.islower() or word.isupper() or word[1:].islower())
    return True


def prose_passwords(text: str) -> Iterator[str]:
    """The passwords ``text`` gives in words (``my password is X``) or to ``htpasswd -b``."""
    for m in _SAID.finditer(text):
        given = m.group(m.lastindex or 1)
        if m.lastindex == 2:  # alone on its line: no sentence ends there, its marks are the password's
            if _reads_as_password(given.rstrip(_TRAILING)):
                yield given
            continue
        word = given.rstrip(_TRAILING)
        if _reads_as_password(word):
            yield word
            if len(given) - len(word) > 1:  # ``hunter2!!.``: one mark may end the sentence, the others the password
                yield given[:-1]
    for m in _SAID_OTHERWISE.finditer(text):
        word = m.group(2).rstrip(_TRAILING)
        if m.group("to") and _SETTING.search(text, max(0, m.start() - 48), m.start()) is None:
            continue  # ``the password to X`` names what it opens; ``set the password to X`` gives it
        if _reads_as_password(word):
            yield word
    if "htpasswd" in text:
        for m in _HTPASSWD.finditer(text):
            flags = m.group(1)
            if "b" not in flags:  # without -b the password is asked for, not given
                continue
            value = m.group(3) if "n" in flags else m.group(4)  # -n: no file, ``user password``
            if value:
                yield value.strip("\"'")


def pgpass_passwords(text: str) -> Iterator[str]:
    """The password of each ``.pgpass`` line of ``text`` (a host with a letter or a dot in it, or ``*``: not the
    groups of an IPv6 address or a MAC)."""
    for m in _PGPASS.finditer(text):
        host, value = m.group(1), m.group(2)
        if (host == "*" or "." in host or any(c.isalpha() for c in host)) and value != "*" and not value.isdigit():
            yield value  # as written: ``\:`` is how a colon of the password is written there
            if "\\" in value and len(read := _ESCAPED.sub(r"\1", value)) >= 4:
                yield read  # and as libpq reads it, what a connection string or a prompt would show
    for m in _PGPASS_INSIDE.finditer(text):
        host, value = m.group(1), m.group(2)
        if (host == "*" or "." in host or any(c.isalpha() for c in host)) and value != "*" and not value.isdigit():
            yield value
