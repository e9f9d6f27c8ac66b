"""Reading run files from the local disk or through fsspec (``s3://…``), with the stat used as cache key.

``LocalFS`` is the hot path: plain ``os.open``/``fstat``/``os.read``, refusing what is not a file
of the run (``BadFile``: a directory, FIFO, unreadable file, or symlink out of the run).
``RemoteFS`` lists a whole root once (size
and modification time/ETag of every file), then fetches many files concurrently with ``fs.cat``.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qsl, quote, unquote

from ..errors import InvalidOptionError, MissingExtraError, RunNotFoundError, RunsDirError
from ..secrets.names import REDACTED_VALUE
from ..secrets.quoted import quoted, quoted_text
from ..secrets.urls import refuse_password
from ..store.runfiles import RACY_NS, change_stamp, list_dir, read_file, stamps_settled
from ..store.runfiles import UnreadableRunFile as BadFile
from ..store.runfiles import _too_large as too_large
from ..store.scan import MARKERS
from ..store.sealing import SEAL_FILES, SealState, read_seal_file, seal_state
from .remotefetch import UNSIZED, described, fetch, timed_out, timed_out_said, unreadable, with_timeout, within_limit
from .weblisting import walk

#: the schemes whose listing is an index page a server writes (its links decoded, kept inside the root)
_WEB = frozenset({"http", "https"})
#: names keys of files nothing proves unchanged: each differs from every other, so a warm load reads them again
_UNPROVEN = itertools.count()

__all__ = [
    "LocalFS",
    "RemoteFS",
    "RunFS",
    "open_remote",
    "shown_source",
    "prefetch_remote",
    "dir_stamp",
    "local_unchanged",
    "settled",
    "Stat",
    "BadFile",
    "UNREAD",
]

Stat = tuple[int, int, int, int, int] | tuple[int, str]  # ``change_stamp`` locally; (size, ETag/LastModified as text) remotely
_MARKERS = MARKERS  # the files one of which makes a folder a run, as the local scan reads them
#: a document its reader has not read yet (a caller that has passes what ``read_seal`` gave: bytes and stat, None, or
#: the ``BadFile`` it raised)
UNREAD: Any = object()


class LocalFS:
    """Files on this machine. Paths are plain strings."""

    protocol = "file"

    def join(self, base: str, *parts: str) -> str:
        if len(parts) == 1 and not base.endswith(os.sep):  # the common case, without posixpath's overhead
            return base + os.sep + parts[0]
        return os.path.join(base, *parts)

    def url(self, path: str) -> str:
        return path

    def read(self, path: str, within: str | None = None) -> tuple[bytes, Stat] | None:
        """Bytes and ``change_stamp`` of ``path``; None when it does not exist.

        ``BadFile`` when it is a directory, FIFO or device, unreadable, or a symlink leading out of
        ``within`` (the run directory): such a file is reported, never followed out of the run.
        """
        got = read_file(path, within)
        return None if got is None else (got[0], got[1])

    def read_tail(self, path: str, nbytes: int, within: str | None = None) -> tuple[bytes, Stat, bool] | None:
        """The last ``nbytes`` of ``path`` (whole file when smaller) and whether that is all of it."""
        return read_file(path, within, tail=nbytes)

    def read_seal(self, path: str) -> tuple[bytes, Stat] | None:
        """A seal document's bytes and ``change_stamp`` as ``seal_state`` counts it (``sealing.read_seal_file``):
        never through a link; ``UnreadableSealFile`` (a ``BadFile``) for anything but a regular file."""
        return read_seal_file(path)

    def seal_state(self, run: str) -> SealState:
        """``store.sealing.seal_state`` of the run: the one answer to whether it is sealed."""
        return seal_state(run)

    def stat(self, path: str) -> Stat | None:
        """``change_stamp`` of ``path``; of the link itself when it cannot be followed (a loop), so reading it reports why."""
        try:
            st: os.stat_result | None = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError:
            st = _link_stat(path)
        return None if st is None else change_stamp(st)

    def listdir(self, path: str, within: str | None = None) -> list[str]:
        """Names in a folder ([] when absent); ``BadFile`` for a file, a symlink out of ``within``, no permission."""
        return list_dir(path, within)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Nothing to do locally (remote file systems fetch concurrently here)."""

    def is_run_dir(self, path: str) -> bool:
        return any(os.path.isfile(os.path.join(path, m)) for m in _MARKERS)

    def isdir(self, path: str) -> bool:
        return os.path.isdir(path)


