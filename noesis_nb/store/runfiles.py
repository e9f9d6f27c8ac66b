"""Reading a run's files without leaving the run: no symlink out of it, no directory, FIFO or device read as a file.

Runs are shared and downloaded, so any file of a run may be a symlink to anywhere
(``/etc/passwd``), a directory, a FIFO that would block a reader forever, or unreadable.
``read_file`` returns the bytes of a regular file (None when it does not exist) and raises
``UnreadableRunFile`` — naming the path and what is there instead — for everything else.
A symlink (the file, or a folder on the way to it) is followed only when its target stays inside
``within`` (the run directory).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from typing import Any, BinaryIO

from ..errors import NoesisNbError, quoted_path

__all__ = [
    "UnreadableRunFile",
    "change_stamp",
    "stamps_settled",
    "times_settled",
    "RACY_NS",
    "ROOT_SETTLE_NS",
    "read_file",
    "open_file",
    "list_dir",
    "inside",
    "what_is",
    "MAX_DOCUMENT_BYTES",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_CHUNK = 1 << 20
#: a JSON document of a run (summary, state, manifest, a tool record) larger than this is not read: none
#: is near it, and a sparse or crafted one would take the memory of the process reading it
MAX_DOCUMENT_BYTES = 512 << 20


def _memory_bytes() -> int | None:
    """This machine's physical memory (None where it cannot be asked): no file larger is read whole."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


_MEMORY = _memory_bytes()


