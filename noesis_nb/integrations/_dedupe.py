"""One run per recorded trace and root: importing the identical trace again points at the run made the first time.

A trace's identity is a digest of everything the import writes from (its source, task, options and every row,
including a row that could not be read), recorded in the run as the ``trace_digest`` tag. Before a new run is
made, the root is searched for a sealed run with that tag. Two processes importing the same trace at once are
serialised by an ``flock`` on the root folder itself (no file is added to it), held from the search until the
run is sealed, so the second finds the first's run. A changed trace, task or option makes a new run; a run that
did not finish (cancelled, or its process killed) is not taken for the import.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

try:  # POSIX; elsewhere imports into one root are not serialised (each still makes a whole run)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from ..store import is_sealed
from ..store.roots import iter_run_dirs
from ..store.runfiles import read_file

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
    """``sha256:<hex>`` over ``parts`` (source, task, options) and the rows, in order, and the error that ended them."""
    h = hashlib.sha256()
    h.update(_encoded(parts))
    for row in rows:
        h.update(b"\n")
        h.update(_encoded(row))
    if failure is not None:
        h.update(f"\n!{type(failure).__qualname__}: {failure}".encode("utf-8", "backslashreplace"))
    return f"sha256:{h.hexdigest()}"


def imported_before(root: Path, digest: str) -> str | None:
    """The episode id of a finished, sealed run under ``root`` imported from the trace ``digest`` names, if any."""
    try:
        run_dirs = list(iter_run_dirs(root))
    except OSError:
        return None
    for run_dir in run_dirs:
        try:
            got = read_file(str(run_dir / "state.json"), str(run_dir))
            if got is None or digest.encode() not in got[0]:  # most runs: no JSON parsed
                continue
            state = orjson.loads(got[0])
        except Exception:  # an unreadable run stands for nothing
            continue
        if isinstance(state, dict) and _stands_for(state, digest, run_dir.name) and is_sealed(run_dir):
            return run_dir.name
    return None


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
