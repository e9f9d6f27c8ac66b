"""Secret-named values written as text in the shapes that give a name and its value apart.

A tool's output prints configuration: ``kubectl get deploy -o json|yaml`` an env entry (``{"name": "DB_PASSWORD",
"value": "…"}`` as JSON text, ``- name: DB_PASSWORD`` then ``value: …`` as YAML), Maven's ``settings.xml`` an element
named like a secret (``<password>…</password>``), a Dockerfile ``ENV DB_PASSWORD …`` (its older form, the name and
the value apart by a space) or ``ARG``. ``name = value`` and ``"name": "value"`` are read by ``text._assignments``; in
these shapes the value does not follow its name, and was written in clear. ``named_values(text)`` gives each such
value as written (``text`` judges it as any value given to a secret-looking name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .names import is_secret_key

__all__ = ["named_values"]

_Q = r"""\\?["']?"""  # a quote around a field's name or value, escaped inside a JSON string (``\"name\"``)
_NAME_FIELD = r"(?:name|key|Name|Key|ParameterKey|OptionName|header|Header)"
_VALUE_FIELD = r"(?:value|Value|ParameterValue)"
_FIELD_NAME = r"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})"
# a field's value: quoted (to its closing quote, on its line) or a bare word to its line's end (YAML), of at most
# 1,024 characters (a longer one is no pair here: the randomness rule judges a long word). Each is taken whole, never
# given back (possessive), and bounded: a value the pattern then finds no name after is no pair, and trying every
# shorter cut of it, each with its 200 characters between, or reading each ``value:`` of a long line to the line's
# end, made one long line of prose cost seconds
_FIELD_VALUE = (
    r"""(?:\\?"(?P<dq>[^"\\\n]{1,1024}+)(?![^"\\\n])|'(?P<sq>[^'\n]{1,1024}+)'"""
    r"""|(?P<bare>[^\s"'{}\[\],][^\n"'{}\[\],]{0,1023}+)(?![^\n"'{}\[\],]))"""
)
# what stands between the two fields of one entry: no brace or bracket (another object), no new YAML list item
_BETWEEN = r"(?:(?!\n[ \t]*-[ \t])[^{}\[\]]){0,200}?"
_SEP = r"[ \t]*:[ \t]*"
_PAIR = re.compile(
    rf"(?<![\w-]){_Q}{_NAME_FIELD}{_Q}{_SEP}{_Q}{_FIELD_NAME}{_Q}{_BETWEEN}(?<![\w-])(?P<field>{_Q}{_VALUE_FIELD}){_Q}{_SEP}{_FIELD_VALUE}"
)
_PAIR_REVERSED = re.compile(
    rf"(?<![\w-]){_Q}{_VALUE_FIELD}{_Q}{_SEP}{_FIELD_VALUE}{_BETWEEN}(?<![\w-])(?P<field>{_Q}{_NAME_FIELD}){_Q}{_SEP}{_Q}{_FIELD_NAME}"
    r"(?![A-Za-z0-9_.-])"
)
# an XML element named like a secret, holding text: ``<password>…</password>``, ``<db.password>``, ``<ns:token>``
_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w.:-]{0,80})(?:[ \t][^<>\n]*)?>(?P<value>[^<>\n]{1,256})</(?P=tag)[ \t]*>")
# a Dockerfile's ``ENV NAME value`` (the rest of the line) and ``ARG``/``ENV NAME=value``
_DOCKER = re.compile(r"(?m)^[ \t]*(?:ENV|ARG)[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_]{0,80})(?:[ \t]+|=)(?P<value>[^\n]+)")


def named_values(text: str) -> Iterator[str]:
    """The values of secret-looking names in ``text`` written as an env entry (JSON or YAML), an XML element or a
    Dockerfile's ``ENV``/``ARG``, each stripped of the quotes around it."""
    if "alue" in text:
        for pattern in (_PAIR, _PAIR_REVERSED):
            for m in pattern.finditer(text):
                if is_secret_key(m.group("name")) and (m.group("bare") is None or _line_start(text, m.start("field"))):
                    yield (m.group("dq") or m.group("sq") or m.group("bare") or "").strip()
    if "</" in text:
        for m in _ELEMENT.finditer(text):
            if is_secret_key(m.group("tag").rpartition(":")[2]):
                yield m.group("value").strip()
    if "ENV" in text or "ARG" in text:
        for m in _DOCKER.finditer(text):
            if is_secret_key(m.group("name")):
                yield m.group("value").strip().strip("\"'")


def _line_start(text: str, at: int) -> bool:
    """Whether a YAML entry's field stands first on its line (after its indent, or its list item's ``-``): an unquoted
    value is read only so (``the name: password and value: lowered`` is prose)."""
    return text[text.rfind("\n", 0, at) + 1 : at].strip(" \t-") == ""
