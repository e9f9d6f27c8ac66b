"""Reading one file a remote listing named: its bytes, or ``BadFile`` saying why not (never "absent").

A file the listing named that then answers 404 (an expired link, a permission on that one object), 403, 500, or a
connection dropped mid-body is a file whose contents are unknown: read as absent it would count as no events, 0
tokens, $0. A listing that gives no size (a stock http server's index page) leaves the size unknown: it is taken from
the server's answer (HEAD's Content-Length), or counted while reading, never taken as 0. A run document past
``MAX_DOCUMENT_BYTES`` is refused before its body is downloaded, as on disk.
"""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime
from typing import Any

from ..secrets.names import REDACTED_VALUE
from ..secrets.quoted import quoted_text
from ..store.runfiles import MAX_DOCUMENT_BYTES
from ..store.runfiles import UnreadableRunFile as BadFile
from ..store.runfiles import _too_large as too_large

__all__ = ["fetch", "described", "unreadable", "UNSIZED", "SETTLED_S"]

#: the size stated for a listed file the server will neither size nor serve (no size, and no plausible one)
UNSIZED = -2

_CHUNK = 1 << 20

#: how old a Last-Modified (whole seconds, the server's clock) must be to prove a file unchanged since it was read
SETTLED_S = 3.0


def unreadable(url: str, exc: BaseException) -> BadFile:
    """The problem of a listed file whose read failed: the HTTP status (or the error) and what to check."""
    cause: BaseException | None = exc
    while cause is not None and type(getattr(cause, "status", None)) is not int:
        cause = cause.__cause__ or cause.__context__  # fsspec's info() says FileNotFoundError for any refusal
    status = getattr(cause, "status", None)
    if cause is not None and status != 404:
        exc = cause
    if isinstance(exc, FileNotFoundError) or status == 404:
        why = "the server answered 404 Not Found"
    elif type(status) is int:
        message = getattr(exc, "message", "") or ""
        why = f"the server answered HTTP {status}" + (f" {quoted_text(str(message), 80)}" if message else "")
    else:
        text = str(exc).split("?", 1)[0] if "://" in str(exc) else str(exc)  # a URL's query may hold a signature
        why = f"{type(exc).__name__}: {quoted_text(text.replace(REDACTED_VALUE, '…'), 200)}"
    return BadFile(
        url,
        f"listed by the source, but reading it failed ({why}); its contents are unknown, not empty: check that the "
        "link has not expired, that the credentials may read this file and that the server is up, then load again",
    )


def described(fs: Any, path: str, url: str) -> tuple[int | None, str | None]:
    """(size, what proves the file unchanged) as the server gives them for ``path``: HEAD's Content-Length, and its
    ETag or a Last-Modified older than ``SETTLED_S`` (None when it gives neither: nothing proves the bytes the same).

    A Last-Modified says whole seconds: a file rewritten within the second it was read keeps it, so one that recent
    proves nothing yet."""
    failed: Exception | None = None
    try:
        info = fs.info(path)
    except Exception as exc:  # the storage library's own (aiohttp's ClientResponseError, …)
        failed = exc
    if failed is not None:  # raised outside the handler: no chained error carries the URL's query string
        raise unreadable(url, failed)
    size = info.get("size")
    key = info.get("ETag") or info.get("LastModified") or info.get("mtime")
    if key is None and (modified := info.get("Last-Modified")):
        try:
            when = parsedate_to_datetime(str(modified)).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            when = None
        if when is not None and when < time.time() - SETTLED_S:
            key = f"{modified} {info.get('Content-MD5') or info.get('Digest') or ''}".strip()
    elif key is None and (digest := info.get("Content-MD5") or info.get("Digest")):
        key = digest
    return (size if type(size) is int and size >= 0 else None), (None if key is None else str(key))


def fetch(fs: Any, path: str, url: str, size: int | None) -> bytes:
    """The bytes of ``path`` (``size``: as listed, None when not known); ``BadFile`` when it cannot be read whole or
    is a run document too large to read (decided from the size before downloading, or after ``MAX_DOCUMENT_BYTES``
    + 1 bytes of a body whose size no one said)."""
    if size is not None and (why := too_large(path, size)):
        raise BadFile(url, why)
    limit = MAX_DOCUMENT_BYTES if path.endswith(".json") else None
    failed: Exception | None = None
    try:
        if size is None and limit is not None:
            data = _read_at_most(fs, path, limit + 1)
        else:
            data = fs.cat_file(path)
    except BadFile:
        raise
    except Exception as exc:
        failed = exc
    if failed is not None:  # raised outside the handler: no chained error carries the URL's query string
        raise unreadable(url, failed)
    if limit is not None and len(data) > limit:
        raise BadFile(url, f"more than {too_large(path, len(data))} (its size unsaid, the read stopped there)")
    return bytes(data)


def _read_at_most(fs: Any, path: str, most: int) -> bytes:
    """At most ``most`` bytes of ``path``, streamed (never the whole body of a file larger than that)."""
    parts: list[bytes] = []
    got = 0
    with fs.open(path, "rb", block_size=0) as fh:
        while got < most:
            chunk = fh.read(min(_CHUNK, most - got))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
    return b"".join(parts)
