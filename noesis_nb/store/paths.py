"""Paths inside a run directory that are safe to write: no symlink on the way, no name from a file used raw.

Runs are shared and downloaded, so a run directory may hold links planted by someone else
(``approvals -> /elsewhere``). Every write into a run goes through :func:`run_path`, which
refuses a run directory that is itself a link, any linked or non-directory component, and any
part that is not a plain file name (ids read from files are untrusted input).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import InvalidIdError, InvalidOptionError, NoesisNbError, quoted_path
from ..secrets.quoted import quoted

__all__ = ["UnsafeRunPathError", "run_path", "check_part", "refuse_too_deep"]

_MAX_PART = 240
# the longest path a run writes below its folder: tool_invocations/x-python/<folder>/, a part (a draft id holds the
# caller's request id, up to _MAX_PART bytes) and a temp file's affixes beside it
_DEEPEST_IN_RUN = 48 + _MAX_PART + 32


class UnsafeRunPathError(NoesisNbError, OSError):
    """A write into a run would leave it (a symbolic link, or a component that is not a directory)."""


def check_part(part: str, what: str = "path part") -> str:
    """``part`` if it is one plain file name (no separator, not ``.``/``..``, no NUL, not too long)."""
    if not isinstance(part, str) or not part or part in {".", ".."} or "/" in part or "\\" in part or "\x00" in part:
        raise InvalidIdError(
            f"{what} {quoted(part)} is not a plain file name; ids read from run files must not contain "
            "'/', '\\\\' or NUL, nor be '.' or '..'"
        )
    if len(part.encode("utf-8", "surrogateescape")) > _MAX_PART:
        raise InvalidIdError(
            f"{what} {quoted(part, 40)}… is {len(part)} characters long; file names are limited to "
            f"{_MAX_PART} bytes, so use a shorter id"
        )
    return part


def run_path(run_dir: str | os.PathLike[str], *parts: str, mkdir: bool = False) -> Path:
    """``run_dir/parts…`` for writing. With ``mkdir``, the directories above the last part are created.

    Raises :class:`UnsafeRunPathError` when the run directory or a component below it is a symbolic
    link or not a directory, and :class:`InvalidIdError` when a part is not a plain name.
    """
    root = Path(run_dir)
    _not_a_link(root, root, "the run directory")
    path = root
    for index, part in enumerate(parts):
        path = path / check_part(part)
        last = index == len(parts) - 1
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            if not last and mkdir:
                try:
                    os.mkdir(path)
                except FileExistsError:
                    pass
                _not_a_link(path, root, "a folder of the run")
            continue
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeRunPathError(
                f"{quoted_path(path)} is a symbolic link; noesis_nb never writes through links inside a run "
                f"({quoted_path(root)}). Replace the link with the real file or folder."
            )
        if not last and not stat.S_ISDIR(st.st_mode):
            raise UnsafeRunPathError(f"{quoted_path(path)} is not a directory; the run {quoted_path(root.name)} is damaged")
    return path


def _not_a_link(path: Path, root: Path, what: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeRunPathError(
            f"{what} {quoted_path(path)} is a symbolic link; pass the real run directory "
            f"({quoted_path(os.path.realpath(path))}) if you mean to write there"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeRunPathError(f"{what} {quoted_path(path)} is not a directory")


def refuse_too_deep(runs_dir: Path, episode_id: str) -> None:
    """Refuse a runs dir so long that a file of the run would pass the system's path limit: the run would start,
    then fail at its first tool draft with a bare ``[Errno 36] File name too long``."""
    run = os.fsencode(os.fspath(Path(runs_dir) / episode_id))
    try:
        limit = os.pathconf(_existing(Path(runs_dir)), "PC_PATH_MAX")
    except (OSError, ValueError):
        limit = 4096
    room = limit - 1 - len(run)  # the path a system call is given ends in a NUL
    if room < _DEEPEST_IN_RUN:
        raise InvalidOptionError(
            f"runs_dir={quoted(str(runs_dir), 80)} is {len(run) - len(episode_id) - 1} bytes long: the files of a run "
            f"in it would pass the system's path limit ({limit} bytes) and the run would fail mid-way; pass a runs_dir "
            f"of at most {limit - 1 - _DEEPEST_IN_RUN - len(episode_id) - 1} bytes (or a relative path from a folder "
            "near it); nothing was written"
        )


def _existing(path: Path) -> Path:
    """``path``, or the nearest of its parents that exists (a runs dir is made on the run's first write)."""
    for candidate in (path, *path.parents):
        if os.path.isdir(candidate):
            return candidate
    return Path(".")
