"""A per-user index of ``runs_df``'s per-run records, kept across processes (a new kernel reads a run's row back).

A runs table needs four documents, two or three folder listings and a seal check per run; a new
process paid them all again for every run. The index keeps, per runs root, what ``runs_df`` made
of each run (its row, its model calls) with the stamp — (size, mtime, ctime, inode, device) — of every file and
folder it came from, as the in-memory cache does; a run is taken from it only when each of those
stats still holds (an edit in place, a rename, a new tool record: read again). It is kept in
this user's cache folder (``_cachedir``), one file per root, mode 0600, written whole by rename.

What it holds is only ever a copy, trusted only when it checks:
- an HMAC-SHA256 under the seal key (``store.seal``) over the whole file: a file crafted by anyone
  who cannot read that key, cut by a crash, or made for another key is ignored (and replaced);
- the code that makes a row (noesis_nb's modules and detect-secrets', each by size and mtime) and
  the index format: another version of either, or an edited one, builds its own;
- runs only: with no problem found in them (a damaged run is read each time, so its problems are
  reported), every stamp settled (``fs.settled``), local files, and a row that reads back equal.
It is used only while this process has learned no secret value (``secrets.known_everywhere``):
rows are screened when they are made, and a value learned since would not be in the copy; and only
by processes holding the same secrets in their environment (``secrets.environ``, in the tag).
Columns asked for by path (``columns=``) need the documents: those loads read every run. Only loads
of a folder of runs use it (not one run, not a list), and only the first load of a folder in a process
reads it; a folder is known by its real path; runs whose folder is gone leave it when it is written.
Beside it, ``<index>.json.frame`` keeps the last whole-folder load's finished frame (``keptframe``), under
the same tag (``cache_tag``); a load served that frame keeps the index open for the next load of the folder.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import os
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from .._cachedir import cache_root, read_cached, remove_cached, write_cached
from ..secrets import known_everywhere
from ..secrets.environ import environ_secrets
from ..store.seal import seal_key
from ..store.vocab import PRICED_COUNTS
from .cache import on_clear
from .fs import settled
from .runrecord import RunRecord, run_unchanged, stamp_checks
from .runusage import CallColumns, call_columns
from .source import RunRef

__all__ = ["RunIndex", "index_for", "forget_indexes", "cache_tag", "remove_left_temps", "INDEX_DIR"]

INDEX_DIR = "runs-index"
_FORMAT = b"noesis_nb runs index 3\n"  # 2: stamps hold the inode and device; 3: rows hold score_is_bool
_MAX_BYTES = 1 << 30  # a root of 100,000 runs is ~150 MB
_MAX_ENTRIES = 400_000
_LOCK = threading.Lock()
_INDEXES: dict[str, RunIndex] = {}


class RunIndex:
    """The index of one runs root (the folder holding the runs): entries by (verify level, run name).

    Read only by the first load of the root in this process: later loads find their runs in the in-memory
    cache, and a run they miss there changed since (its entry cannot hold). A load served a kept frame
    (``keptframe``) made no record, so it does not count as that first load (``keep_open``). The parsed entries are dropped
    when that load ends; the records made from them live on in the in-memory cache. New entries are written
    at the end of the first load, then once they are a tenth of the file (rewriting a large root's file for
    each run that changed would cost more than the index saves).
    """

    def __init__(self, root: str):
        self.root = root  # its real path
        name = hashlib.sha256(os.fsencode(root)).hexdigest()[:32]
        self.path = cache_root() / INDEX_DIR / f"{name}.json"
        self._first = True  # no load of this root has ended in this process
        self._held = 0  # entries in the file when it was last read or written
        self._entries: dict[str, Any] | None = None  # parsed for the first load
        self._new: dict[str, Any] = {}  # entries made since the last write
        self._made_from: dict[str, RunRecord] = {}  # the record of each new entry (its call columns)
        self._open = False  # a kept frame was served: stay open for the next whole-folder load (``keep_open``)
        self.kept: Any = None  # the kept frame this process served (``keptframe``), while the index stays open
        self._lock = threading.Lock()

    @property
    def first(self) -> bool:
        """Whether no load of this root has ended here yet (a load that was served a kept frame does not count)."""
        return self._first

    def keep_open(self) -> None:
        """A kept frame (``keptframe``) served this root's runs and read no record: the in-memory cache holds none of
        them, so this index stays open until a whole-folder load ends (a later one reads only the runs that changed)."""
        self._open = True

    def get(self, ref: RunRef, verify: str) -> tuple[RunRecord, Any] | None:
        """(record, checks for ``run_unchanged``) this index holds for ``ref``, when every file and folder it came
        from is unchanged; None otherwise (and always after the root's first load in this process)."""
        key = f"{verify}/{os.path.basename(ref.path)}"
        with self._lock:
            if not self._first:
                return None
            if self._entries is None:
                self._entries = _read(self.path)
                self._held = len(self._entries)
            entry = self._entries.get(key)
        held = _record(ref, entry) if entry is not None else None
        if held is None or not run_unchanged(ref, held[0]["stamp"], held[1]):
            return None
        return held

    def put(self, ref: RunRef, verify: str, record: RunRecord) -> None:
        """Keep ``record`` (just read in full) for the next process, when it qualifies (``_entry``)."""
        entry = _entry(record)
        if entry is not None:
            with self._lock:
                key = f"{verify}/{os.path.basename(ref.path)}"
                self._new[key] = entry
                self._made_from[key] = record

    def end(self, *, save: bool, whole: bool = True) -> None:
        """End a load: with ``save`` (it succeeded), write the new entries when due; drop the parsed entries, unless
        a kept frame left this index open and the load was not of the whole folder (``episodes=``, ``columns=``)."""
        with self._lock:
            try:
                if save and self._new and (self._first or len(self._new) >= max(64, self._held // 10)):
                    self._write()
            finally:
                if whole or not self._open:
                    self._entries, self._first, self._open, self.kept = None, False, False, None

    def _write(self) -> None:
        """Merge the new entries into the file as it is now, dropping runs whose folder is gone; nothing when the
        cache folder refuses (read-only, full): the next process reads those runs in full."""
        new, made_from, self._new, self._made_from = self._new, self._made_from, {}, {}
        # a stamp taken after the entry was made (the log, read when the sums gave way) must be settled too
        new = {key: entry for key, entry in new.items() if settled(entry["stamp"])}
        entries = self._entries if self._entries is not None else _read(self.path)  # as this load read it, or now
        entries = {key: e for key, e in entries.items() if key not in new and os.path.isdir(self._folder(key))}
        for key, entry in new.items():  # the newest last: the oldest are dropped first past the cap
            entry["columns"] = _stored_columns(made_from[key], entry["calls"])
            entries[key] = entry
        if len(entries) > _MAX_ENTRIES:
            entries = dict(list(entries.items())[-_MAX_ENTRIES:])
        try:
            write_cached(self.path, _sealed(orjson.dumps(entries)))
            self._held = len(entries)
        except (OSError, TypeError, orjson.JSONEncodeError):  # refused, or a value JSON cannot hold: none written
            pass
        remove_left_temps(self.path)

    def _folder(self, key: str) -> str:
        return os.path.join(self.root, key.partition("/")[2])


def remove_left_temps(path: Path, age_s: float = 600.0) -> None:
    """Remove temp files of ``path`` a killed process left (``write_cached`` renames its own into place)."""
    limit, prefix = time.time() - age_s, f".{path.name}."
    remove_cached(path.parent, lambda name, mtime: name.startswith(prefix) and mtime < limit)


def index_for(root: str) -> RunIndex | None:
    """The index of a root of local runs; None while this process knows a secret value."""
    if known_everywhere():
        return None
    real = os.path.realpath(root)  # "runs" in two projects is two roots
    with _LOCK:
        index = _INDEXES.get(real)
        if index is None or index.path.parent != cache_root() / INDEX_DIR:
            index = _INDEXES[real] = RunIndex(real)
    return index


def forget_indexes() -> None:
    """Forget every index, in memory and on disk (``clear_cache``)."""
    with _LOCK:
        _INDEXES.clear()
    # the index files, their kept frames (``keptframe``) and any temp file a killed process left; in the checked
    # cache folder alone (``remove_cached``): a link planted at its place leads nowhere
    remove_cached(cache_root() / INDEX_DIR, lambda name, _mtime: name.endswith(".json") or ".json." in name)


# ---- what an entry holds ----------------------------------------------------------------------------


def _entry(record: RunRecord) -> dict[str, Any] | None:
    """The stored form of a record, or None when it must be read each time (see the module's rules)."""
    if record["problems"] or "row" not in record or record["ref"].fs.protocol != "file":
        return None
    stamp = record["stamp"]
    if not all(v is None or (type(v) is tuple and len(v) == 5 and all(type(n) is int for n in v)) for v in stamp.values()):
        return None
    entry = {
        "stamp": stamp,
        "row": record["row"],
        "calls": record["calls"],
        "calls_from": record["calls_from"],
        "status": record["status"],
        "written_here": record.get("written_here", False),
        # whether its files reveal a secret (never which): a run revealing none needs no reading to pool its values
        "reveals": bool(record.get("revealed")),
        # price table version -> whether the summary's sums give way to the calls: filled in by this load
        "sums_checked": record.setdefault("sums_checked", {}),
    }
    # the row holds values made here (times, counts, flags): one JSON cannot carry as it is (a tuple, NaN, a big
    # number, a str subclass) has the run read each time; the calls are JSON as read (checked whole when written)
    try:
        back = orjson.loads(orjson.dumps(record["row"]))
    except (TypeError, orjson.JSONEncodeError):
        return None
    row = record["row"]
    if back != row or not _same_types(back, row) or not _same_types(back.get("tags"), row.get("tags")):
        return None
    return entry


def _stored_columns(record: RunRecord, calls: list[Any]) -> list[Any]:
    """``calls`` as ``runusage``'s columns (those the load made, when they are of these calls), NaN written as null."""
    kept = record.get("call_columns")
    columns = kept[1] if kept is not None and kept[0] is calls else call_columns({"calls": calls})
    return [*columns[:4], [[None if v != v else v for v in values] for values in columns.tokens]]


def _loaded_columns(stored: Any, n: int) -> CallColumns:
    """The stored columns of ``n`` calls back (null as NaN); ValueError when they do not fit."""
    stamps, weights, models, providers, tokens = stored
    if len(stamps) != n or len(tokens) != len(PRICED_COUNTS):  # (an index of an older release: 5, read again)
        raise ValueError("the stored call columns do not fit the calls")
    return CallColumns(stamps, weights, models, providers, tuple([_NAN if v is None else v for v in t] for t in tokens))


_NAN = float("nan")


def _same_types(a: Any, b: Any) -> bool:
    """Whether two equal dicts hold values of the same types (JSON keeps 1, 1.0 and True apart; ``==`` does not)."""
    if type(a) is not dict or type(b) is not dict:
        return type(a) is type(b)
    return all(type(x) is type(y) for x, y in zip(a.values(), b.values()))


def _record(ref: RunRef, entry: Any) -> tuple[RunRecord, Any] | None:
    """A record as ``runs_df`` uses it (row and calls; no documents) from a stored entry; None when it is not
    this run's. The file's tag says this code wrote it: its shapes are those ``_entry`` made, not checked again."""
    try:
        stamp = {name: v if v is None else tuple(v) for name, v in entry["stamp"].items()}
        row, calls = entry["row"], entry["calls"]  # each call a [time, payload] list: read as the tuples were
        if row["episode_id"] != os.path.basename(ref.path) or row["run_dir"] != ref.url:
            return None
        record: RunRecord = {
            "ref": ref,
            "summary": None,
            "state": None,
            "final": None,
            "manifest": None,
            "status": entry["status"],
            "head": None,
            "tail_end": None,
            "calls": calls,
            "calls_from": "summary" if entry["calls_from"] == "summary" else "events",
            "tools": {"drafts": 0, "pending": 0, "present": False},
            "tool_calls": None,
            "stamp": stamp,
            "listings": {},
            "problems": [],
            "manifest_clean": True,
            "known_sizes": {},
            "manifest_ok": row.get("manifest_ok"),
            "written_here": entry["written_here"] is True,
            "row": row,
            "sums_checked": entry["sums_checked"],
            "indexed": True,
        }
        record["call_columns"] = (calls, _loaded_columns(entry["columns"], len(calls)))
        if entry.get("reveals") is False:  # its files reveal no secret: nothing to pool (``runs._revealed_by_any``)
            record["revealed"] = frozenset()
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    return record, stamp_checks(ref, stamp)


# ---- the file ---------------------------------------------------------------------------------------


def _read(path: Path) -> dict[str, Any]:
    """The entries of an index file that checks (format, code, tag); {} for anything else."""
    try:
        data = read_cached(path, _MAX_BYTES)
    except OSError:
        return {}
    head, _, body = data.partition(b"\n")
    if not hmac.compare_digest(head, _tag(body)):
        return {}
    try:
        entries = orjson.loads(body)
    except orjson.JSONDecodeError:
        return {}
    return entries if type(entries) is dict else {}


def _sealed(body: bytes) -> bytes:
    return _tag(body) + b"\n" + body


def _tag(body: bytes) -> bytes:
    return cache_tag(_FORMAT, body)


def cache_tag(form: bytes, body: bytes) -> bytes:
    """The hex HMAC-SHA256 of ``body`` under the seal key, for this code (``_code_version``) and file format ``form``:
    what the index and the kept frames (``keptframe``) are trusted by."""
    mac = hmac.new(seal_key(), form + _code_version() + _environ_version(), hashlib.sha256)
    mac.update(body)
    return mac.hexdigest().encode()


_ENVIRON: tuple[frozenset[str], bytes] = (frozenset(), hashlib.sha256(b"").hexdigest().encode() + b"\n")


def _environ_version() -> bytes:
    """A digest of the environment's secrets now (``secrets.environ``): views hide them (``known_shown``)
    while the index stays in use in a process holding them, so rows made by a process holding another set of them
    (one without a variable shows its value in clear) are not taken for this one's. Within the tag's HMAC only."""
    global _ENVIRON
    env = environ_secrets()
    if _ENVIRON[0] is not env:
        _ENVIRON = (env, hashlib.sha256("\0".join(sorted(env)).encode()).hexdigest().encode() + b"\n")
    return _ENVIRON[1]


_CODE: bytes | None = None


def _code_version() -> bytes:
    """A digest of the code that makes a row: this package's modules and detect-secrets' (path, size, mtime), so
    rows screened by another version (a detector added by an upgrade) are not taken for this one's."""
    global _CODE
    if _CODE is None:
        seen: list[str] = []
        for package in (str(Path(__file__).resolve().parents[1]), *_package_dirs("detect_secrets")):
            folders = [package]
            while folders:
                with os.scandir(folders.pop()) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                            folders.append(entry.path)
                        elif entry.name.endswith(".py"):
                            st = entry.stat()
                            seen.append(f"{entry.path} {st.st_size} {st.st_mtime_ns}")
        _CODE = hashlib.sha256("\n".join(sorted(seen)).encode()).hexdigest().encode() + b"\n"
    return _CODE


def _package_dirs(name: str) -> list[str]:
    """Where an installed package's modules are, without importing it ([] when it is not installed)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    return list(spec.submodule_search_locations or []) if spec is not None else []


on_clear(forget_indexes)
