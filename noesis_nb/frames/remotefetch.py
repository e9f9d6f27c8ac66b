"""Reading one file a remote listing named: its bytes, or ``BadFile`` saying why not (never "absent").

A file the listing named that then answers 404 (an expired link, a permission on that one object), 403, 500, or a
connection dropped mid-body is a file whose contents are unknown: read as absent it would count as no events, 0
tokens, $0. A listing that gives no size (a stock http server's index page) leaves the size unknown: it is taken from
the server's answer (HEAD's Content-Length), or counted while reading, never taken as 0. A run document past
``MAX_DOCUMENT_BYTES`` is refused before its body is downloaded, as on disk; any other file (an event log) past
``MAX_REMOTE_BYTES``, by the size said or, unsaid or lying, by the bytes read, is refused too (never read whole into
memory). Every request of an http(s) source waits at most ``IDLE_S`` (or ``$NOESIS_NB_REMOTE_TIMEOUT_S`` when less) to
connect or between two reads, and an index page or a HEAD at most ``$NOESIS_NB_REMOTE_TIMEOUT_S`` (``TIMEOUT_S``) in
all: a server that accepts and never answers, or trickles, is a problem naming the file, never a frozen cell. A file
body's total limit grows with its bytes: ``$NOESIS_NB_REMOTE_TIMEOUT_S`` plus one second per ``SLOWEST_BYTES_PER_S``
(a 1 GiB log at a steady 5 MB/s takes 200 s and is read; a server sending a byte every few seconds, never idle long
enough for the idle limit, is stopped once it falls behind that pace). A file's request follows a move only as an
index page's does (``webmoves``): on its own server, 5 moves at most; any other is a problem naming where it led.
"""

from __future__ import annotations

import asyncio
import os
import time
from email.utils import parsedate_to_datetime
from typing import Any

from .._envvars import REMOTE_TIMEOUT_ENV
from ..errors import InvalidOptionError
from ..secrets.names import REDACTED_VALUE
from ..secrets.quoted import quoted_text
from ..store.runfiles import MAX_DOCUMENT_BYTES
from ..store.runfiles import UnreadableRunFile as BadFile
from ..store.runfiles import _too_large as too_large
from .webmoves import MoveRefused, guard

__all__ = [
    "fetch",
    "described",
    "unreadable",
    "with_timeout",
    "whole_within",
    "timed_out",
    "timed_out_said",
    "timeout_s",
    "UNSIZED",
    "SETTLED_S",
    "TIMEOUT_ENV",
    "TIMEOUT_S",
    "IDLE_S",
    "MAX_REMOTE_BYTES",
    "SLOWEST_BYTES_PER_S",
    "within_limit",
]

#: the environment variable giving the seconds one index page or HEAD may take in all
TIMEOUT_ENV = REMOTE_TIMEOUT_ENV
#: its default: seconds one index page or HEAD may take from request to last byte
TIMEOUT_S = 120.0
#: seconds to connect, or to wait between two reads of a body (at most the total)
IDLE_S = 30.0
#: the slowest average pace a file body may keep past its first ``timeout_s()`` seconds (bytes a second)
SLOWEST_BYTES_PER_S = 64 * 1024
#: bytes of one remote file other than a run document read at most (an event log); set it on this module to read more
MAX_REMOTE_BYTES = 1 << 30

#: the size stated for a listed file the server will neither size nor serve (no size, and no plausible one)
UNSIZED = -2

_CHUNK = 1 << 20

#: how old a Last-Modified (whole seconds, the server's clock) must be to prove a file unchanged since it was read
SETTLED_S = 3.0


