"""The forms a secret's value takes on its way to a file or a screen, made once per value when it is learned.

A value is hunted as written and as the routine encodings write it: JSON string escaping (``\\"``, ``\\\\``; with
``ensure_ascii`` on and off), one and two levels deep (a JSON document quoted inside a JSON string), Python's ``repr``
and ``ascii`` of the text and of its UTF-8 bytes (backslashes doubled, a quote escaped), each of these inside the other,
shell quoting (``shlex.quote``), HTML escaping (``&quot;``; markupsafe's and Jinja2's ``&#39;`` / ``&#34;``), quoted-printable
(``=C3=BC``), a non-ASCII value's UTF-8 read as Latin-1 or cp1252 (``Ã¼``), ASCII with each other character replaced
(``?``, ``&#252;``, ``&#xfc;``, ``\\xfc``) or dropped, NFC/NFD/NFKC/NFKD normalised (each an exact form: no stretch of
text is hunted that the value does not make; none that would be no secret as a value, ``no_secret``, or is ASCII
words alone), percent-encoding (``quote`` with and without ``/`` kept,
``quote_plus``/``urlencode``, every byte as ``%xx``; upper- and lower-case hex) and base64 (standard and URL-safe, at each
of the three alignments behind any prefix: the characters that depend on the bytes beside it trimmed; these last two
for the environment's secrets only). A value of plain characters is written as itself by every escaping: a run
learning thousands of keys holds no more values than it learned.
"""

from __future__ import annotations

import base64
import html
import json
import quopri
import re
import shlex
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import quote, quote_plus

__all__ = ["written_forms", "no_secret", "LEAST"]

LEAST = 8  # the fewest characters an environment secret has
# what a value of the environment is that is no secret: a boolean, a setting's short word, a number (a version, a port
# list), a path, a URL without credentials
_NO_SECRET = re.compile(
    r"(?i)(?:true|false|yes|no|on|off|none|null|[a-z][a-z_-]{0,11}"  # a boolean, a setting's short word
    r"|[-+]?[0-9][0-9._:,-]*"  # a number, a version, a port list
    r"|~?/.*|\.\.?/.*|[a-z]:[\\/].*"  # a path
    r"|[a-z][a-z0-9+.-]*://[^@\s]*)"  # a URL without credentials
)
# ASCII words and numbers between spaces, ``-``, ``_`` or ``.`` (``Zrich-Office-2024``, ``Office 2024``)
_WORD = r"(?:[A-Z]?[a-z]+|[A-Z]+)[0-9]*|[0-9]+"
_WORDS = re.compile(rf"(?:{_WORD})(?:[-_. ](?:{_WORD}))*")
# the characters no escaping above changes: a value of these only is written as itself by all of them
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*")


def _json(text: str) -> str:
    return json.dumps(text)[1:-1]


