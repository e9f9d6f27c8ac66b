"""Credentials a URL carries outside its password: a token as its user name, and query values that sign or
authorise the request (``?sig=`` of an Azure SAS, ``?X-Amz-Signature=``, an OAuth ``?code=``, ``?key=``).

``sig``, ``signature``, ``code`` and ``key`` are secret names only in a URL's query: elsewhere they name a
status code, a thinking block's signature or a dict key, so ``names.is_secret_key`` does not count them.
Names it does count (``?token=``, ``?password=``) are read by ``text``'s ``name=value`` rules.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .names import looks_like_credential
from .randomness import entropy_ok

__all__ = ["URL_QUERY", "URL_USER", "url_secrets"]

# parameter names (lowered) that hold a credential in a query
_QUERY_NAMES = frozenset({"sig", "signature", "x-amz-signature", "x-goog-signature", "code", "key"})
_END = re.compile(r"[\s\"'<>`]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}\Z")
_LONGEST = 4096  # characters of a URL read: a text without spaces is not scanned to its end from every ``://``
# what the prefilter (``text._KEYWORDS``) looks for after a ``://``, on lowered text: a user part (before ``@``) of
# 12+ characters without a ``:``, or ``sig``/``code`` starting a query name (``key`` is a keyword already)
URL_USER = rb"(?<=[^\s\"/@:]{12})"
# (each scan stops at the next ``://``: a text of many costs no more than one)
URL_QUERY = (
    rb"[^\s\"?#:]*+(?::(?!//)[^\s\"?#:]*+)*+\?"
    rb"(?:[^\s\"&;#:]*+(?::(?!//)[^\s\"&;#:]*+)*+[&;])*?(?:x-(?:amz|goog)-)?(?:sig|code)"
)


def url_secrets(text: str) -> set[str]:
    """The user-name tokens and credential query values of the URLs in ``text``, each as written."""
    found: set[str] = set()
    for rest in _after_schemes(text):
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        user = authority.rpartition("@")[0]
        if ":" not in user and "@" not in user and len(user) >= 12 and entropy_ok(unquote(user)):
            found.add(user)
        query = rest.partition("?")[2].partition("#")[0]
        for pair in re.split(r"&(?:amp;)?|;", query):
            name, sep, value = pair.partition("=")
            value = value.rstrip(".,:!?)]}")  # the end of the sentence the URL stands in
            if sep and name.lower() in _QUERY_NAMES and _credential(unquote(value)):
                found.add(value)
    return found


def _after_schemes(text: str) -> list[str]:
    """Each URL of ``text`` after its ``://``: to a space or a quote, or to the scheme of a URL that follows
    at once (strings of a list are also read joined: ``…?key=colourhttps://…``), at most ``_LONGEST`` long."""
    starts = [m.start() for m in re.finditer("://", text)]
    urls = []
    for at, after in zip(starts, [*starts[1:], len(text)], strict=True):
        limit = min(at + 3 + _LONGEST, after)
        end = _END.search(text, at + 3, limit)
        stop = end.start() if end else limit
        if stop == after < len(text):
            scheme = _SCHEME.search(text, max(0, after - 32), after)
            stop = scheme.start() if scheme else after
        urls.append(text[at + 3 : stop])
    return urls


def _credential(value: str) -> bool:
    """A credential rather than a word or a number: ``looks_like_credential`` and two of digits, lower and
    upper case letters (``?code=200``, ``?key=my-page`` and ``?sig=on`` are kept)."""
    classes = any(c.isdigit() for c in value) + any(c.islower() for c in value) + any(c.isupper() for c in value)
    return classes >= 2 and looks_like_credential(value)