def timeout_s() -> float:
    """``$NOESIS_NB_REMOTE_TIMEOUT_S`` as seconds (unset: ``TIMEOUT_S``); ``InvalidOptionError`` for no number > 0."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 86_400:
        raise InvalidOptionError(
            f"{TIMEOUT_ENV}={quoted_text(raw, 40)} is no number of seconds from above 0 to a day; set it to the seconds "
            f"one remote file may take (default {TIMEOUT_S:g}), or unset it"
        )
    return value


def with_timeout(options: dict[str, Any] | None) -> tuple[dict[str, Any], float | None]:
    """http(s) ``storage_options`` bounding every request (aiohttp's ``ClientTimeout``: connecting and each read within
    ``IDLE_S`` or ``timeout_s()`` when less; no total, which would refuse a large file on a slow steady link), and
    ``timeout_s()``, the total ``whole_within`` gives index pages and HEADs; a ``timeout`` the caller gave in
    ``client_kwargs`` is kept as given (seconds None: said as theirs). Every request follows a move only as
    ``webmoves`` allows (the same server, 5 moves at most)."""
    options = dict(options or {})
    client = dict(options.get("client_kwargs") or {})
    try:
        import aiohttp
    except ImportError:  # fsspec's http file system then says which package to install
        return options, None
    traces = list(client.get("trace_configs") or ())
    client["trace_configs"] = traces if guard() in traces else [*traces, guard()]  # moves as index pages take them
    if "timeout" in client:
        return {**options, "client_kwargs": client}, None
    total = timeout_s()
    idle = min(IDLE_S, total)
    client["timeout"] = aiohttp.ClientTimeout(total=None, connect=idle, sock_connect=idle, sock_read=idle)
    return {**options, "client_kwargs": client}, total


def whole_within(seconds: float | None) -> dict[str, Any]:
    """Request keywords bounding one short answer (an index page, a HEAD) to ``seconds`` in all, with the idle limits
    of ``with_timeout``; none when ``seconds`` is None (the caller's own ``timeout`` holds)."""
    if seconds is None:
        return {}
    import aiohttp

    idle = min(IDLE_S, seconds)
    return {"timeout": aiohttp.ClientTimeout(total=seconds, connect=idle, sock_connect=idle, sock_read=idle)}


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) is a request that ran out of time."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, (asyncio.TimeoutError, TimeoutError)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _refused_move(exc: BaseException) -> MoveRefused | None:
    """The ``MoveRefused`` ``exc`` is or wraps (fsspec says a HEAD it could not make a ``FileNotFoundError``)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None or isinstance(seen, MoveRefused):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def timed_out_said(url: str, seconds: float | None) -> str:
    """What a request that ran out of time says: how long, and what to do."""
    if seconds is None:
        within = "timed out (the client_kwargs timeout given)"
    elif (idle := min(IDLE_S, seconds)) < seconds:
        within = f"timed out after {seconds:g} s (or {idle:g} s without a byte)"
    else:
        within = f"timed out after {seconds:g} s"
    return (
        f"{within}: the server took the request but did not answer in time, or sent too slowly (a file's body "
        f"may take that plus a second per {SLOWEST_BYTES_PER_S:,} bytes); check that the "
        f"server is up, or give it more time ({TIMEOUT_ENV}=<seconds>, default {TIMEOUT_S:g})"
    )


def unreadable(url: str, exc: BaseException, seconds: float | None = None) -> BadFile:
    """The problem of a listed file whose read failed: the HTTP status (or the error) and what to check."""
    if (move := _refused_move(exc)) is not None:
        return BadFile(
            url,
            f"listed by the source, but reading it was refused ({move.why}); its contents are unknown: a file of an "
            "http(s) source is read on its own server only. Load the runs from where they are, or copy them there",
        )
    if timed_out(exc):
        return BadFile(url, f"listed by the source, but reading it {timed_out_said(url, seconds)}; its contents are unknown")
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


def described(fs: Any, path: str, url: str, seconds: float | None = None) -> tuple[int | None, str | None]:
    """(size, what proves the file unchanged) as the server gives them for ``path``: HEAD's Content-Length, and its
    ETag or a Last-Modified older than ``SETTLED_S`` (None when it gives neither: nothing proves the bytes the same).

    A Last-Modified says whole seconds: a file rewritten within the second it was read keeps it, so one that recent
    proves nothing yet."""
    failed: Exception | None = None
    try:
        info = _headed(fs, path, seconds)
    except Exception as exc:  # the storage library's own (aiohttp's ClientResponseError, …)
        failed = exc
    if failed is not None:  # raised outside the handler: no chained error carries the URL's query string
        raise unreadable(url, failed, seconds)
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


def _headed(fs: Any, path: str, seconds: float | None) -> dict[str, Any]:
    """fsspec's ``info`` of an http(s) ``path`` (a HEAD, or a GET when refused) within ``seconds`` in all; any other
    file system's (``seconds`` None: no limit of ours). ``fs.info(path, timeout=…)`` would hand ``timeout`` to
    fsspec's ``sync``, not to aiohttp."""
    limit = whole_within(seconds)  # seconds are given for http(s) sources only (``with_timeout``)
    if not limit:
        return dict(fs.info(path))
    from fsspec.asyn import sync

    async def head() -> dict[str, Any]:
        return dict(await fs._info(path, **limit))

    got: dict[str, Any] = sync(fs.loop, head)
    return got


