"""Listing a run's ``tool_invocations/`` folders with few system calls, never following a symlink out of the run.

``RunRef.listdir`` checks every folder on the way with an ``lstat`` before listing (a symlink may
lead out of the run); a run's draft count and manifest check list up to four folders below
``tool_invocations/``, which repeats the same checks. Here one ``lstat`` and one ``scandir`` of
``tool_invocations/`` tell which of its entries are plain folders: those are listed at once, an
absent one is empty, and anything else (a symlink, a file, a folder deeper down, a remote run)
goes through ``RunRef.listdir``, which reports it exactly as before.
"""

from __future__ import annotations

import os
import stat

from ..store.runfiles import change_stamp, list_dir, read_file
from .fs import BadFile, Stat, dir_stamp
from .source import RunRef

__all__ = ["ToolFolders"]

_TOP = "tool_invocations"


class ToolFolders:
    """The folders of one run's ``tool_invocations/``, looked at once (on the first listing) for one load."""

    __slots__ = ("ref", "_kinds", "_stat", "_looked", "_stamped")

    def __init__(self, ref: RunRef):
        self.ref = ref
        self._kinds: dict[str, bool] | None = None  # entry name -> a plain folder (no symlink); None: not known
        self._stat: Stat | None = None  # of tool_invocations/, taken before it was listed; None when absent
        self._looked = False
        # parts -> (names or the ``BadFile`` raised, the stamps taken before): each folder listed once a load, by
        # whichever reader asks first (``runlearned``'s values, a frame's rows)
        self._stamped: dict[tuple[str, ...], tuple[list[str] | BadFile, dict[str, object]]] = {}

    def kinds(self) -> dict[str, bool] | None:
        """Entries of ``tool_invocations/`` (a plain folder or not); ``{}`` when it is absent, None when unknown."""
        if not self._looked:
            self._looked = True
            self._kinds, self._stat = _kinds(self.ref)
        return self._kinds

    def absent(self, parts: tuple[str, ...]) -> bool:
        """Whether the folder is known not to exist (no ``stat`` needed to stamp it)."""
        kinds = self.kinds() if len(parts) > 1 and parts[0] == _TOP else None
        return kinds is not None and parts[1] not in kinds

    def absence(self, parts: tuple[str, ...]) -> tuple[str, Stat | None]:
        """(stamp key, stamp) that shows an absent folder (``absent(parts)``) appearing.

        ``tool_invocations/``'s own stat, taken before it was listed, when it exists (creating
        an entry in it changes it: a cached run then checks a folder that exists, no failed
        ``stat``); else the folder's own key with None.
        """
        if self._stat is not None:
            return _TOP + "/", self._stat
        return "/".join(parts) + "/", None

    def listdir(self, parts: tuple[str, ...]) -> list[str]:
        """What ``RunRef.listdir(*parts)`` gives (``BadFile`` included), with fewer system calls for a plain folder."""
        kinds = self.kinds() if parts and parts[0] == _TOP else None
        if kinds is not None:
            if len(parts) == 1:
                return list(kinds)
            kind = kinds.get(parts[1])
            if kind is None:
                return []  # absent: as RunRef.listdir says of a folder that is not there
            if kind and len(parts) == 2:
                return list_dir(self.ref.file(*parts))  # a plain folder inside a plain folder of the run
        return self.ref.listdir(*parts)

    def read(self, parts: tuple[str, ...], name: str) -> tuple[bytes, Stat] | None:
        """What ``RunRef.read(*parts, name)`` gives (``BadFile`` included). A record in a plain folder of a plain
        ``tool_invocations/`` (what ``kinds`` saw: an ``lstat`` and a listing) is read without ``lstat``-ing those two
        folders again, as ``RunRef.read`` would for each record; the record itself is never followed out of the run."""
        kinds = self.kinds() if len(parts) == 2 and parts[0] == _TOP else None
        if kinds is not None and kinds.get(parts[1]):
            ref = self.ref
            got = read_file(ref.file(*parts, name), ref.path, folders_plain=True)
            return None if got is None else (got[0], got[1])
        return self.ref.read(*parts, name)

    def listdir_stamped(self, parts: tuple[str, ...], stamp: dict[str, object]) -> list[str]:
        """``listdir(parts)``, with the folder's change marker put in ``stamp`` (also when the listing fails).

        A local folder is stamped before it is listed: a file written in between changes the folder
        after the stamp, so the next load reads the run again instead of keeping a listing that misses it.
        The folder is listed once: a second reader of this load gets the same names and stamp.
        """
        done = self._stamped.get(parts)
        if done is None:
            marks: dict[str, object] = {}
            try:
                done = self._stamped[parts] = (self._list_stamped(parts, marks), marks)
            except BadFile as exc:
                done = self._stamped[parts] = (exc, marks)
        listing, marks = done
        for key, value in marks.items():
            stamp.setdefault(key, value)
        if isinstance(listing, BadFile):
            raise listing
        return list(listing)

    def _list_stamped(self, parts: tuple[str, ...], stamp: dict[str, object]) -> list[str]:
        if self.absent(parts):  # no stat: what would show it appearing
            stamp.setdefault(*self.absence(parts))
            return []
        ref = self.ref
        folder = ref.file(*parts)
        local = ref.fs.protocol == "file"
        before = dir_stamp(ref.fs, folder, None) if local else None
        listing: list[str] = []
        try:
            listing = self.listdir(parts)
            return listing
        finally:
            stamp.setdefault("/".join(parts) + "/", before if local else dir_stamp(ref.fs, folder, listing))


def _kinds(ref: RunRef) -> tuple[dict[str, bool] | None, Stat | None]:
    if ref.fs.protocol != "file":
        return None, None
    path = ref.file(_TOP)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return {}, None
    except OSError:
        return None, None  # the careful path says what is wrong
    if not stat.S_ISDIR(st.st_mode):
        return None, None  # a symlink or a file: the careful path follows or reports it
    try:
        with os.scandir(path) as entries:
            return {e.name: e.is_dir(follow_symlinks=False) for e in entries}, change_stamp(st)
    except OSError:
        return None, None
