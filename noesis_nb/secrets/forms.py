"""The forms a secret's value takes on its way to a file or a screen, made once per value when it is learned.

A value is hunted as written and as the routine encodings write it: JSON string escaping (``\\"``, ``\\\\``; with
``ensure_ascii`` on and off), one and two levels deep (a JSON document quoted inside a JSON string), Python's ``repr``
and ``ascii`` of the text and of its UTF-8 bytes (backslashes doubled, a quote escaped), each of these inside the other,
shell quoting (``shlex.quote``), HTML escaping (``&quot;``; markupsafe's and Jinja2's ``&#39;`` / ``&#34;``), quoted-printable
(``=C3=BC``), a non-ASCII value's UTF-8 read as Latin-1 or cp1252 (``Ã¼``), ASCII with each other character replaced
(``?``, ``&#252;``, ``&#xfc;``, ``\\xfc``) or dropped, NFC/NFD/NFKC/NFKD normalised (each an exact form: no stretch of
text is hunted that the value does not make), percent-encoding (``quote`` with and without ``/`` kept,
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

__all__ = ["written_forms"]

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


_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def _rewritten(value: str, raw: bytes, least: int) -> set[str]:
    """``value`` as markupsafe/Jinja2 escape it, quoted-printable, and, when it holds a non-ASCII character, as a reader
    of its UTF-8 as Latin-1 or cp1252 shows it, written as ASCII by each error handler and normalised. A lossy form
    (``?`` or nothing for each other character) is kept only when the ASCII it keeps is ``least`` characters or more
    and most of the value."""
    marked = value.translate(_HTML)
    forms = {marked, marked.replace("&#34;", "&quot;"), html.escape(value).replace("&#x27;", "&#39;")}
    forms.add(quopri.encodestring(raw).decode("ascii").rstrip("\n"))
    if value.isascii():
        return forms
    for codec in ("latin-1", "cp1252"):
        try:
            forms.add(raw.decode(codec))
        except UnicodeDecodeError:
            pass  # (cp1252 reads no 0x81, 0x8d, 0x8f, 0x90, 0x9d)
    forms |= {value.encode("ascii", errors).decode("ascii") for errors in ("xmlcharrefreplace", "backslashreplace")}
    forms.add("".join(c if c.isascii() else f"&#x{ord(c):x};" for c in value))
    forms |= {unicodedata.normalize(norm, value) for norm in ("NFC", "NFD", "NFKC", "NFKD")}
    kept = value.encode("ascii", "ignore").decode("ascii")
    if len(kept) >= least and 2 * len(kept) > len(value):
        forms |= {kept, value.encode("ascii", "replace").decode("ascii")}
    return forms


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
