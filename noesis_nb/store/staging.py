"""Staging folders (``.<episode id>.<hex>.creating``): where a run is made before one rename shows it whole.

A process killed while creating a run (``kill -9``, a dead kernel) leaves its staging folder behind.
The creator locks the folder (``flock``, as ``ownership`` does for runs) right after making it and
holds the lock until the rename, and the system drops the lock when the creator dies. So a staging
folder is removed only when it is older than ``STALE_AFTER_S``, nobody holds its lock, and it holds
nothing but what a creation writes; a folder another process is filling is never touched. The
first run a process creates in a root sweeps that root once (one directory scan, ~10 ms for a
root of 10,000 runs); later creations in the same root do not scan again.
"""

from __future__ import annotations

import os
import threading
import time

from .ownership import OWNER_FILE  # the owner note: written before the rename, it moves with the run

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: staging folders are left as they are
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "STALE_AFTER_S",
    "is_staging",
    "left_staging",
    "remove_stale_staging",
    "stale_staging",
    "staging_name",
    "sweep_once",
]

STALE_AFTER_S = 600.0
_SUFFIX = ".creating"
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_swept: set[str] = set()
_swept_lock = threading.Lock()


def staging_name(episode_id: str, token: str) -> str:
    return f".{episode_id}.{token}{_SUFFIX}"


def is_staging(name: str) -> bool:
    return name.startswith(".") and name.endswith(_SUFFIX) and len(name) > len(_SUFFIX) + 1


def left_staging(root: str | os.PathLike[str]) -> list[str]:
    """Names of the staging folders in ``root`` (being filled now, or left by a process that died)."""
    try:
        with os.scandir(root) as it:
            return sorted(e.name for e in it if is_staging(e.name) and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def remove_stale_staging(root: str | os.PathLike[str], older_than_s: float | None = None) -> list[str]:
    """Remove the staging folders of ``root`` whose creator is gone (untouched ``STALE_AFTER_S`` unless given,
    its lock free, nothing in it but what a creation writes); returns the names removed."""
    bound = STALE_AFTER_S if older_than_s is None else older_than_s
    return [name for name in left_staging(root) if _remove(os.path.join(root, name), bound)]


def stale_staging(root: str | os.PathLike[str], older_than_s: float | None = None) -> list[str]:
    """Names of the staging folders ``remove_stale_staging`` would remove, left in place."""
    bound = STALE_AFTER_S if older_than_s is None else older_than_s
    return [name for name in left_staging(root) if _remove(os.path.join(root, name), bound, dry=True)]


def sweep_once(root: str | os.PathLike[str]) -> None:
    """``remove_stale_staging`` the first time this process creates a run in ``root``; never raises."""
    key = os.path.abspath(root)
    with _swept_lock:
        if key in _swept:
            return
        _swept.add(key)
    try:
        remove_stale_staging(key)
    except OSError:  # pragma: no cover - a root that cannot be listed or changed: creation says so itself
        pass


def _is_creation_file(name: str) -> bool:
    return name in ("state.json", "learn.jsonl", OWNER_FILE) or (name.startswith(".state.json.") and name.endswith(".tmp"))


def _remove(path: str, older_than_s: float, *, dry: bool = False) -> bool:
    if fcntl is None:  # pragma: no cover
        return False
    try:
        fd = os.open(path, _DIR_FLAGS)  # a link planted under a staging name is not followed
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if time.time() - max(st.st_mtime, st.st_ctime) < older_than_s:
            return False  # young: its creator may be between making it and locking it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held by its live creator (or a file system that cannot tell): left alone
        names = os.listdir(fd)
        if not all(_is_creation_file(n) for n in names):
            return False  # something no creation writes: not ours to delete
        if dry:
            return True
        for name in names:
            os.unlink(name, dir_fd=fd)
        os.rmdir(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
