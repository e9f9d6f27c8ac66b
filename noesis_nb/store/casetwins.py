"""Run folders of a runs root whose names differ from a new run's id by case only (``ep_x`` beside ``ep_X``): a copy
of the root on macOS or Windows (case-insensitive) holds one folder for both, so a new run is refused such an id.

The root is listed once and its folders' names kept, keyed by what ``stat`` says of the root (device, inode, mtime
and link count: on most file systems a folder's link count counts its subfolders). A create that finds the key
unchanged asks no listing; one that made exactly its own folder meanwhile (the link count one more) carries the kept
names on with its id. Any other change (another process's run, a removed folder, a file system whose link count
counts nothing) is listed again at the next create: a batch of N runs with ids of its own costs O(N) stats, not N
listings of a root growing to N runs. Only folders count (a link to one too): a file named like the id is no run.

Left open, by measure: a change keeping the root's link count (a folder renamed by hand, a file added) made between
a create's check and ``note_created`` (its staging folder made, then renamed into place: a few ms), or after it in
the same mtime tick (timestamps are coarse: about 4 ms on ext4 and tmpfs, 2 s on FAT), leaves a key ``stat`` cannot
tell from the create's own; such a name is seen at the root's next change of any kind. Telling them apart takes a
listing per create (O(N) each, the cost this module exists to avoid), so it is left so.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import NamedTuple

__all__ = ["RootKey", "case_twin", "note_created"]

_KEPT_ROOTS = 32  # roots whose names are kept at once (a process writing to more lists the others again)


class RootKey(NamedTuple):
    """What ``stat`` says of a runs root: the names kept of it hold while it says the same."""

    dev: int
    ino: int
    mtime_ns: int
    nlink: int


class _Names(NamedTuple):
    key: RootKey
    folded: dict[str, str]  # a folder's name casefolded -> its name


_LOCK = threading.Lock()
_ROOTS: dict[str, _Names] = {}


def _key(root: str) -> RootKey | None:
    try:
        st = os.stat(root)
    except OSError:
        return None
    return RootKey(st.st_dev, st.st_ino, st.st_mtime_ns, st.st_nlink)


def case_twin(runs_dir: Path, episode_id: str) -> tuple[str | None, RootKey | None]:
    """(the name of a folder of ``runs_dir`` differing from ``episode_id`` by case only, or None; the root's key as
    it was checked, for ``note_created``). No root yet, or one not listable: (None, None), its creation says so."""
    root = os.fspath(runs_dir)
    key = _key(root)
    if key is None:
        return None, None
    with _LOCK:
        kept = _ROOTS.get(root)
    if kept is None or kept.key != key:
        try:
            with os.scandir(root) as entries:
                folded = {e.name.casefold(): e.name for e in entries if not e.name.startswith(".") and _is_folder(e)}
        except OSError:
            return None, None
        kept = _Names(key, folded)
        with _LOCK:
            _ROOTS.pop(root, None)
            while len(_ROOTS) >= _KEPT_ROOTS:
                _ROOTS.pop(next(iter(_ROOTS)))
            _ROOTS[root] = kept
    twin = kept.folded.get(episode_id.casefold())
    return (twin if twin is not None and twin != episode_id else None), key


def note_created(runs_dir: Path, episode_id: str, checked: RootKey | None) -> None:
    """``episode_id``'s folder was made in ``runs_dir``, which ``case_twin`` found as ``checked``: the kept names go
    on with it when nothing else changed the root meanwhile (its link count exactly one more), else are dropped."""
    root = os.fspath(runs_dir)
    key = _key(root)
    with _LOCK:
        kept = _ROOTS.get(root)
        if kept is None:
            return
        if checked is None or key is None or kept.key != checked or key.nlink != checked.nlink + 1:
            del _ROOTS[root]
            return
        kept.folded[episode_id.casefold()] = episode_id
        _ROOTS[root] = _Names(key, kept.folded)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # the type the listing gave; a link is followed (a run linked into the root)
    except OSError:
        return False
