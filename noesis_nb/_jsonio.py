"""JSON encoding and crash-safe file writes shared by every writer in the package.

Events are serialised the way newer Noēsis writers do (sorted keys, compact separators,
raw UTF-8); JSON documents are written to a temp file and renamed so a crash never leaves a
half-written document; ``canonical_json`` is the byte form fingerprints are computed over.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import json
import os
import sys
import uuid
from datetime import date, datetime
from datetime import time as dt_time
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

from ._safetext import safe_repr
from .errors import RunWriteError, refused_write

__all__ = [
    "as_object",
    "atomic_write_json",
    "atomic_write_bytes",
    "canonical_json",
    "temp_stem",
    "dumps_line",
    "loads",
    "sha256_bytes",
    "sha256_file",
    "to_jsonable",
    "bounded_jsonable",
]

_LINE_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS
_REPR_LIMIT = 100_000  # characters of an object's repr kept in its place (a repr is a stand-in, not data)


def as_object(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object (a dict), else ``{}``: run files are untrusted, any field may be anything."""
    return value if isinstance(value, dict) else {}


def to_jsonable(value: Any) -> Any:
    """Return ``value`` as plain JSON data; anything unserialisable becomes its ``repr``.

    Adapter results and tool outputs are user objects: storing their repr keeps the run
    intact instead of crashing it. Only the parts JSON cannot hold are replaced (an int beyond
    64 bits, a cycle, an object without a JSON form): a dict stays an object and a list a list, so
    an event's payload is always an object.
    """
    try:
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY, default=_default))
    except (TypeError, orjson.JSONEncodeError):
        return _piecewise(value, ())


def _piecewise(value: Any, path: tuple[int, ...]) -> Any:
    """``to_jsonable`` one container level at a time, for a value orjson refused as a whole."""
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        if id(value) in path:
            return "<cycle>"
        if len(path) >= 32:  # nesting deeper than anyone reads: kept as text
            return _deep_repr(value)
        inner = (*path, id(value))
        try:
            if isinstance(value, dict):
                return {
                    _text(k) if isinstance(k, str) else safe_repr(k, _REPR_LIMIT): _piecewise(v, inner) for k, v in value.items()
                }
            return [_piecewise(v, inner) for v in value]
        except RecursionError:
            raise
        except Exception:  # a subclass whose items() or iteration raises: kept as its (bounded) repr
            return safe_repr(value, _REPR_LIMIT)
    if isinstance(value, str):
        return _text(value)
    try:
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY, default=_default))
    except (TypeError, orjson.JSONEncodeError):
        return safe_repr(value, _REPR_LIMIT)


