"""One run per recorded trace and root: importing the identical trace again points at the run made the first time.

A trace's identity is a keyed digest of everything the import writes from (its source, task, options and every
row, including a row that could not be read), recorded in the run as the ``trace_digest`` tag. Before a new run is
made, the root is searched for a sealed run with that tag. Two processes importing the same trace at once are
serialised by an ``flock`` on the root folder itself (no file is added to it), held from the search until the
run is sealed, so the second finds the first's run. A changed trace, task or option makes a new run; a run that
did not finish (cancelled, timed out, or its process killed, even once ``resume_run`` sealed it) is not taken for
the import.

The search reads only candidate runs: a run's ``trace_digest`` tag is written when the run is made and never
changes, so what each run holds is kept in this user's cache folder (``_cachedir``, one file per root), by the
run's folder and the ``change_stamp`` of its ``events.jsonl``, which the root's scan stats anyway. A run is read
when it is new to that copy, or its log changed or is another file (a live run, a folder replaced: an inode freed
is reused, the times tell the file apart); the runs whose kept tag is
the digest are then read and checked in full. A lost, cut or crafted copy can only make runs be read again, or a
candidate be checked and passed over.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

try:  # POSIX; elsewhere imports into one root are not serialised (each still makes a whole run)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from .._cachedir import cache_root, read_cached, write_cached
from .._jsonkeys import loads_checked
from .._sealkey import seal_key
from ..store import is_sealed
from ..store.runfiles import change_stamp, read_file, stamps_settled
from ..store.scan import scan_run_dirs_with_stats

__all__ = ["DIGEST_TAG", "trace_digest", "imported_before", "import_lock"]

#: the tag naming the content digest of the trace a run was imported from
DIGEST_TAG = "trace_digest"
#: how an imported run may have ended and still stand for its trace (a recorded failure ends ``error``)
_FINISHED = frozenset({"ok", "error"})


def _canonical(value: Any) -> Any:
    """A JSON value for ``value`` (the digest's input): what JSON cannot hold is written as its type and text."""
    return f"<{type(value).__qualname__}>{value}"


def _encoded(value: Any) -> bytes:
    """``value`` as canonical JSON; what orjson cannot write (an integer past 64 bits) as its ``repr``."""
    try:
        return orjson.dumps(value, default=_canonical, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return repr(value).encode("utf-8", "backslashreplace")


def trace_digest(parts: dict[str, Any], rows: list[Any], failure: BaseException | None) -> str:
    """``hmac-sha256:<hex>`` over ``parts`` (source, task, options) and the rows, in order, and the error that ended
    them, keyed with this user's seal key (``_sealkey``).

    The rows are hashed as read, secrets and all, and the tag is stored in the run beside the rows as redacted: a
    plain sha256 let anyone holding the run's files test guesses at a redacted password offline. Keyed, it names
    the trace only for this user (whose imports it serves); a process without a kept key finds its own alone."""
    h = hmac.new(seal_key(), digestmod=hashlib.sha256)
    h.update(_encoded(parts))
    for row in rows:
        h.update(b"\n")
        h.update(_encoded(row))
    if failure is not None:
        h.update(f"\n!{type(failure).__qualname__}: {failure}".encode("utf-8", "backslashreplace"))
    return f"hmac-sha256:{h.hexdigest()}"


def imported_before(root: Path, digest: str) -> str | None:
    """The episode id of a finished, sealed run under ``root`` imported from the trace ``digest`` names, if any."""
    try:
        found = scan_run_dirs_with_stats(str(root))
    except OSError:
        return None
    memo_path = _memo_path(root)
    kept = _read_memo(memo_path)
    memo: dict[str, list[Any]] = {}
    candidates: dict[str, dict[str, Any] | None] = {}  # runs whose tag is the digest -> the state read here, if read
    base = os.path.join(str(root), "")
    for path, events in found:
        key = path[len(base) :] if path.startswith(base) else path  # by its place in the root, however it is reached
        # the log's stamp (an inode is reused once its file is deleted: its times tell the file made since)
        stamp = change_stamp(events) if events is not None else None
        log = list(stamp) if stamp is not None and stamps_settled(stamp) else None
        held = kept.get(key)
        state = None
        if known := (log is not None and isinstance(held, list) and len(held) == len(log) + 1 and held[:-1] == log):
            tag = held[-1]
        else:
            state = _state(path)
            tag = _tag(state)
        if log is not None and (known or state is not None):  # else (no settled log, no state yet): read next time
            memo[key] = [*log, tag]
        if tag == digest:
            candidates[path] = state
    if memo != kept:
        with contextlib.suppress(OSError, TypeError):  # the cache folder refuses: the next search reads the runs
            write_cached(memo_path, orjson.dumps(memo))
    for path, state in candidates.items():
        state = state if state is not None else _state(path)
        name = os.path.basename(path)
        if state is not None and _stands_for(state, digest, name) and is_sealed(Path(path)) and _replay_ended(path):
            return name
    return None


#: the reasons of a run whose replay ended by itself: every row written (ok), or the recorded failure (error)
_REPLAY_ENDED = frozenset({"adapter_ok", "adapter_error"})


def _replay_ended(path: str) -> bool:
    """Whether the run's summary says its replay ran to its end: a run whose import was killed and that
    ``resume_run`` then sealed ``error`` (``process_lost``), or that timed out, holds only part of the trace."""
    try:
        got = read_file(os.path.join(path, "summary.json"), path)
        summary = loads_checked(got[0])[0] if got is not None else None  # a key twice: unknown (runs_df says so)
    except Exception:
        return False
    ours = summary.get("x-noesis_nb") if isinstance(summary, dict) else None
    reasons = ours.get("reasons") if isinstance(ours, dict) else None
    return isinstance(reasons, list) and any(isinstance(r, str) and r in _REPLAY_ENDED for r in reasons)


_MEMO_DIR = "trace-digests"
_MEMO_MAX_BYTES = 256 << 20


def _memo_path(root: Path) -> Path:
    """This user's copy of the ``trace_digest`` tags of the runs of ``root`` (known by its real path)."""
    name = hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:32]
    return cache_root() / _MEMO_DIR / f"{name}.json"


def _read_memo(path: Path) -> dict[str, Any]:
    """The kept tags ({run folder, from the root: [*its log's stamp, tag or None]}); {} for a file that is missing,
    cut or not one."""
    try:
        memo = orjson.loads(read_cached(path, _MEMO_MAX_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return {}
    return memo if isinstance(memo, dict) else {}


def _state(path: str) -> dict[str, Any] | None:
    """The run's ``state.json`` as a dict; None when it is missing or cannot be read as one (it stands for nothing)."""
    try:
        got = read_file(os.path.join(path, "state.json"), path)
        state = loads_checked(got[0])[0] if got is not None else None  # a tag written twice stands for nothing
    except Exception:  # an unreadable run stands for nothing
        return None
    return state if isinstance(state, dict) else None


def _tag(state: dict[str, Any] | None) -> str | None:
    """The run's ``trace_digest`` tag (None when it has none)."""
    episode = state.get("episode") if state is not None else None
    tags = episode.get("tags") if isinstance(episode, dict) else None
    tag = tags.get(DIGEST_TAG) if isinstance(tags, dict) else None
    return tag if isinstance(tag, str) else None


def _stands_for(state: dict[str, Any], digest: str, name: str) -> bool:
    """A run's ``state.json`` says it was imported from ``digest``, is the run in its folder, and finished."""
    episode, outcomes = state.get("episode"), state.get("outcomes")
    if not isinstance(episode, dict) or not isinstance(outcomes, dict) or episode.get("id") != name:
        return False
    tags = episode.get("tags")
    return isinstance(tags, dict) and tags.get(DIGEST_TAG) == digest and outcomes.get("status") in _FINISHED


@contextlib.contextmanager
def import_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the root folder (made if missing) for one import; where the folder cannot be
    made or locked (a bad root, a file system without ``flock``), nothing is held and the import's own checks speak."""
    fd: int | None = None
    try:
        try:
            os.makedirs(root, exist_ok=True)
            if fcntl is not None:
                fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
                fcntl.flock(fd, fcntl.LOCK_EX)  # waits for another process importing into this root
        except OSError:
            pass
        yield
    finally:
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the lock
