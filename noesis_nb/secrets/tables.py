"""Secrets given in a table's column or under a section named for them, where no label stands beside the value.

A header row naming a secret column labels the cells below it in that column: CSV or TSV with a header
(``user,password`` then ``admin,X``), a Markdown table (``| user | password |``, its ``|---|`` rule, ``| admin | X |``),
psql's and ``sqlite3 -header``'s output (`` usename | passwd `` then ``---+---`` then `` admin | X``, ended by
``(1 row)``); an HTML cell or term naming one before the value's (``<th>Password</th><td>X</td>``,
``<dt>Password</dt><dd>X</dd>``). A section of configuration text named for secrets holds them in its entries
(YAML's ``api_keys:`` then ``  openai: X``, ``passwords:`` then ``  - X``; INI's ``[credentials]`` then ``admin = X``;
TOML's ``tokens = ["X"]``).

A cell or entry is taken only when it reads as no word (``labels``' rule: 6+ characters holding a digit or a symbol,
or mixing cases) and has a credential's shape (``names.credential_shaped``: no tokenizer's piece, measure or reference,
``Paris.``, ``12chars``, ``vault/prod/db``), and an entry naming what is no secret (``host:``, ``url =``,
``username:``) is none; ``token`` alone names no column (a tokenizer's or a log-probability table's). Each line is
read once as a header or a section's start and once as a row or an entry, so a long text is read in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .names import credential_shaped, is_secret_key, names_secrets

__all__ = ["column_secrets", "html_cell_secrets", "section_secrets", "TABLE_HINT"]

# a header cell naming a secret column (lowered, its Markdown marks and quotes stripped): the label words of ``labels``
# (given by it), and a secret-looking name (``db_password``, ``api_key``; not ``key`` alone, a key/value table's)
_DELIMITERS = ("\t", "|", ",", ";")
_RULE_ROW = re.compile(r"[-+|:=\s]*")  # a Markdown or psql rule between the header and the rows (``|---|:--|``, ``--+--``)
_CELL_MARKS = " \t`*_\"'"
_NAME = re.compile(r"[a-z_][\w.-]*")  # a column's name as a program writes it (prose holds blanks: ``the password``)
#: what a text holds when a header or a section may name a secret (lowered): a secret word, or a plural's
TABLE_HINT = re.compile(r"pass|secret|token|key|cred|pwd")


_NO_HEADER = frozenset({"key", "keys", "token", "tokens"})


def _header_word(cell: str, words: frozenset[str]) -> bool:
    name = cell.strip(_CELL_MARKS).lower()
    if not name or len(name) > 60:
        return False
    if name in words:
        return True
    # not ``key`` alone (a key/value table's), nor ``token`` (a tokenizer's or a log-probability table's)
    return _NAME.fullmatch(name) is not None and name not in _NO_HEADER and is_secret_key(name)


def column_secrets(text: str, words: frozenset[str], judged: Callable[[str], bool]) -> Iterator[str]:
    """The cells below a header cell naming a secret (one of ``words`` or a secret-looking name), in that column, that
    read as credentials (``judged``). A table ends at a line without its delimiter; a rule row is skipped."""
    lines = text.splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        delimiter = next((d for d in _DELIMITERS if d in line), None)
        if delimiter is None or TABLE_HINT.search(line.lower()) is None:
            continue
        header = line.split(delimiter)
        columns = [i for i, cell in enumerate(header) if _header_word(cell, words)]
        if not columns:
            continue
        while at < len(lines):  # the rows below, each read once (the next header is looked for past them)
            row = lines[at]
            if delimiter not in row:
                if _RULE_ROW.fullmatch(row) is not None and row.strip():
                    at += 1
                    continue
                break
            if _RULE_ROW.fullmatch(row) is not None:
                at += 1
                continue
            cells = row.split(delimiter)
            if len(cells) != len(header):  # another table, or prose holding the delimiter
                break
            at += 1
            for i in columns:
                value = cells[i].strip(_CELL_MARKS)
                if value and judged(value) and credential_shaped(value):
                    yield value


_HTML_CELL = re.compile(  # the header's text starts and ends on a non-blank, and no two runs can share a blank
    r"(?i)<(?:th|td|dt)\b[^<>]{0,200}+>[ \t]{0,40}+(?:<(?:b|strong|code|label|span)\b[^<>]{0,100}+>[ \t]{0,40}+)?"
    r"([^<>\s](?:[^<>\n]{0,58}?[^<>\s])?)[ \t]{0,40}+:?[ \t]{0,40}+(?:</(?:b|strong|code|label|span)>[ \t]{0,40}+)?"
    r"</(?:th|td|dt)>[ \t\r\n]{0,200}+"
    r"<(?:td|dd)\b[^<>]{0,200}+>[ \t]{0,40}+(?:<(?:code|b|strong|span)\b[^<>]{0,100}+>[ \t]{0,40}+)?([^<>\s]{1,1024})"
)


def html_cell_secrets(text: str, words: frozenset[str], judged: Callable[[str], bool]) -> Iterator[str]:
    """The value of an HTML cell or definition after one naming a secret (``<th>Password</th><td>X</td>``)."""
    if "<" not in text:
        return
    for m in _HTML_CELL.finditer(text):
        if _header_word(m.group(1), words) and judged(m.group(2)) and credential_shaped(m.group(2)):
            yield m.group(2)


# a section's start: a YAML key with nothing after it, an INI/TOML table's ``[name]``; an entry: ``name: value``,
# ``name = value``, ``- value``; a one-line list under a name (``tokens = ["X", "Y"]``)
_YAML_SECTION = re.compile(r"([ \t]*)(?:-[ \t]+)?([A-Za-z_][\w.-]{0,60})[ \t]*:[ \t]*(?:#.*)?")
_INI_SECTION = re.compile(r"[ \t]*\[([A-Za-z_][\w. -]{0,60})\][ \t]*(?:[#;].*)?")
_ENTRY = re.compile(
    r"""[ \t]*(?:-[ \t]+)?(?:([A-Za-z_][\w.-]{0,60})[ \t]*[:=][ \t]*)?["']?([^\s"'#]{1,1024})["']?[ \t]*(?:[#;].*)?"""
)
_LIST = re.compile(r"""(?m)^[ \t]*([A-Za-z_][\w.-]{0,60})[ \t]*[:=][ \t]*\[([^\[\]\n]{1,4096})\]""")
_QUOTED = re.compile(r"""["']([^"'\n]{1,1024})["']""")


def _names_secrets(name: str) -> bool:
    return is_secret_key(name) or names_secrets(name)


def _entry_value(line: str, judged: Callable[[str], bool]) -> str | None:
    m = _ENTRY.fullmatch(line)
    if m is None:
        return None
    name, value = m.group(1), m.group(2)
    if name is not None and not _names_secrets(name) and not is_secret_key("password_" + name):
        return None  # ``host: db.example.com`` names what is no secret, as ``password_host`` does (``names``)
    return value if judged(value) and credential_shaped(value) else None


def section_secrets(text: str, judged: Callable[[str], bool]) -> Iterator[str]:
    """The values of the entries of a YAML or INI section named for secrets (``credentials:`` then ``  admin: X``,
    ``[credentials]`` then ``admin = X``), and of a one-line list under such a name (``tokens = ["X"]``)."""
    if "[" in text:
        for m in _LIST.finditer(text):
            if _names_secrets(m.group(1)):
                yield from (q for q in _QUOTED.findall(m.group(2)) if judged(q) and credential_shaped(q))
    if "\n" not in text:
        return
    lines = text.splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        yaml = _YAML_SECTION.fullmatch(line)
        ini = _INI_SECTION.fullmatch(line) if yaml is None else None
        name = yaml.group(2) if yaml is not None else ini.group(1).strip() if ini is not None else ""
        if not name or not _names_secrets(name):
            continue
        indent = len(yaml.group(1).expandtabs()) if yaml is not None else -1
        while at < len(lines):  # the section's entries, each read once
            entry = lines[at]
            if not entry.strip():
                at += 1
                continue
            deeper = len(entry) - len(entry.lstrip(" \t"))
            if yaml is not None and (deeper <= indent and not entry.lstrip().startswith("-")):
                break
            if ini is not None and entry.lstrip().startswith("["):
                break
            at += 1
            value = _entry_value(entry, judged)
            if value is not None:
                yield value
