"""Whether a sealed run's files are still those its ``manifest.json`` lists: their size, and their contents where
their time says they were written after the seal.

A seal lists each file's size as it was sealed; a file found at another size since (a log emptied, reduced to
blank lines or cut at a line, a document rewritten, a tool record edited) was changed after the run ended.
Each frame compares the files it reads against that list, sizes it already has from its reads (a ``stat`` at
most), and reports each one changed: what it counts from it is unknown, never 0. An edit that keeps the size
(a count 90 made 99) leaves the file modified after manifest.json, the seal's last file: a local file at its listed
size whose mtime is later than the manifest's is hashed against the sha256 listed, and reported when it differs. A
copy that does not keep times (``cp``, ``git clone``, ``rsync`` without ``-t``, a batch's ``upload_to``) moves the
times too, with the same bytes: its files are hashed and found unchanged, each once per process (``_VERDICTS``, by
its stamp), and ``runs_df``'s runs index keeps the clean rows for the next process. ``runs_df(verify="hash")``
hashes every file.

The list is read whenever a frame reads the run (its cache key, which holds the stat of manifest.json, changed):
no time is trusted to say a file is unchanged (only that one may have changed), since an edit can set its time
back and a manifest can be edited after its files.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat as stat_mode
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from .._jsonkeys import loads_checked
from ..store.artifacts import transient_name
from .fs import UNREAD, BadFile
from .problems import SEAL_CHANGE, LoadProblem
from .remotefetch import UNSIZED

__all__ = [
    "UNLISTED",
    "unlisted",
    "Listed",
    "listed_sizes",
    "content_changed",
    "content_problem",
    "size_changes",
    "changed_reason",
    "changed_problem",
    "is_seal_change",
    "MISSING",
    "REPEATED",
    "UNKNOWN",
]

#: a listed file that is gone
MISSING = "listed in manifest.json but missing"
#: the size of a file whose ``size_bytes`` manifest.json writes twice or not as a whole number: matches no size, so the
#: file reads as changed
REPEATED = -1
#: what a file changed since the seal leaves unknown, by its name (a tool record: ``_RECORD``)
UNKNOWN = {
    "events.jsonl": "events may be missing or altered: the run's model calls, tokens and cost are unknown",
    "summary.json": "what it says of the run (counts, outcome, tags) may not be what the run recorded",
    "state.json": "what it says of the run may not be what the run recorded",
    "final.json": "the run's outcome and seal may not be its own",
}
_RECORD = "the draft's row may not be what the run recorded, and the run's tool_calls and pending_approvals are unknown"


class Listed(dict[str, int]):
    """The size ``manifest.json`` lists for each file (by its name under the run), with the ``sha256`` it lists
    (``hashes``) and the manifest's own stat (``manifest_stat``), which tell a same-size edit (``content_changed``)."""

    hashes: dict[str, str]
    manifest_stat: Any


def listed_sizes(ref: Any, manifest: Any = UNREAD) -> Listed | None:
    """The size ``manifest.json`` lists for each file, by its name under the run; None when the run has no manifest
    (not sealed) or none that can be read (``runs_df`` reports that one). ``manifest``: what
    ``ref.read_seal("manifest.json")`` gave the caller (its bytes and stat, None, or the ``BadFile`` it raised);
    read here when ``UNREAD``."""
    try:
        got = ref.read_seal("manifest.json") if manifest is UNREAD else manifest
    except BadFile:
        return None
    if got is None or isinstance(got, BadFile):
        return None
    try:
        doc = loads_checked(got[0])[0]  # a size written twice is no size (orjson would keep the last)
    except orjson.JSONDecodeError:
        return None
    files = doc.get("files") if type(doc) is dict else None
    if type(files) is not list:
        return None
    out = Listed()
    out.hashes, out.manifest_stat = {}, got[1]
    for entry in files:
        if type(entry) is not dict or type(name := entry.get("name")) is not str:
            continue
        if type(digest := entry.get("sha256")) is str:
            out.hashes[name] = digest
        size = entry.get("size_bytes")
        if type(size) is int:
            out[name] = size
        elif "size_bytes" in entry:  # written twice (read as unknown) or not a whole number: no size it could match
            out[name] = REPEATED
    return out


_RESTORE = '. Restore the file from a copy of the run (runs_df(verify="hash") checks every file the seal lists)'


def changed_reason(name: str, size: int | None, listed: int) -> str:
    """What to say of a sealed file ``name`` now ``size`` bytes (None: gone) that manifest.json lists at ``listed``
    (``REPEATED``: its size written twice there, so not known; ``UNSIZED``: a remote file its server neither sizes
    nor serves, whose change is not known either way)."""
    if size == UNSIZED:
        return (
            f"its size cannot be learned (the server will not serve it: see the problem reading it), so whether it "
            f"changed after the run was sealed is unknown, and so {UNKNOWN.get(name, _RECORD)}"
        )
    if listed == REPEATED:
        now = "missing" if size is None else f"{size} bytes"
        now += ", but manifest.json gives it no size (written twice, or not a number)"
    else:
        now = MISSING if size is None else f"{size} bytes, but manifest.json lists {listed}"
    return f"{now}: changed after the run was sealed, so {UNKNOWN.get(name, _RECORD)}{_RESTORE}"


def content_reason(name: str, size: int) -> str:
    """What to say of a sealed file ``name`` at its listed ``size`` whose bytes are not those manifest.json hashed."""
    return (
        f"{size} bytes as manifest.json lists, but not the contents it hashed (sha256 differs; modified after "
        f"manifest.json): changed since the manifest sealed the run, so {UNKNOWN.get(name, _RECORD)}{_RESTORE}"
    )