class RemoteFS:
    """An fsspec file system (S3 via s3fs, memory://, …). One listing gives every file's stat."""

    def __init__(self, fs: Any, protocol: str, timeout_s: float | None = None):
        self.fs = fs
        self.protocol = protocol
        self.timeout_s = timeout_s  # the seconds each request may take (http(s)), as a timeout names them
        self._info: dict[str, Stat] = {}
        self._dirs: dict[str, list[str]] = {}
        self._data: dict[str, bytes] = {}
        self._failed: dict[str, BadFile] = {}  # listed files the server would not even size
        self.refused: dict[str, str] = {}  # links of an http listing not followed (leaving the root): link -> why
        self.unlisted: dict[str, str] = {}  # folders of an http root whose index page gave no listing: folder -> why
        self.moved: dict[str, str] = {}  # roots of an http source whose page moved on its server: asked -> where found

    def join(self, base: str, *parts: str) -> str:
        return "/".join([base.rstrip("/"), *parts])

    def url(self, path: str) -> str:
        """The URL of ``path`` as fsspec opens it again (an http path holds its scheme already; memory's does not)."""
        return str(self.fs.unstrip_protocol(path))

    def scan(self, root: str) -> list[str]:
        """List every file under ``root`` once; return the run directories (one label level allowed).

        A root that lists nothing must exist: fsspec's ``find`` gives ``{}`` for a missing prefix and for an
        http server it cannot reach, which would read as an empty frame.
        """
        root = root.rstrip("/")
        web = self.protocol in _WEB
        failed: Exception | None = None
        found: dict[str, Any] = {}
        try:
            if web:  # each link and folder not followed is said (``weblisting``), not dropped
                asked = root
                found, refused, unlisted, root = walk(self.fs, root, self.timeout_s)  # root: where its page moved
                if root != asked:
                    self.moved[asked] = root
                self.refused.update(refused)
                self.unlisted.update(unlisted)
            else:
                found = self.fs.find(root, detail=True)
            if not found:
                self.fs.info(root)  # FileNotFoundError (its cause: why an http server was not reached) or a folder
        except Exception as exc:  # the storage library's own (botocore, aiohttp, …): said as one error of ours
            failed = exc
        if failed is not None:  # raised outside the handler: no chained error carries the URL's query string
            raise _listing_refused(self.url(root), failed, self.timeout_s)
        for listed, info in found.items():
            if info.get("type") == "directory":
                continue
            path = listed
            if web:  # an index page is text a server makes: its links are decoded and kept inside the root
                inside = self._inside(root, listed)
                if inside is None or inside in self._info:  # refused, or another spelling of a name already listed
                    continue
                path = inside
            key = info.get("ETag") or info.get("LastModified") or info.get("mtime") or info.get("created")
            size = info.get("size")  # None: not said (a stock http server's index page), found when read, never 0
            self._info[path] = (size if type(size) is int else None, None if key is None else str(key))  # type: ignore[assignment]
            parent, _, name = path.rpartition("/")
            self._dirs.setdefault(parent, []).append(name)
        runs = sorted(d for d, names in self._dirs.items() if any(m in names for m in _MARKERS))
        depth = root.count("/")
        runs = [d for d in runs if d == root or d.count("/") - depth in (1, 2)]
        if not runs and (self.unlisted or self.refused):  # no run to carry them as problems: never an empty frame
            raise _nothing_listed(self.url(root), self.unlisted, self.refused, self.url)
        return runs

    def _inside(self, root: str, path: str) -> str | None:
        """``path`` of an http listing with each name decoded and spelled one way (``ep_%69d`` is ``ep_id``); None,
        the link kept in ``refused``, for one leaving the root (``../``, another place) or whose decoded name holds
        a path separator: locally a link out of the root is never followed either."""
        if not path.startswith(root + "/"):
            self.refused.setdefault(path, "it leads out of the root")
            return None
        parts = path[len(root) + 1 :].split("/")
        names = [unquote(part) for part in parts]
        for i, name in enumerate(names):
            if name in ("", ".", "..") or "/" in name or "\\" in name:
                up = name in ("", ".", "..")
                why = "it leads out of the root" if up else "its decoded name holds a path separator"
                end = i + 1
                while up and end < len(names) - 1 and names[end - 1] in ("", ".", ".."):
                    end += 1  # the link as written (``../ep_parent``), not only its ``..``
                self.refused.setdefault("/".join([root, *parts[:end]]), why)
                return None
        return "/".join([root, *(quote(name, safe=":@=") for name in names)])

    def stat(self, path: str) -> Stat | None:
        """(size, what proves the file unchanged): the listing's ETag/mtime, else the server's answer to HEAD (its
        ETag, or a Last-Modified older than ``_SETTLED_S``); when nothing proves it, a key no later load equals,
        so a warm load reads the file again rather than trust a size alone. None: not listed."""
        stat = self._info.get(path)
        if stat is not None and (stat[0] is None or stat[1] is None) and path not in self._failed:
            try:
                size, key = described(self.fs, path, self.url(path), self.timeout_s)
            except BadFile as exc:
                self._failed[path] = exc  # said when the file is read
                size, key = UNSIZED, None
            size = stat[0] if stat[0] is not None else size
            stat = self._info[path] = (size, key if stat[1] is None else stat[1])
            if key is None and stat[1] is None:
                stat = self._info[path] = (size, f"unproven {next(_UNPROVEN)}")
        return stat

    def seal_state(self, run: str) -> SealState:
        """The run's seal as its listing shows it (an object store holds files only: no link, no folder in their place)."""
        final, manifest = (self.join(run, name) in self._info for name in SEAL_FILES)
        return SealState(final, manifest)

    def listdir(self, path: str, within: str | None = None) -> list[str]:
        path = path.rstrip("/")
        names = set(self._dirs.get(path, []))
        prefix = path + "/"
        for d in self._dirs:
            if d.startswith(prefix):
                names.add(d[len(prefix) :].split("/", 1)[0])
        return sorted(names)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Fetch many files concurrently (s3fs batches ``cat``); absent ones are skipped."""
        info = self._info
        wanted = [p for p in paths if p in info and p not in self._data and _whole(p, info[p][0])]
        if wanted:  # one that fails is fetched again when read, which says why
            got = self.fs.cat(wanted, on_error="return")
            self._data.update((p, v) for p, v in got.items() if isinstance(v, bytes))
            for p, v in got.items():  # one that ran out of time is not asked again (another wait as long)
                if isinstance(v, BaseException) and timed_out(v):
                    self._failed[p] = unreadable(self.url(p), v, self.timeout_s)

    def read(self, path: str, within: str | None = None) -> tuple[bytes, Stat] | None:
        """Bytes and stat of a listed file (None: not listed); ``BadFile`` when it was listed but cannot be read
        (HTTP 404/403/500, a dropped connection, a run document too large): its contents are unknown, not absent."""
        stat = self.stat(path)
        if stat is None:
            return None
        data = self._data.pop(path, None)
        if data is None:
            if path in self._failed:
                raise self._failed[path]
            data = fetch(self.fs, path, self.url(path), stat[0], self.timeout_s)
        if stat[0] is None:  # no size said before reading: the bytes read say it
            stat = self._info[path] = (len(data), stat[1])
        return data, stat

    def read_seal(self, path: str) -> tuple[bytes, Stat] | None:
        return self.read(path)

    def read_tail(self, path: str, nbytes: int, within: str | None = None) -> tuple[bytes, Stat, bool] | None:
        got = self.read(path)
        if got is None:
            return None
        data, stat = got
        return data[-nbytes:], stat, len(data) <= nbytes

    def is_run_dir(self, path: str) -> bool:
        return any(m in self._dirs.get(path.rstrip("/"), []) for m in _MARKERS)

    def isdir(self, path: str) -> bool:
        return path.rstrip("/") in self._dirs


def _whole(path: str, size: int | None) -> bool:
    """Whether a listed file is fetched in a batch: its size known and within what is read of it."""
    return size is not None and not too_large(path, size) and within_limit(size)


RunFS = LocalFS | RemoteFS  # where a run's files are read from


def open_remote(url: str, storage_options: dict[str, Any] | None) -> tuple[RemoteFS, str]:
    """(file system, path without the protocol) for an fsspec URL; a clear error when the extra is missing.

    In an ``http://``/``https://`` URL the first ``?`` begins its query string (a signature, a SAS token), never a
    pattern: it is sent with every request of the source (aiohttp's ``params``) and named nowhere, so a glob there
    uses ``*`` and ``[…]`` in the path. In any other URL (``s3://``, ``memory://``, …) ``*``, ``?`` and ``[`` glob.
    """
    url = _web_spelling(url)
    refuse_password(url, "source")
    if storage_options is not None and not isinstance(storage_options, Mapping):
        raise InvalidOptionError(
            f"storage_options={quoted_text(repr(storage_options), 80)} is not a dict; pass a dict of the file system's "
            "options (for s3://: {'key': …, 'secret': …, 'endpoint_url': …}), or leave it out"
        )
    url, storage_options = _query_as_params(url, storage_options)
    seconds = None
    if url.split("://", 1)[0] in _WEB:  # a server that takes the request and never answers holds no cell forever
        storage_options, seconds = with_timeout(storage_options)
    try:
        import fsspec
    except ImportError as exc:
        raise MissingExtraError(
            f"reading {quoted(url)} needs fsspec, which is not installed; install it with: pip install 'noesis_nb[s3]'"
        ) from exc
    protocol = url.split("://", 1)[0]
    failed: Exception | None = None
    try:
        fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    except ImportError as exc:
        raise _missing_file_system(url, protocol, exc) from exc
    except ValueError as exc:  # a protocol fsspec does not know ('Protocol not known: s4'), a URL it cannot take
        raise InvalidOptionError(
            f"source {quoted(url)} is no URL fsspec can open ({quoted_text(str(exc))}); pass a runs root's path, or a URL "
            "of a file system fsspec knows (s3://bucket/prefix, gs://…, file://…)"
        ) from None
    except Exception as exc:  # a file system that connects when made (ftp://, sftp://): refused, unreachable, bad options
        failed = exc
    if failed is not None:  # raised outside the handler: no chained error carries the URL's query string
        raise _listing_refused(url, failed, seconds)
    fs.invalidate_cache()
    return RemoteFS(fs, protocol, seconds), path


def _web_spelling(url: str) -> str:
    """An http(s) URL as fsspec takes it: its scheme in small letters (``HTTP://`` is the same URL) and its fragment
    dropped (never sent to a server, and ``#access_token=…`` is a secret: it is named nowhere)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in _WEB:
        return url
    return f"{scheme.lower()}://{rest.split('#', 1)[0]}"


_QUERY = re.compile(r"\?[^\s'\"<>]*")  # a URL's query string in an error's text


def _query_as_params(url: str, options: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """An http(s) URL without its query string, and the options sending that query with each request."""
    if "?" not in url or url.split("://", 1)[0].lower() not in ("http", "https"):
        return url, options
    base, _, query = url.partition("?")
    pairs = parse_qsl(query.split("#", 1)[0], keep_blank_values=True)
    if not pairs:
        return base, options
    given = (options or {}).get("params") or {}
    more = list(given.items()) if isinstance(given, Mapping) else list(given)
    return base, {**(options or {}), "params": [*pairs, *more]}


def shown_source(text: str) -> str:
    """A source as a problem names it: an http(s) URL's query string (it may hold a signature) redacted."""
    if "?" in text and text.split("://", 1)[0].lower() in ("http", "https"):
        return f"{text.partition('?')[0]}?{REDACTED_VALUE}"
    return text


def _listing_refused(url: str, exc: Exception, seconds: float | None = None) -> Exception:
    """One error naming the remote source and what to check, for a listing its file system refused.

    The storage library raises its own types (``NoCredentialsError``, ``EndpointConnectionError``, a
    ``TypeError`` for an option it does not take), which name neither the URL nor the fix.
    """
    if timed_out(exc):
        return RunsDirError(f"{quoted(url)} could not be listed: it {timed_out_said(url, seconds)}")
    cause = exc.__cause__ if isinstance(exc, FileNotFoundError) and exc.__cause__ is not None else exc
    said = _QUERY.sub(f"?{REDACTED_VALUE}", str(cause))  # a URL's query string may hold a signature
    reason = f"{type(cause).__name__}: {quoted_text(said, 300)}"
    if isinstance(exc, FileNotFoundError):
        return RunNotFoundError(
            f"{quoted(url)} cannot be listed: it does not exist or cannot be reached ({reason}); check the URL "
            "(bucket and prefix, or host, port and path) and that its server is up"
        )
    if isinstance(exc, TypeError):
        return InvalidOptionError(
            f"the file system of {quoted(url)} refused its storage_options ({reason}); pass the options it takes "
            "(for s3://: key, secret, token, endpoint_url, client_kwargs, …)"
        )
    return RunsDirError(
        f"{quoted(url)} could not be listed ({reason}); check the URL, the network and the credentials "
        "(storage_options=, or the environment such as AWS_ACCESS_KEY_ID / AWS_PROFILE)"
    )


def _nothing_listed(url: str, unlisted: dict[str, str], refused: dict[str, str], url_of: Callable[[str], str]) -> RunsDirError:
    """The error for an http root that lists no run because each folder or link it names could not be followed."""
    said = [f"{quoted(shown_source(url_of(p)))}: listing it failed ({why})" for p, why in unlisted.items()]
    said += [f"{quoted(shown_source(url_of(p)))}: not followed ({why})" for p, why in refused.items()]
    more = f"; and {len(said) - 5} more" if len(said) > 5 else ""
    return RunsDirError(
        f"{quoted(shown_source(url))} lists no run that could be read: {'; '.join(said[:5])}{more}; its runs are unknown, "
        "not absent: check the server (its redirects, its answers) and the credentials, then load again"
    )


#: protocols whose file system the ``s3`` extra installs (s3fs)
_S3_PROTOCOLS = frozenset({"s3", "s3a"})


def _missing_file_system(url: str, protocol: str, exc: ImportError) -> MissingExtraError:
    """The error for a URL whose fsspec file system is not installed, naming the package that brings it.

    Only ``s3://`` is an extra of noesis_nb; for any other protocol fsspec's own message names its package
    (``Please install gcsfs to access Google Storage``), so that is what is said.
    """
    if protocol.lower() in _S3_PROTOCOLS:
        fix = "install it with: pip install 'noesis_nb[s3]'"
    else:
        fix = f"fsspec says: {quoted_text(str(exc))}"
    return MissingExtraError(f"reading {quoted(url)} needs the {protocol}:// file system, which is not installed; {fix}")


class _OnFS(Protocol):
    """What ``prefetch_remote`` needs of a run reference (``source.RunRef``): the file system it lives on."""

    @property
    def fs(self) -> RunFS: ...


_Ref = TypeVar("_Ref", bound=_OnFS)


def prefetch_remote(refs: Iterable[_Ref], paths_of: Callable[[_Ref], Iterable[str]]) -> None:
    """Fetch ``paths_of(ref)`` of every remote run in one concurrent batch per file system (local runs: nothing).

    Runs on one remote file system share it, so each file system gets a single ``prefetch`` call.
    """
    remote: dict[int, tuple[RunFS, list[str]]] = {}
    for ref in refs:
        if ref.fs.protocol != "file":
            remote.setdefault(id(ref.fs), (ref.fs, []))[1].extend(paths_of(ref))
    for fs, wanted in remote.values():
        fs.prefetch(wanted)


def dir_stamp(fs: RunFS, folder: str, listing: list[str] | None) -> Stat | tuple[str, ...] | None:
    """A folder's change marker: its stamp locally (adding or renaming a file changes it), its listing remotely."""
    if fs.protocol == "file":
        return fs.stat(folder)
    return tuple(sorted(fs.listdir(folder) if listing is None else listing))


def _link_stat(path: str) -> os.stat_result | None:
    """The stat of the link itself, for a path that cannot be followed (a link to itself, a loop)."""
    try:
        return os.lstat(path)
    except OSError:
        return None


def local_unchanged(stamps: Iterable[tuple[str, Any]]) -> bool:
    """Whether each local (path, ``change_stamp`` or None) still holds; stops at the first change."""
    stat = os.stat
    for path, expected in stamps:
        try:
            st: os.stat_result | None = stat(path)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        except OSError:
            st = _link_stat(path)  # stamped this way by ``LocalFS.stat``
        if st is None:
            if expected is not None:
                return False
            continue
        # ``change_stamp(st)`` spelled out: this loop runs over every file of every run a warm reload checks
        if expected is None or (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev) != expected:
            return False
    return True


def settled(*stamps: Any) -> bool:
    """Whether every local ``change_stamp`` inside ``stamps`` (nested in tuples and dicts) is older than
    ``RACY_NS`` (its mtime and ctime both): only such stamps may key a cache entry. ``RACY_NS`` is read here at
    each call, so a test may set it on this module."""
    return stamps_settled(stamps, RACY_NS)
