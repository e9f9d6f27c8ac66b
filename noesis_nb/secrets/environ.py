"""Secrets the process holds in its environment: the values of variables whose names say so (``DB_PASSWORD``,
``STRIPE_SECRET``, ``MY_APP_CREDENTIALS``, ``OPENAI_API_KEY``). An agent may print or return such a value without
naming its variable; each run learns them when it starts (``guard.for_run``), so they are hunted in everything it
writes, and views hide them (``guard.known_shown``). Read again at each run's start: a variable set later is
learned by the runs started after it.

A name says secret by a word of its own (split at ``_``, ``-``, ``.`` and case changes): ``KEY``, ``SECRET``,
``TOKEN``, ``PASSWORD``/``PASSWD``/``PASS``/``PWD``, ``CREDENTIAL(S)``, ``AUTH``, ``PRIVATE``, ``APIKEY``; ``PWD`` and
``OLDPWD`` themselves are directories. A value is kept when it has 8+ characters and is no boolean, number, path, plain
short word or URL without credentials. Each is hunted as written, percent-encoded and base64-encoded.
"""

from __future__ import annotations

import base64
import os
import re
from urllib.parse import quote

__all__ = ["environ_secrets", "environ_read", "names_secret"]

_WORDS = frozenset(
    {"KEY", "KEYS", "SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD", "PASSWD", "PASS", "PWD", "CREDENTIAL"}
    | {"CREDENTIALS", "CREDS", "AUTH", "PRIVATE", "APIKEY", "PASSPHRASE"}
)
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD"})  # the shell's working directories
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_LEAST = 8
_PLAIN = re.compile(
    r"(?i)(?:true|false|yes|no|on|off|none|null|[a-z][a-z_-]{0,11}"  # a boolean, a setting's short word
    r"|[-+]?[0-9][0-9._:,-]*"  # a number, a version, a port list
    r"|~?/.*|\.\.?/.*|[a-z]:[\\/].*"  # a path
    r"|[a-z][a-z0-9+.-]*://[^@\s]*)"  # a URL without credentials
)
_LAST: tuple[tuple[tuple[str, str], ...], frozenset[str]] = ((), frozenset())


def names_secret(name: str) -> bool:
    """Whether an environment variable's name says its value is a secret (a word of it does; not ``PWD``)."""
    if name.upper() in _NOT_SECRET_NAMES:
        return False
    return any(word.upper() in _WORDS for word in _NAME_WORD.findall(name))


def environ_secrets() -> frozenset[str]:
    """The secret values of the process environment now, and their encoded forms; the same set while it is unchanged."""
    global _LAST
    given = tuple((name, value) for name, value in os.environ.items() if names_secret(name))
    last = _LAST
    if given == last[0]:
        return last[1]
    found: set[str] = set()
    for _, value in given:
        value = value.strip()
        if len(value) < _LEAST or _PLAIN.fullmatch(value) is not None:
            continue
        raw = value.encode("utf-8", "surrogateescape")
        found.update(
            (quote(raw, safe=""), base64.b64encode(raw).decode().rstrip("="), base64.urlsafe_b64encode(raw).decode().rstrip("="))
        )
        if raw.isascii() or _utf8(value):  # bytes that are no UTF-8 (read as surrogates) are never written as text
            found.add(value)
    _LAST = (given, frozenset(found))
    return _LAST[1]


def _utf8(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def environ_read() -> frozenset[str]:
    """The secret values of the environment as last read (at import, then at each run's start)."""
    return _LAST[1]


environ_secrets()