def content_problem(url: str, name: str, size: int) -> LoadProblem:
    """The problem of a sealed file at ``url`` at its listed size with other contents (``content_reason``)."""
    return LoadProblem(url, None, content_reason(name, size), kind=SEAL_CHANGE)


def is_seal_change(problem: LoadProblem) -> bool:
    """Whether ``problem`` is a file found changed since its run's seal (``changed_problem``)."""
    return problem.kind == SEAL_CHANGE


def changed_problem(url: str, name: str, size: int | None, listed: int) -> LoadProblem:
    """The problem of a sealed file at ``url`` changed since its seal (``changed_reason``), marked ``SEAL_CHANGE``."""
    return LoadProblem(url, None, changed_reason(name, size, listed), kind=SEAL_CHANGE)


def size_changes(ref: Any, listed: Listed, stats: dict[str, Any]) -> list[LoadProblem]:
    """One problem for each of ``stats`` (a file's name under the run → its stat as read, None: gone) that ``listed``
    gives another size, or the same size and other contents (``content_changed``); files the manifest does not list
    are not judged here."""
    out = []
    sealed = listed.manifest_stat
    sealed_at = sealed[1] if type(sealed) is tuple and len(sealed) == 5 else None
    for name, now in stats.items():
        want = listed.get(name)
        size = None if now is None else now[0]
        if want is None:
            continue
        if size == want:
            # only a file modified after the manifest is judged by its contents (asked here first: no call per file)
            newer = sealed_at is not None and type(now) is tuple and len(now) == 5 and now[1] > sealed_at
            if newer and content_changed(ref, name, now, listed.hashes.get(name), sealed):
                out.append(content_problem(ref.fs.url(ref.file(*name.split("/"))), name, size))
            continue
        # a size taken before the seal was written (a live run sealed while it was read) is no change: the file now says
        path = ref.file(*name.split("/"))
        now = ref.fs.stat(path)
        size = None if now is None else now[0]
        if size != want:
            out.append(changed_problem(ref.fs.url(path), name, size, want))
    return out


#: (path, stamp, sha256 listed) -> whether the file so stamped has those contents: a file hashed once per process
_VERDICTS: OrderedDict[tuple[str, Any, str], bool] = OrderedDict()
_VERDICTS_LOCK = threading.Lock()
_MAX_VERDICTS = 200_000


def content_changed(ref: Any, name: str, stat: Any, digest: str | None, manifest_stat: Any) -> bool:
    """Whether the sealed local file ``name``, at its listed size (``stat``: its ``change_stamp`` as read), was
    modified after ``manifest.json`` (``manifest_stat``) and its bytes are not those of the ``digest`` listed. A file
    modified before the manifest, a remote one, or one the manifest lists no sha256 for, is judged by its size only."""
    if digest is None or type(stat) is not tuple or len(stat) != 5 or type(manifest_stat) is not tuple:
        return False
    if len(manifest_stat) != 5 or stat[1] <= manifest_stat[1]:
        return False  # not modified after the seal's last file: the size decides, as it did
    path = ref.file(*name.split("/"))
    key = (path, stat, digest)
    with _VERDICTS_LOCK:
        same = _VERDICTS.get(key)
        if same is not None:
            _VERDICTS.move_to_end(key)
            return not same
    same, hashed = _hashed_same(path, stat, digest)
    if hashed:  # the file hashed is the one stamped: its verdict holds while its stamp does
        with _VERDICTS_LOCK:
            _VERDICTS[key] = same
            while len(_VERDICTS) > _MAX_VERDICTS:
                _VERDICTS.popitem(last=False)
    return not same


def _hashed_same(path: str, stat: Any, digest: str) -> tuple[bool, bool]:
    """(whether the file at ``path`` hashes to ``digest``, whether the file hashed was the one ``stat`` stamps). No
    regular file there now (a link, a FIFO, a folder; never opened so as to block) is not the file sealed; one that
    cannot be opened otherwise (no permission: said where it is read) is judged by its size, as before."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        return exc.errno != errno.ELOOP, False
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat_mode.S_ISREG(st.st_mode):
            return False, False
        hasher = hashlib.sha256()
        while chunk := fh.read(1 << 20):
            hasher.update(chunk)
        after = os.fstat(fd)
    same = "sha256:" + hasher.hexdigest() == digest
    stamped = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    return same, stamped == stat and (after.st_mtime_ns, after.st_size) == (st.st_mtime_ns, st.st_size)


#: a file found in a folder of a sealed run that its manifest does not list
UNLISTED = "in the sealed run but not listed in manifest.json: added after the seal"


def unlisted(files: list[Any], listings: Mapping[str, Iterable[str]]) -> list[str]:
    """Names found in the folders already listed (``listings``: folder -> its entries) that the manifest does not
    list, sorted: no file is looked at for this.

    An entry is covered when the manifest lists it or a file below it; locks, claims and temp files
    (``store.artifacts``: never listed) are not the run's.
    """
    names = {e["name"] for e in files if isinstance(e, dict) and isinstance(e.get("name"), str)}
    below = {name.rsplit("/", depth)[0] for name in names for depth in range(1, name.count("/") + 1)}
    found: list[str] = []
    for folder, entries in listings.items():
        for entry in entries:
            name = f"{folder}/{entry}"
            if name not in names and name not in below and not transient_name(entry):
                found.append(name)
    return sorted(found)