def _size_text(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _too_large(path: str, size: int) -> str | None:
    """Why a file of ``size`` bytes is not read whole, or None (a document past ``MAX_DOCUMENT_BYTES``,
    anything past the machine's memory: a sparse file claims terabytes it does not hold)."""
    if path.endswith(".json") and size > MAX_DOCUMENT_BYTES:
        return (
            f"{_size_text(size)}, more than a run document is read at ({_size_text(MAX_DOCUMENT_BYTES)}: "
            "noesis_nb.store.runfiles.MAX_DOCUMENT_BYTES); not read"
        )
    if _MEMORY is not None and size > _MEMORY:
        return f"{_size_text(size)}, more than this machine's memory ({_size_text(_MEMORY)}); not read"
    return None


class UnreadableRunFile(NoesisNbError, OSError):
    """A run file that exists but cannot be read as one: ``path`` and ``reason`` say which and why.

    A ``NoesisNbError`` (one line in IPython, caught with noesis_nb's other errors) and still an ``OSError``."""

    def __init__(self, path: str, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{quoted_path(path)}: {reason}")  # a run root or folder name may hold a key


#: ``change_stamp``'s (size, mtime_ns, ctime_ns, inode, device)
Stamp = tuple[int, int, int, int, int]


def change_stamp(st: os.stat_result) -> Stamp:
    """What tells a file changed: (size, mtime_ns, ctime_ns, inode, device). The ctime too, because the mtime
    can be set back (``touch -r``, ``cp -p``, ``rsync -t``) after an edit in place; the ctime cannot. The inode
    and device, because a rename changes no file's times: two run folders swapped by rename, or a file replaced
    by one of the same size and times (written within one clock tick), is another file at the same path."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


#: a file system stamps a change with its clock's tick (a few ms on Linux), so a file changed within one tick of
#: being looked at may change again and keep its stamp: so recent a stamp is not trusted (git's "racily clean" rule)
RACY_NS = 20_000_000
#: a runs root unchanged this long: an entry made in it since changes its mtime (a listing of it may be kept)
ROOT_SETTLE_NS = 2_000_000_000


def times_settled(*times_ns: int, window_ns: int = RACY_NS) -> bool:
    """Whether every time (ns) is older than ``window_ns``: a change after it would show in a new stamp."""
    limit = time.time_ns() - window_ns
    return all(t < limit for t in times_ns)


def stamps_settled(stamps: Any, window_ns: int = RACY_NS) -> bool:
    """Whether every ``change_stamp`` in ``stamps`` (one, or nested in tuples and dicts; anything else holds none)
    has its mtime and ctime older than ``window_ns``: only such a stamp may say that nothing changed since."""
    return _older(stamps, time.time_ns() - window_ns)


def _older(value: Any, limit: int) -> bool:
    """``stamps_settled`` against a fixed ``limit``: exact types, as it runs over every file of many runs."""
    if type(value) is tuple:
        if len(value) == 5 and type(value[0]) is int and type(value[1]) is int and type(value[2]) is int:
            return value[1] < limit and value[2] < limit
        for v in value:  # a loop, not ``all(...)``: a generator for each tuple cost more than its few items
            if type(v) is tuple and len(v) == 5 and type(v[0]) is int and type(v[1]) is int and type(v[2]) is int:
                if not (v[1] < limit and v[2] < limit):  # a stamp, judged here: no call for each of a run's files
                    return False
            elif not _older(v, limit):
                return False
        return True
    if type(value) is dict:
        for v in value.values():
            if not _older(v, limit):
                return False
    return True


def inside(path: str, within: str) -> bool:
    """Whether ``path``, with every symlink resolved, lies inside the directory ``within`` (resolved too)."""
    target, base = os.path.realpath(path), os.path.realpath(within)
    return target == base or target.startswith(base.rstrip(os.sep) + os.sep)


def what_is(mode: int) -> str:
    """What a file of this ``st_mode`` is, for messages: "a directory", "a FIFO (named pipe)"…"""
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _open(path: str, within: str | None, folders_plain: bool = False) -> int | None:
    if within is not None and not folders_plain and not _directly_in(path, within):
        parent = os.path.dirname(path)
        if parent.rstrip(os.sep) != within.rstrip(os.sep) and _linked(parent, within) and not inside(parent, within):
            raise UnreadableRunFile(
                path, f"leads to {os.path.realpath(path)} through a linked folder, outside the run; not followed"
            )
    try:
        return os.open(path, _FLAGS | _NOFOLLOW)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except PermissionError:
        raise UnreadableRunFile(path, "not readable (permission denied)") from None
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EMLINK) or not _NOFOLLOW:
            raise UnreadableRunFile(path, f"cannot be opened ({exc.strerror or exc})") from None
    # ``path`` is a symlink: follow it only to a place inside the run
    target = os.path.realpath(path)
    if within is not None and not inside(target, within):
        raise UnreadableRunFile(path, f"a symlink to {target}, outside the run; not followed")
    try:
        return os.open(target, _FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None  # a dangling link inside the run: as good as absent
    except OSError as exc:
        raise UnreadableRunFile(path, f"cannot be opened ({exc.strerror or exc})") from None


def _directly_in(path: str, within: str) -> bool:
    """Whether ``path`` is ``within`` + one separator + a name holding none (a run's own document, the common case):
    its folder is then ``within`` itself, what ``os.path.dirname`` would say, without its cost on every read."""
    at = len(within)
    return (
        path.startswith(within)
        and path.rfind(os.sep) == at
        and within[-1:] != os.sep
        and (os.altsep is None or path.find(os.altsep, at) == -1)
    )


def read_file(
    path: str, within: str | None = None, *, tail: int | None = None, folders_plain: bool = False
) -> tuple[bytes, Stamp, bool] | None:
    """(bytes, ``change_stamp``, whole) of a regular file; None when absent; ``UnreadableRunFile`` otherwise.

    ``tail`` reads only the last ``tail`` bytes (``whole`` says whether that is all of it). A file
    too large to read whole (``_too_large``) is ``UnreadableRunFile`` too, before anything is read.
    ``folders_plain``: the caller has just seen every folder between ``within`` and the file be a plain folder
    (an ``lstat`` and a listing, as ``frames.toolfolders`` does), so they are not ``lstat``-ed again here; the file
    itself is still never followed out of ``within``.
    """
    fd = _open(path, within, folders_plain)
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableRunFile(path, f"{what_is(st.st_mode)}, not a file")
        whole, want = True, st.st_size
        if tail is not None and want > tail:
            os.lseek(fd, want - tail, os.SEEK_SET)
            whole, want = False, tail
        elif want > MAX_DOCUMENT_BYTES and (why := _too_large(path, want)):
            raise UnreadableRunFile(path, why)
        data = os.read(fd, want + 1)  # one call for a file that is as long as its stat says
        if len(data) != want:  # it grew or shrank meanwhile (a live run), or a read was cut short: read to the end
            chunks = [data]
            while chunk := os.read(fd, _CHUNK):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev), whole  # ``change_stamp``
    except UnreadableRunFile:
        raise
    except OSError as exc:
        raise UnreadableRunFile(path, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def open_file(path: str, within: str | None = None) -> BinaryIO | None:
    """A regular file of the run opened for streaming (``rb``); None when absent; ``UnreadableRunFile`` otherwise."""
    fd = _open(path, within)
    if fd is None:
        return None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnreadableRunFile(path, f"{what_is(mode)}, not a file")
        if getattr(os, "O_NONBLOCK", 0):  # opened non-blocking (a FIFO never waits); Windows has neither
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _linked(path: str, within: str) -> bool:
    """Whether ``path`` or a folder between ``within`` and it is a symlink (one ``lstat`` per level)."""
    base = within.rstrip(os.sep)
    if not path.startswith(base + os.sep):
        return True  # not spelled below the run: resolve it to be sure
    current = base
    for part in path[len(base) + 1 :].split(os.sep):
        current = current + os.sep + part
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except OSError:
            return False  # absent: listing it finds nothing
    return False


def list_dir(path: str, within: str | None = None) -> list[str]:
    """Names in a run's folder ([] when absent); ``UnreadableRunFile`` for a file, a symlink out of the run, no permission."""
    if within is not None and _linked(path, within) and not inside(path, within):
        raise UnreadableRunFile(path, f"leads to {os.path.realpath(path)} through a symlink, outside the run; not followed")
    try:
        return os.listdir(path)
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise UnreadableRunFile(path, "a file, not a folder") from None
    except PermissionError:
        raise UnreadableRunFile(path, "not listable (permission denied)") from None
    except OSError as exc:
        raise UnreadableRunFile(path, f"cannot be listed ({exc.strerror or exc})") from None