def _text(value: str) -> str:
    """Text as UTF-8 can hold it: a lone surrogate (no character; ``"\\ud800"`` from a JSON escape or a
    ``surrogateescape`` decode) is kept as its escape, ``\\ud800``, the rest unchanged."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")


def _deep_repr(value: Any) -> str:
    """``repr`` of a container nested past the JSON levels kept; one too deep even for ``repr`` is named instead."""
    try:
        return repr(value)
    except RecursionError:
        return f"<{type(value).__name__} nested too deeply to store (over {sys.getrecursionlimit()} levels)>"
    except Exception:
        return safe_repr(value, _REPR_LIMIT)


def bounded_jsonable(value: Any, limit: int) -> Any:
    """``to_jsonable(value)`` when its JSON text has at most ``limit`` characters; else that text's start and
    ``… [cut: …]``. A long str or a long list/tuple/dict is cut before it is converted, so a 200 MB result
    costs a slice, not a copy, a scan and a write of all of it."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}… [cut: {len(value)} characters]"
    head = value
    try:
        if isinstance(value, (list, tuple)) and len(value) > limit // 2:  # each item takes 2+ characters
            head = list(value[: limit // 2])
        elif isinstance(value, dict) and len(value) > limit // 6:  # each entry takes 6+ ('"":0,')
            head = dict(itertools.islice(value.items(), limit // 6))
    except Exception:  # a subclass lying about its length or items
        head = safe_repr(value, limit)
    data = to_jsonable(head)
    text = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    if head is value and len(text) <= limit:
        return data
    return f"{text[:limit].decode('utf-8', 'ignore')}… [cut: the value is longer than {limit} characters as JSON]"


def _default(obj: Any) -> Any:
    try:
        return _convert(obj)
    except Exception:
        return safe_repr(obj, _REPR_LIMIT)


def _convert(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if isinstance(obj, (datetime, date, dt_time)):  # a subclass (pandas.Timestamp) orjson leaves to us
        return obj.isoformat()
    if isinstance(obj, Decimal):  # exact, as text ("1.10"), not "Decimal('1.10')"
        return str(obj)
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, bytes):
        return obj.decode("utf-8", "replace")
    return safe_repr(obj, _REPR_LIMIT)


def dumps_line(record: dict[str, Any]) -> bytes:
    """One event line: sorted keys, compact, raw UTF-8, trailing newline.

    Values JSON cannot hold are stored as their repr; when that happens the record's ``payload``
    is replaced by what was written, so the in-memory event always equals the line on disk.
    """
    try:
        return orjson.dumps(record, option=_LINE_OPTS)
    except (TypeError, orjson.JSONEncodeError):
        if "payload" in record:
            record["payload"] = to_jsonable(record["payload"])
        return orjson.dumps(record, option=_LINE_OPTS, default=_default)


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


def canonical_json(value: Any) -> bytes:
    """Noēsis ``canonical_json``: sorted keys, ``(",", ":")``, no ASCII escaping, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


#: what ``os.replace`` says when a folder stands where a file goes (empty or not)
_FOLDER_IN_PLACE = frozenset(code for code in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST) if code)
_FOLDER_ADVICE = "move that folder out of the run (it is not part of the run; a document is written only as a file) and try again"


#: a temp document: created exclusively, never through a link, with the event log's mode (0644 less the
#: process's umask at that moment; ``mkstemp`` would make 0600, unreadable to the accounts reading a shared root)
_TEMP_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


def temp_stem(name: str) -> str:
    """``name`` as the middle of a temp file's name beside it: whole when short, else its head and a digest of it,
    so ``.<stem>.<random>.tmp`` stays within the 255 bytes a file name may take while ``name`` itself fits."""
    if len(name) <= _STEM_MAX:
        return name
    return f"{name[:96]}~{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


_STEM_MAX = 120


def _temp_for(path: Path) -> tuple[int, str]:
    """(descriptor, name) of a new temp file beside ``path``; a name taken already is tried again."""
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{temp_stem(path.name)}.{uuid.uuid4().hex[:12]}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o644), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp name beside it", str(path))


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory, then rename: whole or not at all
    (``RunWriteError`` when the file system refuses it: no room, read-only, no permission; the file keeps what it held).
    ``durable=False`` skips the fsync: still whole or not at all for a killed process (the page cache keeps it), not
    across a power loss (a write nothing waits on, superseded within the same breath)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _temp_for(path)
    except OSError as exc:
        if refused_write(exc):
            raise RunWriteError.of(path, exc) from None
        raise
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:  # gone, or its folder refuses now too: the refusal is what to say
            pass
        if refused_write(exc):  # the old document stays as it was; say so in one line
            raise RunWriteError.of(path, exc) from None  # type: ignore[arg-type]
        if isinstance(exc, IsADirectoryError) or (isinstance(exc, OSError) and exc.errno in _FOLDER_IN_PLACE):
            # a crafted run put a folder where a document goes: name it, never a bare "[Errno 21]"
            raise RunWriteError(path, exc.errno, "a directory is in its place", _FOLDER_ADVICE) from None
        raise


def atomic_write_json(path: Path, value: Any, *, indent: bool = True, durable: bool = True) -> None:
    """Write a JSON document atomically (pretty, sorted keys, like Noēsis' artifacts); ``durable``: see
    ``atomic_write_bytes``."""
    option = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
    if indent:
        option |= orjson.OPT_INDENT_2
    try:
        data = orjson.dumps(value, option=option, default=_default)
    except (TypeError, orjson.JSONEncodeError):  # text UTF-8 cannot hold, an int past 64 bits …: as events do
        data = orjson.dumps(to_jsonable(value), option=option, default=_default)
    atomic_write_bytes(Path(path), data, durable=durable)