def _json_utf8(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _repr(text: str) -> str:
    return repr(text)[1:-1]


def _repr_in_quotes(text: str) -> str:
    """``text`` as ``repr`` writes it inside a string holding both quotes (``'`` escaped: ``'a "b" it\\'s'``)."""
    return repr('"' + text)[2:-1]


def _ascii(text: str) -> str:
    return ascii(text)[1:-1]


def _bytes_repr(text: str) -> str:
    return repr(text.encode("utf-8", "surrogateescape"))[2:-1]


_ESCAPES: tuple[Callable[[str], str], ...] = (_json, _json_utf8, _repr, _repr_in_quotes, _ascii, _bytes_repr)


@lru_cache(maxsize=4096)
def written_forms(value: str, least: int, *, encoded: bool = True) -> frozenset[str]:
    """``value`` and its forms (see the module) of ``least`` or more characters: escaped, quoted and percent-encoded as
    ``quote`` writes it; with ``encoded`` also every byte as ``%xx`` and base64 (seven more values for any value: made
    for the environment's few secrets, not for each value a run learns)."""
    forms = {value}
    raw = value.encode("utf-8", "surrogateescape")
    if _PLAIN.fullmatch(value) is None:
        once = {escape(value) for escape in _ESCAPES}
        forms |= once | {escape(form) for form in once for escape in _ESCAPES}  # two levels deep
        forms |= {shlex.quote(value).strip("'"), html.escape(value), html.escape(value, quote=False)}
        forms |= _rewritten(value, raw, least)
        forms |= _percent({quote(raw, safe=""), quote(raw), quote_plus(raw), quote_plus(raw, safe="/")})
        # each as a JSON rendering of the text holding it shows it (a view's pretty-printed payload, a file's line)
        forms |= {escape(form) for form in forms for escape in (_json, _json_utf8)}
    if encoded:
        forms |= _percent({"".join(f"%{byte:02X}" for byte in raw)}) | _base64(raw)
    # bytes that are no UTF-8 (read as surrogates) are never written as text: no form holding them is
    return frozenset(form for form in forms if len(form) >= least and (form.isascii() or _utf8(form)))


def no_secret(value: str, least: int) -> bool:
    """Whether ``value`` is no secret to hunt: shorter than ``least``, a boolean, a number, a path, a setting's short
    word or a URL without credentials. Each value of the environment is judged so, and each form of a value
    ``written_forms`` rewrites (a form made of no more than that would hide such text wherever it is written)."""
    return len(value) < least or _NO_SECRET.fullmatch(value) is not None


_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def _rewritten(value: str, raw: bytes, least: int) -> set[str]:
    """``value`` as markupsafe/Jinja2 escape it, quoted-printable, and, when it holds a non-ASCII character, as a reader
    of its UTF-8 as Latin-1 or cp1252 shows it, written as ASCII by each error handler and normalised. A lossy form
    (``?`` or nothing for each other character) is kept only when the ASCII it keeps is most of the value and a form
    to hunt itself. Each is one to hunt (``_hunted``) or none: ``ü20261206`` dropped to ``20261206`` is a number, and
    ``Zürich-Office-2024`` to ``Zrich-Office-2024`` the words a slug of ``Zürich Office 2024`` holds."""
    marked = value.translate(_HTML)
    forms = {marked, marked.replace("&#34;", "&quot;"), html.escape(value).replace("&#x27;", "&#39;")}
    forms.add(quopri.encodestring(raw).decode("ascii").rstrip("\n"))
    if value.isascii():
        return {form for form in forms if _hunted(form, least)}
    for codec in ("latin-1", "cp1252"):
        try:
            forms.add(raw.decode(codec))
        except UnicodeDecodeError:
            pass  # (cp1252 reads no 0x81, 0x8d, 0x8f, 0x90, 0x9d)
    forms |= {value.encode("ascii", errors).decode("ascii") for errors in ("xmlcharrefreplace", "backslashreplace")}
    forms.add("".join(c if c.isascii() else f"&#x{ord(c):x};" for c in value))
    forms |= {unicodedata.normalize(norm, value) for norm in ("NFC", "NFD", "NFKC", "NFKD")}
    forms = {form for form in forms if _hunted(form, least)}
    kept = value.encode("ascii", "ignore").decode("ascii")
    if 2 * len(kept) > len(value) and _hunted(kept, least):  # the ``?`` form holds no more of the value than ``kept``
        forms |= {kept, value.encode("ascii", "replace").decode("ascii")}
    return forms


def _hunted(form: str, least: int) -> bool:
    """Whether a form a value is rewritten into is hunted: a form that is no secret as a value (``no_secret``), or ASCII
    words and numbers alone (what a lossy or NFKC form leaves of ``Zürich-Office-2024``), is text written for other
    reasons too; the value itself is hunted whatever it is."""
    return not no_secret(form, least) and _WORDS.fullmatch(form) is None


_HEX = re.compile(r"%[0-9A-F]{2}")


def _percent(forms: set[str]) -> set[str]:
    """Percent-encoded ``forms`` as written, and with lower-case hex."""
    return forms | {_HEX.sub(lambda m: m.group().lower(), form) for form in forms}


def _base64(raw: bytes) -> set[str]:
    """The base64 forms of a value's bytes (``raw``), standard and URL-safe, at the three alignments it may have behind
    a prefix (``Basic`` of ``user:<value>``, a file holding it)."""
    forms = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        forms.add(encode(raw).decode().rstrip("="))  # the value alone (its last character as it ends the text)
        for offset, skip in ((0, 0), (1, 2), (2, 3)):
            # behind ``offset`` bytes of a prefix: the characters holding bits of the prefix or of what follows dropped
            data = bytes(offset) + raw
            forms.add(encode(data).decode()[skip : len(data) * 8 // 6])
    return forms


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
