"""This user's cache folder for noesis_nb: ``$NOESIS_NB_CACHE_DIR``, else ``$XDG_CACHE_HOME/noesis_nb``, else
``~/.cache/noesis_nb``. Only copies live there (price rates, the runs index): anything in it may be deleted.

A cache folder may be shared (a world-writable ``NOESIS_NB_CACHE_DIR``) or planted with links by another user, so
nothing is read, written or deleted there until each folder on the way has been checked through an open handle: a
real folder (no link below the root), owned by this user, that no one else may write. Every file is then opened,
replaced or removed relative to that handle, never through a path another user could change. A folder that fails
is not used (loads work uncached) and one warning names it with the fix. Files read back must be this user's too.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import secrets
import stat
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ._envvars import path_from_env, value_shown
from .errors import InvalidOptionError

__all__ = ["cache_root", "cache_problem", "read_cached", "write_cached", "remove_cached", "user_folder", "user_stacklevel"]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC | getattr(os, "O_BINARY", 0) | _NOFOLLOW
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | getattr(os, "O_BINARY", 0) | _NOFOLLOW
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
_AT = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and os.unlink in os.supports_dir_fd
_ENV = "NOESIS_NB_CACHE_DIR"
_warned: set[str] = set()
_warn_lock = threading.Lock()


def user_folder(xdg_variable: str, fallback: str) -> str | None:
    """``$<xdg_variable>`` when it is an absolute path, else ``~/<fallback>``; None when neither is absolute.

    The XDG spec says a relative value is ignored: as a path it is under whatever folder the process runs in, where
    a key or a cache could be committed with a project. One rule for the config (``_sealkey``) and cache folders.
    """
    base = os.environ.get(xdg_variable, "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), fallback)
    return base if os.path.isabs(base) else None


def _configured() -> tuple[str | None, str | None]:
    """(the cache folder, None), or (None, why there is none, with the fix)."""
    try:
        text = path_from_env(_ENV)  # blank: unset (as a path it is the working folder); a control character refused
    except InvalidOptionError as exc:
        return None, f"{exc} (or unset it)"
    if text:
        text = os.path.expanduser(text)
        if not os.path.isabs(text):
            return None, (
                f"${_ENV}={value_shown(text)} is not an absolute path (it would put the cache under the working folder): set it "
                "to a folder's absolute path, or unset it"
            )
        return os.path.normpath(text), None
    base = user_folder("XDG_CACHE_HOME", ".cache")
    if base is None:
        return None, f"no absolute cache folder is known (HOME is unset or relative): set ${_ENV} to a folder's absolute path"
    return os.path.join(base, "noesis_nb"), None


def cache_root() -> Path:
    """The folder (not created here); read from the environment on each call, so a test or a notebook may move it.
    When none may be used (``cache_problem``), a path every read and write refuses."""
    root, _ = _configured()
    return Path(root) if root is not None else Path(os.devnull) / "noesis_nb-cache"


def cache_problem() -> str | None:
    """Why ``NOESIS_NB_CACHE_DIR`` (or the home it defaults to) gives no cache folder, or why the folder there is
    not used (another user's, or others may write it, and noesis_nb did not make it), with the fix; None when
    it gives one."""
    root, problem = _configured()
    if root is None or problem is not None:
        return problem
    try:
        st = os.stat(root)
    except FileNotFoundError:  # not made yet: the first load makes it, unless a link there points nowhere
        if os.path.islink(root):
            return (
                f"{root!r} is a link to {os.readlink(root)!r}, which does not exist; make that folder, or remove the "
                "link, or set NOESIS_NB_CACHE_DIR to a folder of your own"
            )
        return None
    except OSError as exc:  # under a file, or not reachable
        why, fix = _unusable(root, exc)
        return f"{root!r} {why}; {fix}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{root!r} is not a folder; remove it or set NOESIS_NB_CACHE_DIR to a folder of your own"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"{root!r} is owned by another user (uid {st.st_uid}); set NOESIS_NB_CACHE_DIR to a folder of your own"
    if others_may_write(st) and path_from_env(_ENV):  # one noesis_nb made is made private when used
        why, fix = _open_to_others(st, root)
        return f"{root!r} {why}; {fix}"
    return None


def _warn_once(key: str, message: str) -> None:
    with _warn_lock:
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn(f"noesis_nb cache not used: {message} (loads work, uncached)", UserWarning, stacklevel=user_stacklevel())


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` (for the caller of this) of the first frame outside noesis_nb: a warning points at the
    user's line, not the package's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (
        os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE) or frame.f_code.co_filename == contextlib.__file__
    ):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level if frame is not None else 2


class _Refused(OSError):
    """A cache folder that failed its check (already warned about)."""


def _refuse(folder: str, why: str, fix: str) -> _Refused:
    _warn_once(folder, f"{folder!r} {why}; {fix}")
    return _Refused(f"{folder} {why}")


def _check(fd: int, folder: str, top: bool, ours: bool) -> None:
    """Refuse the open folder ``fd`` unless it is a folder of this user that no one else may write.

    ``ours``: a folder noesis_nb makes (all but a ``$NOESIS_NB_CACHE_DIR`` the user chose). One of this user's that
    others may write is made private instead of refused: releases before made ``~/.cache/noesis_nb`` with the
    process's umask (``002`` on many desktops: group-writable), and a warning on every load would follow the
    upgrade. Safe, as whatever another user could have put into it is theirs, and never read (``read_cached``)."""
    st = os.fstat(fd)
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse(folder, "is not a folder", "remove it or set NOESIS_NB_CACHE_DIR to a folder of your own")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise _refuse(
            folder,
            f"is owned by another user (uid {st.st_uid})",
            "set NOESIS_NB_CACHE_DIR to a folder of your own" if top else "remove it (it is made again, private)",
        )
    if others_may_write(st) and ours:
        with contextlib.suppress(OSError):
            os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~0o077)
            st = os.fstat(fd)
    if others_may_write(st):
        raise _refuse(folder, *_open_to_others(st, folder))


def _open_to_others(st: os.stat_result, folder: str) -> tuple[str, str]:
    """(why, fix) for a folder other users may write."""
    return (
        f"may be written by other users (mode {stat.S_IMODE(st.st_mode):04o})",
        f"run chmod 700 {folder!r}, or set NOESIS_NB_CACHE_DIR to a private folder",
    )


def others_may_write(st: os.stat_result) -> bool:
    """Whether a user other than this one may write the file or folder ``st`` describes: world-writable, or
    group-writable by a group with anyone else in it. A user private group (the user's own primary group, no one
    else in it: what umask-002 desktops give each user) writing it is this user alone."""
    if not hasattr(os, "getuid"):
        return False
    return bool(st.st_mode & 0o002) or bool(st.st_mode & 0o020 and not _private_group(st.st_gid))


@functools.lru_cache(maxsize=16)
def _private_group(gid: int) -> bool:
    """Whether group ``gid`` holds this user alone: their primary group, no other member listed, no other user's
    primary group."""
    try:
        import grp
        import pwd

        me = pwd.getpwuid(os.getuid())
        group = grp.getgrgid(gid)
        if gid != me.pw_gid or any(member != me.pw_name for member in group.gr_mem):
            return False
        return not any(user.pw_gid == gid and user.pw_uid != me.pw_uid for user in pwd.getpwall())
    except (ImportError, KeyError, OSError):
        return False


def _links_of_others(root: str) -> str | None:
    """The first link on the way to ``root`` owned by neither this user nor root (planted in a shared folder)."""
    if not hasattr(os, "getuid"):
        return None
    path = os.sep
    for part in root.split(os.sep):
        if not part:
            continue
        path = os.path.join(path, part)
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode) and st.st_uid not in (0, os.getuid()):
            return path
        if stat.S_ISLNK(st.st_mode):
            path = os.path.realpath(path)
    return None


@contextmanager
def _as_folder(root: str, create: bool) -> Iterator[None]:
    """Around making or opening the cache folder ``root``: _Refused (warned once) when the path is something else (a
    file, a FIFO, a path under a file, a folder this user may not make); a plain OSError only for a folder not made
    yet that a read finds missing (the first write makes it)."""
    try:
        yield
    except OSError as exc:
        if isinstance(exc, _Refused) or (exc.errno == errno.ENOENT and not create):
            raise
        raise _refuse(root, *_unusable(root, exc)) from exc


def _unusable(root: str, exc: OSError) -> tuple[str, str]:
    """(why, fix) for a cache path that cannot be made or opened as a folder."""
    fix = "remove it or set NOESIS_NB_CACHE_DIR to a folder of your own"
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        return ("is not a folder", fix) if os.path.lexists(root) else ("is under a file, not a folder", fix)
    return f"cannot be made or opened as a folder ({exc.strerror or exc})", "set NOESIS_NB_CACHE_DIR to a folder of your own"


@contextmanager
def _folder(parts: tuple[str, ...], create: bool) -> Iterator[int]:
    """An open handle on the cache folder ``root/parts...``, each step checked (``_check``); _Refused or OSError."""
    root, problem = _configured()
    if root is None:
        _warn_once(_ENV, problem or "")
        raise _Refused(problem)
    if create:
        with _as_folder(root, create):
            os.makedirs(root, mode=0o700, exist_ok=True)
    planted = _links_of_others(root)
    if planted is not None:
        raise _refuse(planted, "is a link made by another user", "remove it, or set NOESIS_NB_CACHE_DIR to a folder of your own")
    with _as_folder(root, create):
        fd = os.open(root, _DIR_FLAGS)
    try:
        _check(fd, root, True, ours=not path_from_env(_ENV))
        folder = root
        for part in parts:
            folder = os.path.join(folder, part)
            if create:
                try:
                    os.mkdir(part, 0o700, dir_fd=fd) if _AT else os.mkdir(folder, 0o700)
                except FileExistsError:
                    pass
            try:
                sub = os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd) if _AT else os.open(folder, _DIR_FLAGS | _NOFOLLOW)
            except OSError as exc:
                if os.path.islink(folder):
                    raise _refuse(folder, "is a link", "remove it (the folder is made again, private)") from exc
                raise
            os.close(fd)
            fd = sub
            _check(fd, folder, False, ours=True)
        yield fd
    finally:
        os.close(fd)


def _parts(path: Path) -> tuple[tuple[str, ...], str]:
    """(the folders under the cache root, the file name) of ``path``; _Refused for a path outside the cache."""
    root, problem = _configured()
    if root is None:
        _warn_once(_ENV, problem or "")
        raise _Refused(problem)
    rel = os.path.relpath(os.path.normpath(os.fspath(path)), root) if os.path.isabs(path) else ".."
    parts = tuple(rel.split(os.sep))
    if any(p in ("", ".", "..") for p in parts):
        raise _Refused(f"{path} is not in the cache folder {root}")
    return parts[:-1], parts[-1]


def read_cached(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` in the cache folder (at most ``limit``), this user's alone; OSError for
    anything else: a FIFO there would block the read forever, a device (a link to ``/dev/zero``) never end it, a
    link may point anywhere, a file another user wrote (a pickled frame) is not this user's copy."""
    folders, name = _parts(path)
    with _folder(folders, create=False) as dfd:
        fd = os.open(name, _READ_FLAGS, dir_fd=dfd) if _AT else os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        theirs = hasattr(os, "getuid") and (st.st_uid != os.getuid() or others_may_write(st))
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit or theirs:
            raise OSError(f"{path} is not a cache file of noesis_nb")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_cached(path: Path, data: bytes) -> None:
    """Replace ``path`` in the cache folder with ``data``, readable by this user alone (a private temp file renamed
    into place in the checked folder). OSError when the folder refuses or fails its check.

    Not synced: a copy lost or cut by a crash is checked on reading and built again.
    """
    folders, name = _parts(path)
    with _folder(folders, create=True) as dfd:
        tmp = f".{name}.{os.getpid()}.{secrets.token_hex(6)}"
        at = {"dir_fd": dfd} if _AT else {}
        tmp_path = tmp if _AT else os.path.join(os.path.dirname(path), tmp)
        fd = os.open(tmp_path, _WRITE_FLAGS, 0o600, **at)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            if _AT:
                os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            else:
                os.replace(tmp_path, path)
        except BaseException:
            try:
                os.unlink(tmp_path, **at)
            except OSError:
                pass
            raise


def remove_cached(folder: Path, which: Callable[[str, float], bool]) -> None:
    """Remove the entries of the cache folder ``folder`` for which ``which(name, mtime)`` holds, inside it alone:
    nothing when the folder is missing or fails its check (a link planted there leads to no deletion)."""
    try:
        folders = _parts(folder / "_")[0]  # the folder's own path, as a file's in it would be
        with _folder(folders, create=False) as dfd:
            names = os.listdir(dfd) if _AT else os.listdir(folder)
            for entry in names:
                try:
                    at = {"dir_fd": dfd} if _AT else {}
                    target = entry if _AT else os.path.join(folder, entry)
                    st = os.stat(target, follow_symlinks=False, **at)
                    if not stat.S_ISDIR(st.st_mode) and which(entry, st.st_mtime):
                        os.unlink(target, **at)
                except OSError:
                    pass
    except OSError:
        return
