"""Secrets inside JSON-like data: by key name, by command-line position, and by value.

``scan`` walks dicts, lists and strings. A value under a secret-looking key is secret as a whole
(whatever its type); in a list of strings (an ``argv``) the value after ``--token``/``--password``,
after ``=`` in ``--token=…``, after ``-p`` for mysql and sshpass, and after ``user:`` in curl's
``-u`` is secret; so is the value of a name/value pair with a secret-looking name (a header list's
``["x-api-key", "…"]``, such a pair under a key unless the key names a list of names or a command,
an env entry's ``{"name": "DB_PASSWORD", "value": "…"}``, an OTel attribute's
``{"key": "…authorization", "value": {…}}``), and the texts of streamed chunk records are joined as
adjacent strings are; every other string, dict keys included, is searched by
value (``text.find_in_text``), and adjacent strings of a list also joined (``joined``). ``redact``
returns a copy with each secret replaced by ``"[REDACTED]"``: the whole leaf for a whole secret,
only the secret part of a longer string otherwise (``postgres://u:[REDACTED]@db/app``), the secret
part of a key in a key (``{"[REDACTED]": …}``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from .exact import exact_all
from .joined import chunk_texts, split_secrets
from .known import for_text
from .names import REDACTED_VALUE, credential_shaped, hunted, is_secret_key, names_no_value, names_secrets, vocabulary_token
from .text import find_in_text, payload_might_contain

__all__ = [
    "Hit", "scan", "redact", "learned", "leaf_strings", "distinct_key", "replaced_around", "outside_kept", "MAX_DEPTH"
]  # fmt: skip

Path = tuple[str | int, ...]  # dict keys and list indexes from the root to a value

# keys whose strings are identifiers or digests: their id-shaped strings are searched for token shapes, not for
# randomness. Each is a word of the key (``content_hash``, ``shaDigest``), never a piece of one: ``sha`` inside
# ``shared_key`` made a random credential there an id, written in clear
_ID_WORDS = frozenset({"hash", "hashes", "digest", "fingerprint", "checksum", "etag", "sha", "sha1", "sha256", "sha512"})
_ID_ENDINGS = frozenset({"commit", "revision", "rev"})  # SWE-bench's ``base_commit``, ``environment_setup_commit``
# keys naming a digest or a git object (``md5``, ``content_md5``, git's ``tree`` and ``parent``) whose value is kept
# only when it is one: a digest's hex digits (32, 40, 64 or 128), its base64 (Content-MD5's 24 characters, 28, 44, 88),
# as HTTP quotes it or not (``W/"<md5>"``). Any other word there is judged as anywhere: these words name no id
_DIGEST_WORDS = frozenset({"md5", "tree", "parent", "parents"})
_DIGEST_KEY_WORD = re.compile(r"[A-Z]?[a-z]+\d*|[A-Z]+\d*(?![a-z])|\d+")  # a word with its digits: ``md5``, ``Md5``
_DIGEST_VALUE = re.compile(
    r'(?:W/)?(?P<q>"?)(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[0-9a-fA-F]{128}'
    r"|[A-Za-z0-9+/]{22}==|[A-Za-z0-9+/]{27}=|[A-Za-z0-9+/]{43}=|[A-Za-z0-9+/]{86}==)(?P=q)"
)
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
# words naming what a key holds as a secret, whatever id word stands beside them: ``session_id``, ``csrf_id``,
# ``webhook_id``, ``shared_key``, ``hash_key`` (a key ending in ``key``), ``api_key_id``
_SECRET_HOLDERS = frozenset({"session", "sessions", "csrf", "xsrf", "webhook", "webhooks", "nonce", "secret", "token"})
_KEY_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WHITESPACE = re.compile(r"\s")
_MYSQL = frozenset({"mysql", "mysqldump", "mysqladmin", "mariadb", "mariadb-dump", "mysqlimport", "mysqlshow"})
_CURL_USER = frozenset({"-u", "--user", "-U", "--proxy-user"})
# commands given a password by a flag of their own: ``docker login -p``, ``redis-cli -a``, ``zip -P``, ``openssl enc -k``
_OWN_FLAG = {
    "docker": ("-p",), "podman": ("-p",), "nerdctl": ("-p",), "redis-cli": ("-a", "--pass"), "zip": ("-P",),
    "unzip": ("-P",), "openssl": ("-k",),
}  # fmt: skip
_LOGINS = frozenset({"docker", "podman", "nerdctl"})  # ... at their ``login``, also attached (``-pSECRET``)
# ... and any tool's ``login`` (``helm registry login``, ``skopeo login``, ``oras login``) by ``-p``/``--password``; the
# mongo tools (``mongo``, ``mongodump``, ``mongorestore``…) and ``twine`` by theirs; ``gh secret set NAME --body X``
_LOGIN_FLAGS = frozenset({"-p", "--password"})
_GH_BODY = frozenset({"-b", "--body"})
_OPENSSL_PASS = frozenset({"-pass", "-passin", "-passout", "-password"})  # ``-passin pass:SECRET``


@dataclass(frozen=True)
class Hit:
    """A secret at ``path``: the whole leaf (``whole``) or the given substrings of a string leaf, or of
    the dict key that ends ``path`` (``key``)."""

    path: Path
    values: tuple[str, ...]
    whole: bool
    key: bool = False


@lru_cache(maxsize=4096)
def _opaque(key: Any) -> bool:
    """Whether ``key`` names an id or a digest (``id``, ``run_id``, ``requestId``, ``content_hash``, ``base_commit``),
    read word by word (snake, camel and kebab case), and names no secret: a key naming one (``session_id``,
    ``shared_key``, ``api_key_id``) wins over an id word in it."""
    if not isinstance(key, str):
        return False
    if key.lower() in _ID_KEYS:
        return True
    words = [w.lower() for w in _KEY_WORD.findall(key)]
    if not words or words[-1] == "key" or ("api" in words and "key" in words) or not _SECRET_HOLDERS.isdisjoint(words):
        return False
    return words[-1] in ("id", "ids") or words[-1] in _ID_ENDINGS or not _ID_WORDS.isdisjoint(words)


@lru_cache(maxsize=4096)
def _names_digest(key: Any) -> bool:
    """Whether ``key`` names a digest or a git object (``md5``, ``contentMd5``, ``tree``, ``parent``, ``ETag``), and no
    secret."""
    if not isinstance(key, str):
        return False
    if key.lower() == "etag":  # as HTTP spells it (``ETag``): ``etag`` itself names an id (``_ID_WORDS``)
        return True
    words = [w.lower() for w in _DIGEST_KEY_WORD.findall(key)]
    return bool(words) and not _DIGEST_WORDS.isdisjoint(words) and words[-1] != "key" and _SECRET_HOLDERS.isdisjoint(words)


def _is_digest(key: Any, value: Any) -> bool:
    """Whether ``value`` under ``key`` is a digest the key names (``{"md5": "<32 hex digits>"}``): public."""
    return type(value) is str and _names_digest(key) and _DIGEST_VALUE.fullmatch(value) is not None


def _id_shaped(value: str) -> bool:
    """Whether a string under an id-named key may be an id: one word. Prose there (``"leaked token <key>"`` under
    ``status``) is screened as any prose is, the randomness rule included."""
    return _WHITESPACE.search(value) is None


# containers nested deeper than this are not read: the value there is redacted whole (a crafted run's JSON may nest
# 1,000 deep, which the recursive walk could not read: the frame failed with a RecursionError)
MAX_DEPTH = 200


def leaf_strings(value: Any, depth: int = 0) -> tuple[str, ...]:
    """The strings inside ``value`` (numbers of 6+ digits as text): what a whole secret leaves to hunt for (those
    nested past ``MAX_DEPTH`` are not read)."""
    if depth > MAX_DEPTH:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, bool) or value is None:
        return ()
    if isinstance(value, (int, float)):
        text = str(value)
        return (text,) if len(text) >= 6 else ()
    if isinstance(value, Mapping):
        return tuple(s for v in value.values() for s in leaf_strings(v, depth + 1))
    if isinstance(value, (list, tuple)):
        return tuple(s for v in value for s in leaf_strings(v, depth + 1))
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
        if prog == "vault" and i == 2 and items[1] == "login" and isinstance(item, str) and _credential_like(item):
            if "=" not in item and not item.startswith("-"):  # ``vault login X``: the token itself
                hits[i] = Hit(path + (i,), (item,), True)
                continue
        if not isinstance(item, str) or not item.startswith("-") or item in {"-", "--"}:
            continue
        name, eq, value = item.lstrip("-").partition("=")
        if item in _OWN_FLAG.get(prog, ()) and nxt and (prog not in _LOGINS or "login" in items[:i]):
            hits[i + 1] = Hit(path + (i + 1,), (nxt,), True)
        elif item in _LOGIN_FLAGS and nxt and ("login" in items[1:i] or prog.startswith("mongo") or prog == "twine"):
            hits[i + 1] = Hit(path + (i + 1,), (nxt,), True)
        elif prog == "gh" and item in _GH_BODY and nxt and items[1:3] == ["secret", "set"]:
            hits[i + 1] = Hit(path + (i + 1,), (nxt,), True)
        elif prog in _LOGINS and item.startswith("-p") and len(item) > 2 and item[2] != "-" and "login" in items[:i]:
            hits[i] = Hit(path + (i,), (item[2:].lstrip("="),), False)
        elif item in _OPENSSL_PASS and nxt and nxt.startswith("pass:") and len(nxt) > 5:
            hits[i + 1] = Hit(path + (i + 1,), (nxt[5:],), False)
        elif prog in _MYSQL and item.startswith("-p") and not item.startswith("--") and len(item) > 2:
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


def _whole(item: Any, path: Path, entropy: bool) -> Hit:
    """The value of a secret-looking name: all its strings, and what is inside them (the token of
    "Bearer <token>", a URL's password) to hunt elsewhere."""
    whole = leaf_strings(item)
    inner = tuple(v for text in whole for v in find_in_text(text, entropy=entropy) if v != text)
    return Hit(path, whole + inner, True)


def _hidden(value: Any) -> bool:
    return value is None or value == REDACTED_VALUE


def _secret_named(key: str, item: Any) -> bool:
    """Whether ``key`` names its value a secret (``password``, ``api_keys``), or a set of secrets by what each is for:
    ``{"tokens": {"ci": X}}`` (a mapping of credential-shaped texts only: ``{"tokens": {"input": 10}}`` counts them,
    ``{"tokens": {"bos": "<s>"}}`` names a tokenizer's, and a model's tokens come in a list)."""
    if is_secret_key(key):
        return True
    if type(item) is not dict or not item or not names_secrets(key):
        return False
    # each value shaped as a credential: a tokenizer's special tokens (``{"bos": "<s>"}``) are no secrets
    return all(type(v) is str and credential_shaped(v) for v in item.values())


def _no_secret(key: str, item: Any, holder: Mapping[Any, Any]) -> bool:
    """Whether the value of a secret-looking key holds no secret: none, a flag (``"contains_password": false``), a
    word that stands for none (``"auth": "required"``), or a model's token
    (``{"token": " Paris", "logprob": -0.1}``).
    Its strings are still searched as any other text is."""
    if _hidden(item) or isinstance(item, bool):
        return True
    if isinstance(item, str) and names_no_value(item):
        return True
    return vocabulary_token(key, item, holder)


_NAME_KEYS = ("name", "key", "Name", "Key", "header", "Header", "ParameterKey", "OptionName")
_VALUE_KEYS = {"Name": "Value", "Key": "Value", "Header": "Value", "ParameterKey": "ParameterValue", "OptionName": "Value"}


def _named_value(value: Mapping[Any, Any]) -> Any:
    """The key holding the value of a ``{"name"|"key": <secret-looking name>, "value": …}`` entry (also as
    AWS spells it: ``Name``/``Key``/``ParameterKey`` with ``Value``/``ParameterValue``), else None."""
    if "value" not in value and "Value" not in value and "ParameterValue" not in value:
        return None
    for key in _NAME_KEYS:
        name = value.get(key)
        if name is None:
            continue
        slot = _VALUE_KEYS.get(key, "value")
        if slot in value and isinstance(name, str) and is_secret_key(name) and not _hidden(value[slot]):
            return slot
        return None
    return None


# keys whose lists name fields or are command lines rather than a name and its value: ``{"required":
# ["password", "email"]}`` is a schema, ``{"argv": ["passwd", "alice"]}`` a command (argv has its own rules)
_NAMES_KEYS = frozenset(
    {"required", "enum", "fields", "columns", "names", "keys", "order", "select", "include", "exclude", "loc", "path"}
    | {"argv", "args", "cmd", "command", "cmdline", "command_line", "commandline", "entrypoint", "exec"}
)


def _pair_hit(items: list[Any], path: Path) -> bool:
    """A ``[name, value]`` pair whose name is secret-looking: inside a list (headers, env), or the value of a
    dict key (``{"auth": ("password", "…")}``), unless that key names a list of field names."""
    return (
        len(items) == 2
        and bool(path)
        and (isinstance(path[-1], int) or (isinstance(path[-1], str) and path[-1].lower() not in _NAMES_KEYS))
        and isinstance(items[0], str)
        and is_secret_key(items[0])
        and not _hidden(items[1])
    )


def shaped(text: str) -> set[str]:
    """What the shape and name rules find, without the randomness rule (joined pieces: two ids side by side read as
    one random word)."""
    return find_in_text(text, entropy=False)


def _walk(value: Any, path: Path, entropy: bool, out: list[Hit], ids: bool = False) -> None:
    """Append the secrets in ``value`` to ``out``; ``ids``: under an id-named key (``_opaque``), where a one-word
    string is judged without the randomness rule."""
    if len(path) >= MAX_DEPTH and isinstance(value, (Mapping, list, tuple)):  # too deep to read: redacted whole
        out.append(Hit(path, (), True))
        return
    if len(path) < MAX_DEPTH and type(value) in (dict, list, tuple) and len(value) >= _BIG and _cleared(value, len(path)):
        return
    if isinstance(value, str):
        if type(value) is not str:
            raise _NotExact
        found = find_in_text(value, entropy=entropy and not (ids and _id_shaped(value)))
        if found and ids and _DIGEST_VALUE.fullmatch(value) is not None:  # a base64 digest's padding, read as a short
            found = {f for f in found if f.strip("=")}  # value of a name inside it (``…0Pw==``: ``Pw`` and ``=``)
        if found:
            out.append(Hit(path, tuple(sorted(found, key=len, reverse=True)), False))
    elif isinstance(value, Mapping):
        if type(value) is not dict and isinstance(value, dict):
            raise _NotExact
        named = _named_value(value)
        for key, item in value.items():
            if isinstance(key, str):  # a secret used as a name: a token as a dict key
                if type(key) is not str:
                    raise _NotExact
                in_key = find_in_text(key, entropy=entropy and not (ids and _id_shaped(key)))
                if in_key:
                    out.append(Hit(path + (key,), tuple(sorted(in_key, key=len, reverse=True)), False, key=True))
            if key == named or (isinstance(key, str) and _secret_named(key, item) and not _no_secret(key, item, value)):
                out.append(_whole(item, path + (key,), entropy and not ids))
            else:
                _walk(item, path + (key,), entropy, out, ids or _opaque(key) or _is_digest(key, item))
    elif isinstance(value, (list, tuple)):
        if type(value) is not list and type(value) is not tuple:
            raise _NotExact
        items = list(value)
        positional = _argv_hits(items, path) if any(isinstance(v, str) for v in items) else {}
        if _pair_hit(items, path):
            positional[1] = _whole(items[1], path + (1,), entropy and not ids)
        out.extend(positional.values())
        if len(items) > 1 and any(isinstance(v, str) for v in items[1:]):  # a secret split across adjacent strings
            for i, (values, whole) in split_secrets(items, shaped).items():
                out.append(Hit(path + (i,), tuple(sorted(values, key=len, reverse=True)), whole))
        chunks = chunk_texts(items) if len(items) > 1 else None
        if chunks is not None:  # or across the texts of streamed chunk records
            texts = [c[1] if c is not None else None for c in chunks]
            for i, (values, whole) in split_secrets(texts, shaped).items():
                where = chunks[i]
                if where is not None:
                    out.append(Hit(path + (i, *where[0]), tuple(sorted(values, key=len, reverse=True)), whole))
        for i, item in enumerate(items):
            if not (i in positional and positional[i].whole):
                _walk(item, path + (i,), entropy, out, ids)


def learned(hits: Iterable[Hit]) -> Iterator[str]:
    """The values of ``hits`` to hunt in the run's other texts (``names.hunted``): not a well-known default, nor a
    word of the field's name that gave it (``{"POSTGRES_PASSWORD": "postgres"}`` is redacted there, and only there)."""
    for hit in hits:
        name = hit.path[-1] if hit.whole and hit.path and isinstance(hit.path[-1], str) else ""
        yield from (v for v in hit.values if hunted(v, name))


class _NotExact(Exception):
    """A ``str``, ``dict``, ``list`` or ``tuple`` subclass met by ``_walk``: its own methods may hide what it holds."""


def scan(value: Any, *, entropy: bool = True) -> list[Hit]:
    """Every secret in ``value`` (a str, or JSON-like data)."""
    return _scanned(value, entropy)[1]


def _scanned(value: Any, entropy: bool) -> tuple[Any, list[Hit]]:
    """``(value, its hits)``; a value holding a subclass (``_NotExact``) is read, and given back, as the JSON
    writers read it (``exact_all``): the hits' paths are in that copy. Exact data pays one type test a node."""
    out: list[Hit] = []
    try:
        _walk(value, (), entropy, out)
    except _NotExact:
        value, out = exact_all(value), []
        _walk(value, (), entropy, out)
    return value, out


# a container of this many items is first judged whole by the event screen's prefilter (``_cleared``)
_BIG = 32


def _cleared(value: Any, depth: int) -> bool:
    """Whether the event screen's prefilter (``payload_might_contain``, over the JSON text at memory speed) clears a
    dict, list or tuple of exact types, ``depth`` deep in what is walked, nested less than ``MAX_DEPTH`` deep: no
    detector finds anything in it, and the walk, which reads each string and key by itself, is skipped there. It is
    judged as the value of a key of no meaning (the walk finds no more in it where it stands than there), so its own
    keys are judged in its JSON text at once, not one by one (thousands of distinct keys overran their verdicts' memo)."""
    if not _plain(value, MAX_DEPTH - 2 - depth):
        return False
    payload = {"": value}
    try:
        blob = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # (an object no JSON holds: the walk reads what it can)
        return False
    # (a text JSON escapes is read by the walk: the prefilter misses a URL's password holding a quote, ``\"`` there)
    return blob.find(b"\\") < 0 and not payload_might_contain(payload, blob)


def _plain(value: Any, levels: int) -> bool:
    """Whether ``value`` holds no subclass of ``str``, ``dict``, ``list`` or ``tuple`` (its own methods may hide what
    it holds), nor containers nested ``levels`` deep (past ``MAX_DEPTH`` a container is redacted whole: a change the
    prefilter does not see)."""
    level, depth = [value], 0
    while level:
        depth += 1
        if depth > levels:
            return False
        below: list[Any] = []
        for node in level:
            items = node.values() if type(node) is dict else node
            if type(node) is dict and not all(type(k) is str or not isinstance(k, str) for k in node):
                return False
            for item in items:
                kind = type(item)
                if kind is dict or kind is list or kind is tuple:
                    below.append(item)
                elif kind is not str and isinstance(item, (str, Mapping, list, tuple)):
                    return False
        level = below
    return True


def _replace(text: str, values: Iterable[str]) -> str:
    """``text`` with every value replaced, in one pass however many there are (``known``)."""
    return for_text(text, values).replaced(text, REDACTED_VALUE)


def distinct_key(out: Mapping[Any, Any], name: str) -> str:
    """``name`` (a key with its secrets redacted) made distinct from the keys already in ``out``: two keys
    redacted to the same text keep both their values."""
    key, n = name, 1
    while key in out:
        n += 1
        key = f"{name} #{n}"
    return key


def _apply(value: Any, path: Path, whole: set[Path], parts: dict[Path, list[str]], keys: dict[Path, list[str]], keep: str) -> Any:
    if path in whole:
        return REDACTED_VALUE
    if isinstance(value, str):
        return replaced_around(value, parts[path], (keep,)) if path in parts else value
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            item = _apply(v, path + (k,), whole, parts, keys, keep)
            name = replaced_around(k, keys[path + (k,)], (keep,)) if path + (k,) in keys else k
            out[distinct_key(out, name) if name in out else name] = item
        return out
    if isinstance(value, (list, tuple)):
        return [_apply(v, path + (i,), whole, parts, keys, keep) for i, v in enumerate(value)]
    return value


def redact(value: Any, *, entropy: bool = True, keep: str = "") -> tuple[Any, list[Hit]]:
    """``(copy of value with every secret replaced by "[REDACTED]", the hits)``; ``value`` itself is unchanged.

    ``keep``: a public word kept whole wherever it stands as itself (a run's own id, its folder's name: on disk in
    clear). A value found inside it is no secret there; a value that runs on past it (the id the head of a longer
    key) is replaced with it, as without ``keep``. Whole leaves a secret's name marks are replaced all the same."""
    value, hits = _scanned(value, entropy)
    if keep and hits:
        hits = [h for h in (_outside(value, h, keep) for h in hits) if h is not None]
    if not hits:
        return value, hits
    whole = {h.path for h in hits if h.whole}
    parts: dict[Path, list[str]] = {}
    keys: dict[Path, list[str]] = {}
    for h in hits:
        if not h.whole:
            (keys if h.key else parts).setdefault(h.path, []).extend(h.values)
    return _apply(value, (), whole, parts, keys, keep), hits


def _outside(value: Any, hit: Hit, keep: str) -> Hit | None:
    """``hit`` without the values that stand only inside the occurrences of ``keep`` it keeps (``kept_spans``);
    None when none is left."""
    if hit.whole:
        return hit
    text = _leaf(value, hit.path, hit.key)
    if not isinstance(text, str) or keep not in text:
        return hit
    values = outside_kept(text, hit.values, (keep,))
    if not values:
        return None
    return hit if len(values) == len(hit.values) else Hit(hit.path, tuple(values), hit.whole, hit.key)


def _leaf(value: Any, path: Path, key: bool) -> Any:
    """The string at ``path`` in ``value`` (the dict key that ends it, for a ``key`` hit)."""
    if key:
        return path[-1] if path else None
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _occurrences(text: str, word: str) -> list[int]:
    out, at = [], text.find(word)
    while at >= 0:
        out.append(at)
        at = text.find(word, at + 1)
    return out


def kept_spans(text: str, values: Iterable[str], keep: Iterable[str]) -> list[tuple[int, int]]:
    """Where a word of ``keep`` stands in ``text`` as itself, in order, none overlapping: no occurrence of one of
    ``values`` runs over its edge (part in it, part beside it: the word is then the head or tail of a longer
    secret, replaced whole)."""
    found = [(v, _occurrences(text, v)) for v in values]
    spans = [(a, a + len(v)) for v, ats in found for a in ats]
    out: list[tuple[int, int]] = []
    for word in keep:
        for k in _occurrences(text, word) if word else ():
            end = k + len(word)
            if not any(s < end and e > k and (s < k or e > end) for s, e in spans):
                out.append((k, end))
    kept, last = [], -1
    for k, end in sorted(out, key=lambda span: (span[0], -span[1])):
        if k >= last:  # overlapping occurrences: the first (the longest there) is kept
            kept.append((k, end))
            last = end
    return kept


def outside_kept(text: str, values: Iterable[str], keep: Iterable[str]) -> list[str]:
    """The ``values`` that stand in ``text`` somewhere else than inside the words of ``keep`` (``kept_spans``)."""
    keep = [word for word in keep if word and word in text]
    values = list(values)
    if not keep:
        return values
    spans = kept_spans(text, values, keep)
    return [v for v in values if any(not any(k <= a and a + len(v) <= e for k, e in spans) for a in _occurrences(text, v))]


def replaced_around(text: str, values: Iterable[str], keep: Iterable[str]) -> str:
    """``text`` with ``values`` replaced by ``[REDACTED]``, the words of ``keep`` that stand as themselves in it
    (``kept_spans``) left whole."""
    keep = [word for word in keep if word and word in text]
    values = list(values)
    spans = kept_spans(text, values, keep) if keep else []
    if not spans:
        return _replace(text, values)
    out, start = [], 0
    for k, end in spans:
        out += [_replace(text[start:k], values), text[k:end]]
        start = end
    out.append(_replace(text[start:], values))
    return "".join(out)
