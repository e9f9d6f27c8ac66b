"""Secrets inside JSON-like data: by key name, by command-line position, and by value.

``scan`` walks dicts, lists and strings. A value under a secret-looking key is secret as a whole
(whatever its type); in a list of strings (an ``argv``) the value after ``--token``/``--password``,
after ``=`` in ``--token=…``, after ``-p`` for mysql and sshpass, and after ``user:`` in curl's
``-u`` is secret; every other string is searched by value (``text.find_in_text``). ``redact``
returns a copy with each secret replaced by ``"[REDACTED]"``: the whole leaf for a whole secret,
only the secret part of a longer string otherwise (``postgres://u:[REDACTED]@db/app``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .names import REDACTED_VALUE, is_secret_key
from .text import find_in_text

__all__ = ["Hit", "scan", "redact", "leaf_strings"]

Path = tuple[str | int, ...]  # dict keys and list indexes from the root to a value

# keys whose strings are identifiers or digests: searched for token shapes, not for randomness
_ID_WORDS = ("hash", "digest", "fingerprint", "checksum", "etag", "sha")
_ID_KEYS = frozenset(
    {
        "id",
        "model",
        "provider",
        "event_name",
        "kind",
        "phase",
        "status",
        "caused_by",
        "timestamp",
        "using",
        "reason_code",
        "schema_version",
    }
)
_MYSQL = frozenset({"mysql", "mysqldump", "mysqladmin", "mariadb", "mariadb-dump", "mysqlimport", "mysqlshow"})
_CURL_USER = frozenset({"-u", "--user", "-U", "--proxy-user"})


@dataclass(frozen=True)
class Hit:
    """A secret at ``path``: the whole leaf (``whole``) or the given substrings of a string leaf."""

    path: Path
    values: tuple[str, ...]
    whole: bool


def _opaque(key: Any) -> bool:
    if not isinstance(key, str):
        return False
    low = key.lower()
    return low in _ID_KEYS or low.endswith(("_id", "_ids")) or key.endswith("Id") or any(w in low for w in _ID_WORDS)


def leaf_strings(value: Any) -> tuple[str, ...]:
    """The strings inside ``value`` (numbers of 6+ digits as text): what a whole secret leaves to hunt for."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, bool) or value is None:
        return ()
    if isinstance(value, (int, float)):
        text = str(value)
        return (text,) if len(text) >= 6 else ()
    if isinstance(value, Mapping):
        return tuple(s for v in value.values() for s in leaf_strings(v))
    if isinstance(value, (list, tuple)):
        return tuple(s for v in value for s in leaf_strings(v))
    return ()


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.]{2,80}")


def _credential_like(value: str) -> bool:
    """A bare command-line word that could be a credential (not a path, file name or sentence)."""
    classes = any(c.isdigit() for c in value) + any(c.isupper() for c in value) + any(c.islower() for c in value)
    return len(value) >= 8 and classes >= 2 and not any(c.isspace() for c in value) and not value.startswith(("/", "./", "~"))


def _argv_hits(items: list[Any], path: Path) -> dict[int, Hit]:
    """Secrets given by position on a command line."""
    hits: dict[int, Hit] = {}
    prog = os.path.basename(items[0]) if items and isinstance(items[0], str) else ""
    for i, item in enumerate(items):
        nxt = items[i + 1] if i + 1 < len(items) and isinstance(items[i + 1], str) else None
        if (
            isinstance(item, str)
            and i > 0
            and nxt is not None
            and _NAME.fullmatch(item)
            and is_secret_key(item)
            and _credential_like(nxt)
        ):  # aws configure set aws_secret_access_key <value>
            hits[i + 1] = Hit(path + (i + 1,), (nxt,), True)
            continue
        if not isinstance(item, str) or not item.startswith("-") or item in {"-", "--"}:
            continue
        name, eq, value = item.lstrip("-").partition("=")
        if prog in _MYSQL and item.startswith("-p") and not item.startswith("--") and len(item) > 2:
            hits[i] = Hit(path + (i,), (item[2:],), False)
        elif prog == "sshpass" and item.startswith("-p") and len(item) > 2:
            hits[i] = Hit(path + (i,), (item[2:],), False)
        elif prog.startswith("curl") and item in _CURL_USER and nxt and ":" in nxt:
            hits[i + 1] = Hit(path + (i + 1,), (nxt.partition(":")[2],), False)
        elif eq and value and value != REDACTED_VALUE and is_secret_key(name):
            hits[i] = Hit(path + (i,), (value,), False)
        elif (
            not eq
            and nxt is not None
            and not nxt.startswith("-")
            and nxt != REDACTED_VALUE
            and (is_secret_key(name) or (prog == "sshpass" and item == "-p"))
        ):
            hits[i + 1] = Hit(path + (i + 1,), (nxt,), True)
    return hits


def _walk(value: Any, path: Path, entropy: bool, out: list[Hit]) -> None:
    if isinstance(value, str):
        found = find_in_text(value, entropy=entropy)
        if found:
            out.append(Hit(path, tuple(sorted(found, key=len, reverse=True)), False))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and is_secret_key(key) and item is not None and item != REDACTED_VALUE:
                whole = leaf_strings(item)  # and what is inside: the token of "Bearer <token>", a URL's password
                inner = tuple(v for text in whole for v in find_in_text(text, entropy=entropy) if v != text)
                out.append(Hit(path + (key,), whole + inner, True))
            else:
                _walk(item, path + (key,), entropy and not _opaque(key), out)
    elif isinstance(value, (list, tuple)):
        items = list(value)
        positional = _argv_hits(items, path) if any(isinstance(v, str) for v in items) else {}
        out.extend(positional.values())
        for i, item in enumerate(items):
            if not (i in positional and positional[i].whole):
                _walk(item, path + (i,), entropy, out)


def scan(value: Any, *, entropy: bool = True) -> list[Hit]:
    """Every secret in ``value`` (a str, or JSON-like data)."""
    out: list[Hit] = []
    _walk(value, (), entropy, out)
    return out


def _replace(text: str, values: Iterable[str]) -> str:
    for secret in sorted(set(values), key=len, reverse=True):
        if secret:
            text = text.replace(secret, REDACTED_VALUE)
    return text


def _apply(value: Any, path: Path, whole: set[Path], parts: dict[Path, list[str]]) -> Any:
    if path in whole:
        return REDACTED_VALUE
    if isinstance(value, str):
        return _replace(value, parts[path]) if path in parts else value
    if isinstance(value, Mapping):
        return {k: _apply(v, path + (k,), whole, parts) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_apply(v, path + (i,), whole, parts) for i, v in enumerate(value)]
    return value


def redact(value: Any, *, entropy: bool = True) -> tuple[Any, list[Hit]]:
    """``(copy of value with every secret replaced by "[REDACTED]", the hits)``; ``value`` itself is unchanged."""
    hits = scan(value, entropy=entropy)
    if not hits:
        return value, hits
    whole = {h.path for h in hits if h.whole}
    parts: dict[Path, list[str]] = {}
    for h in hits:
        if not h.whole:
            parts.setdefault(h.path, []).extend(h.values)
    return _apply(value, (), whole, parts), hits