def fetch(fs: Any, path: str, url: str, size: int | None, seconds: float | None = None) -> bytes:
    """The bytes of ``path`` (``size``: as listed, None when not known); ``BadFile`` when it cannot be read whole or
    is too large to read: a run document past ``MAX_DOCUMENT_BYTES``, any other file past ``MAX_REMOTE_BYTES``
    (decided from the size before downloading, or after one byte more than the limit of a body whose size no one
    said). ``seconds``: the request's time limit, as a timeout names it."""
    if size is not None and (why := too_large(path, size)):
        raise BadFile(url, why)
    document = path.endswith(".json")
    limit = MAX_DOCUMENT_BYTES if document else MAX_REMOTE_BYTES
    if size is not None and size > limit:
        raise BadFile(url, _past_limit(size, "its size said"))
    failed: Exception | None = None
    try:
        data = _read_at_most(fs, path, limit, seconds) if size is None else _read_whole(fs, path, size, seconds)
    except BadFile:
        raise
    except Exception as exc:
        failed = exc
    if failed is not None:  # raised outside the handler: no chained error carries the URL's query string
        raise unreadable(url, failed, seconds)
    if data is None or len(data) > limit:
        if document:
            raise BadFile(url, f"more than {too_large(path, limit + 1)} (its size unsaid, the read stopped there)")
        raise BadFile(url, _past_limit(limit, "its size unsaid, the read stopped there"))
    return data if type(data) is bytes else bytes(data)


def within_limit(size: int) -> bool:
    """Whether a remote file of ``size`` bytes other than a run document is read (``MAX_REMOTE_BYTES`` at most)."""
    return size <= MAX_REMOTE_BYTES


def _past_limit(size: int, how: str) -> str:
    """Why a remote file other than a run document is not read: its size past ``MAX_REMOTE_BYTES``, and the fix."""
    more = "" if how.startswith("its size said") else "more than "
    return (
        f"{more}{size:,} bytes ({how}), past the {MAX_REMOTE_BYTES:,} bytes a remote file is read at; not read. "
        "To read it, raise noesis_nb.frames.remotefetch.MAX_REMOTE_BYTES (memory permitting), or copy the run "
        "locally"
    )


def _allowed_s(seconds: float, size: int) -> float:
    """Seconds a body of ``size`` bytes may take in all: ``seconds``, plus its bytes at ``SLOWEST_BYTES_PER_S``."""
    return seconds + size / SLOWEST_BYTES_PER_S


def _read_whole(fs: Any, path: str, size: int, seconds: float | None) -> bytes:
    """The body of ``path`` whose size was said, within ``_allowed_s`` in all (``seconds`` None: the caller's own
    ``timeout`` or no limit of ours). ``fs.cat_file(path, timeout=…)`` would hand ``timeout`` to fsspec's ``sync``."""
    if seconds is None or not hasattr(fs, "_cat_file"):
        return bytes(fs.cat_file(path))
    import aiohttp
    from fsspec.asyn import sync

    idle = min(IDLE_S, seconds)
    limit = aiohttp.ClientTimeout(total=_allowed_s(seconds, size), connect=idle, sock_connect=idle, sock_read=idle)

    async def cat() -> bytes:
        return bytes(await fs._cat_file(path, timeout=limit))

    got: bytes = sync(fs.loop, cat)
    return got


def _read_at_most(fs: Any, path: str, most: int, seconds: float | None = None) -> bytes | None:
    """The bytes of ``path`` when they are at most ``most``, else None: streamed, and never more than ``most`` + 1
    held (the body of a file larger than that is neither read on nor joined). With ``seconds``, a body falling
    behind ``_allowed_s`` for the bytes it has sent raises ``TimeoutError`` (a trickle never idle for long)."""
    most += 1
    parts: list[bytes] = []
    got = 0
    began = time.monotonic()
    with fs.open(path, "rb", block_size=0) as fh:
        while got < most:
            chunk = fh.read(min(_CHUNK, most - got))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
            if seconds is not None and time.monotonic() - began > _allowed_s(seconds, got):
                raise TimeoutError(f"the body fell behind {SLOWEST_BYTES_PER_S:,} bytes a second")
    return None if got >= most else b"".join(parts)
