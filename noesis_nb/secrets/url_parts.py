"""Credentials a URL carries outside its password: a token as its user name (also before a password,
``<token>:x-oauth-basic@``), and query or fragment values that sign or authorise the request (``?sig=`` of an Azure
SAS, ``?X-Amz-Signature=``, an OAuth ``?code=``, ``?key=``, an implicit flow's ``#access_token=``).

Signatures and tokens are long and random, so any value that looks like a credential counts; ``code`` and
``key`` also hold promo, error and product codes (``?code=SUMMER25``, ``?key=ThinkPadX1Carbon``), so they
count only when 16+ characters look random, as OAuth codes and API keys do, or (``code``) when 32+ characters
hold a UUID, as the codes of Keycloak and Microsoft accounts do.

``sig``, ``signature``, ``code`` and ``key`` are secret names only in a URL's query or fragment: elsewhere they name a
status code, a thinking block's signature or a dict key, so ``names.is_secret_key`` does not count them.
Names it does count (``?token=``, ``?apiKey=``) are read here too, in any case, as the signed names are: ``text``'s
``name=value`` rules split ``aPikEY`` into words and missed a repeated one before a fragment.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .names import is_secret_key, looks_like_credential
from .randomness import entropy_ok

__all__ = ["URL_QUERY", "URL_USER", "url_secrets"]

# parameter names (lowered) that hold a credential in a query or fragment: any credential-like value, or
# (``_CODES``) only a long random one
_SIGNED = frozenset({"sig", "signature", "x-amz-signature", "x-goog-signature", "access_token", "id_token", "refresh_token"})
_CODES = frozenset({"code", "key"})
_CODE_LEAST = 16
_HEX = re.compile(r"[0-9a-fA-F]+")
_END = re.compile(r"[\s\"'<>`]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}\Z")
_LONGEST = 4096  # characters of a URL read: a text without spaces is not scanned to its end from every ``://``
# what the prefilter (``text._KEYWORDS``) looks for after a ``://``, on lowered text: a user part (before ``@``) of
# 12+ characters without a ``:``, or ``sig``/``code`` starting a query or fragment name (``key`` and ``token``
# are keywords already)
URL_USER = rb"(?<=[^\s\"/@:]{12})"
# (each scan stops at the next ``://``: a text of many costs no more than one)
URL_QUERY = (
    rb"[^\s\"?#:]*+(?::(?!//)[^\s\"?#:]*+)*+[?#]"
    rb"(?:[^\s\"&;?#:]*+(?::(?!//)[^\s\"&;?#:]*+)*+[&;?#])*?(?:x-(?:amz|goog)-)?(?:sig|code)"
)


def url_secrets(text: str) -> set[str]:
    """The user-name tokens and credential query and fragment values of the URLs in ``text``, each as written."""
    found: set[str] = set()
    for rest in _after_schemes(text):
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        path = rest[len(authority) :]
        mark = re.search(r"[?#;]", path)  # a path's ``;name=value`` parameters too (``/p;sig=…``)
        after = path[mark.end() :] if mark else ""
        if mark is not None and mark.group() == ";":  # a path parameter's value ends with its path segment
            query = re.search(r"[?#]", after)
            head, tail = (after[: query.start()], after[query.start() :]) if query else (after, "")
            after = re.sub(r"/[^;]*", ";", head) + tail
        user = authority.rpartition("@")[0].partition(":")[0]  # a password is read by ``text``'s URL rule
        if "@" not in user and len(user) >= 12 and entropy_ok(unquote(user), ids=False):
            found.add(user)
        # query and fragment pairs alike (``#access_token=``, ``#/callback?code=``)
        for pair in re.split(r"&(?:amp;)?|[;?#]", after):
            name, sep, value = pair.partition("=")
            value = value.rstrip(".,:!?)]}")  # the end of the sentence the URL stands in
            if sep and _credential(unquote(name).lower(), unquote(value)):
                found.add(value)
    return found


def _after_schemes(text: str) -> list[str]:
    """Each URL of ``text`` after its ``://``: to a space or a quote, or to the scheme of a URL that follows
    at once (strings of a list are also read joined: ``…?key=colourhttps://…``), at most ``_LONGEST`` long."""
    starts = [m.start() for m in re.finditer("://", text)]
    if not starts:
        return []
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


def _credential(name: str, value: str) -> bool:
    """Whether ``value`` under the query name ``name`` is a credential rather than a word, a number or a code
    a person types: ``looks_like_credential`` and two of digits, lower and upper case letters, and for
    ``code``/``key`` 16+ characters that look random (``?code=200``, ``?key=my-page``, ``?sig=on`` and
    ``?code=SUMMER25`` are kept)."""
    # a secret name (``?apiKey=``, ``?Token=``) in any case, repeated, before a fragment: as a signed one
    signed = name in _SIGNED or (name not in _CODES and is_secret_key(name))
    if not signed and name not in _CODES:
        return False
    classes = any(c.isdigit() for c in value) + any(c.islower() for c in value) + any(c.isupper() for c in value)
    if classes < 2 or not looks_like_credential(value):
        return False
    return signed or (len(value) >= _CODE_LEAST and _random(value)) or (name == "code" and _issued_code(value))


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _issued_code(value: str) -> bool:
    """An authorization code an identity provider issues in parts, 32+ characters holding a UUID (Keycloak's
    three dotted UUIDs, a Microsoft account's ``M.C507_BAY.2.U.<uuid>``), or Google's ``4/0A…``: random as a
    whole, though no part of it need read random to ``entropy_ok`` (a Google code's run of capitals reads as a
    word in one draw of a few hundred)."""
    if len(value) >= 20 and _GOOGLE_CODE.match(value) is not None:
        return True
    return len(value) >= 32 and _UUID.search(value) is not None


_GOOGLE_CODE = re.compile(r"4/[0-9A-Za-z_-]{16}")


def _random(value: str) -> bool:
    """``_random_alone`` of the value, or of one of its pieces cut at ``-``, ``_``, ``.`` or ``~`` of 16+ characters
    (``?key=download-<24 random characters>``, ``?code=<random>_weather``): a word beside a key made the whole read
    as words and a name's parts (``entropy_ok``), and the key was shown."""
    if _random_alone(value):
        return True
    if _PIECE_CUT.search(value) is None:
        return False
    return any(len(p) >= _CODE_LEAST and not p.isdigit() and _random_alone(p) for p in _PIECE_CUT.split(value))


_PIECE_CUT = re.compile(r"[-_.~]+")


def _random_alone(value: str) -> bool:
    """``entropy_ok``, which counts hex as random only from 32 digits (a digest's length): here a shorter hex
    value of 8+ distinct digits counts too (GitHub's OAuth codes are 20 hex digits)."""
    if _HEX.fullmatch(value):
        return len(set(value.lower())) >= 8
    return entropy_ok(value, ids=False)
