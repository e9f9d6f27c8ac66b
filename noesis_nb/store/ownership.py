"""One writer per run, across processes: an advisory lock on the run directory itself.

A live episode holds its run's lock from creation to seal (or to a pause it leaves on disk);
``resume_run`` takes the same lock before it writes anything. The lock is an ``flock`` on the
open run directory, so the operating system drops it when the holder dies (``kill -9``
included) and no file has to be removed for it to be gone: a sealed run never keeps a lock
file, wherever its writer was killed. Beside the lock, ``.owner.lock`` says who holds it (pid,
host, since) for messages only; the sealer removes that note before it writes the manifest.

A forked child (``os.fork``, a 'fork' pool worker) would share the lock: ``flock`` belongs to the
open directory, and fork copies the descriptor. Its ``release`` would unlock the parent's run, and
its copy would keep the run locked after the parent died. So a child closes its copies at the fork
(it holds no run it inherited), and writing or removing the note is refused there (``_forks``).
"""

from __future__ import annotations

import os
import re
import socket
import stat
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from .. import _forks
from .._safetext import visible
from ..errors import EpisodeStateError, refused_write
from ..secrets.quoted import quoted_text
from .runfiles import what_is

try:  # POSIX; elsewhere the note file itself is locked through msvcrt (best effort)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["OWNER_FILE", "RunBusyError", "RunOwnership", "abandoned", "acquire", "holder", "remove_stale_note"]

OWNER_FILE = ".owner.lock"
# never follow a link; never wait on a FIFO a crafted run put in the note's place
_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class RunBusyError(EpisodeStateError):
    """Another live process (or episode) owns the run; ``holder`` says which."""

    def __init__(self, run_dir: Path, holder: str):
        self.run_dir, self.holder = Path(run_dir), holder
        super().__init__(  # the note is the run's file, anyone's to write: what it says is shown redacted
            f"run {self.run_dir.name} is being written by {quoted_text(holder, 200)}; it continues there. "
            "Decide its draft with approve_draft/reject_draft and that process picks the decision up."
        )


@dataclass
class RunOwnership:
    """The held lock of one run. ``release()`` is idempotent."""

    run_dir: Path
    fd: int | None
    on_note: bool = False  # the lock is on ``.owner.lock`` itself (a file system that cannot lock a directory)
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the run directory held: it follows a rename, not a path
    owner: _forks.Owner = field(default_factory=_forks.Owner, repr=False, compare=False)  # the process that took it

    @property
    def held(self) -> bool:
        return self.fd is not None

    def write_note(self) -> None:
        """Say in ``.owner.lock`` who holds the run (read by :func:`holder` for messages)."""
        self.owner.check(self.run_dir.name, "writing the run's owner note")
        path = self.run_dir / OWNER_FILE
        fd = _open_note(path, os.O_WRONLY | os.O_CREAT)
        try:
            st = os.fstat(fd)
            _refuse_odd(path, st.st_mode)
            _refuse_linked(path, st.st_nlink)
            os.ftruncate(fd, 0)
            os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}".encode())
        except OSError as exc:
            if not refused_write(exc):
                raise  # a full disk (or one refusing the write) leaves the note empty: it only informs, the lock holds the run
        finally:
            os.close(fd)

    def remove_note(self) -> None:
        """Delete ``.owner.lock`` while still holding the lock: done before a seal's manifest is written
        (unless the note is the lock itself: then ``release(remove=True)`` deletes it after the manifest)."""
        self.owner.check(self.run_dir.name, "removing the run's owner note")
        if self.fd is not None and not self.on_note:
            (self.run_dir / OWNER_FILE).unlink(missing_ok=True)

    def release(self, *, remove: bool = False) -> None:
        """Give the run up. ``remove`` also deletes the note (a run sealed, or found sealed)."""
        fd, self.fd = self.fd, None
        if fd is None:
            return
        _HELD.pop(id(self), None)
        try:
            if remove:
                (self.run_dir / OWNER_FILE).unlink(missing_ok=True)  # safe: we still hold the lock
        finally:
            _unlock(fd)
            os.close(fd)


def acquire(run_dir: str | os.PathLike[str], *, note: bool = True) -> RunOwnership:
    """Take the run's lock without waiting, or raise :class:`RunBusyError` naming the holder.

    ``note=False`` leaves ``.owner.lock`` unwritten (a caller that first checks the run is not sealed)."""
    run_dir = Path(run_dir)
    fd = _open_lock(run_dir)
    on_note = fcntl is None
    try:
        got = _lock_soon(fd)
    except _CannotLock:  # e.g. NFS, where flock becomes a byte-range lock a read-only directory cannot take
        os.close(fd)
        fd, got, on_note = *_lock_note(run_dir), True
    except BaseException:
        os.close(fd)
        raise
    try:
        if not got:
            raise RunBusyError(run_dir, holder(run_dir) or "another process")
        ownership = RunOwnership(run_dir, fd, on_note, identity=_identity(os.stat(run_dir) if on_note else os.fstat(fd)))
        _HELD[id(ownership)] = ownership
        if note:
            ownership.write_note()
        return ownership
    except BaseException:
        _unlock(fd)
        os.close(fd)
        raise


#: the locks this process holds, so that a forked child can let go of its copies (``_forked``)
_HELD: weakref.WeakValueDictionary[int, RunOwnership] = weakref.WeakValueDictionary()


def _forked() -> None:
    """In a forked child: close the copies of the parent's lock descriptors, without unlocking (that would free the
    parent's runs). The child holds none of them; were it to keep them, a run would stay locked after its owner died."""
    for ownership in list(_HELD.values()):
        fd, ownership.fd = ownership.fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _lock_note(run_dir: Path) -> tuple[int, bool]:
    """Lock ``.owner.lock`` itself: ``(fd, got)``. A note removed by its holder between our open and our lock
    is opened again (its holder sealed the run and let go: the new file is the one to lock)."""
    path = run_dir / OWNER_FILE
    for _ in range(20):
        fd = _open_note(path, os.O_RDWR | os.O_CREAT)
        try:
            _refuse_odd(path, os.fstat(fd).st_mode)
            got = _lock_soon(fd)
            if got and not _same_file(fd, path):
                _unlock(fd)
                os.close(fd)
                continue
            return fd, got
        except _CannotLock as exc:
            os.close(fd)
            raise EpisodeStateError(
                f"cannot lock {run_dir} nor its {OWNER_FILE} ({exc.args[0]}); noesis_nb needs file locks to keep "
                "one writer per run: use a runs_dir on a file system that supports them"
            ) from None
        except BaseException:
            os.close(fd)
            raise
    raise RunBusyError(run_dir, "processes that keep sealing and reopening it")  # pragma: no cover


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def holder(run_dir: str | os.PathLike[str]) -> str | None:
    """Who holds the run's lock, as its note says (None when nobody does)."""
    run_dir = Path(run_dir)
    if _held_by_this_process(run_dir):
        return _read_note(run_dir / OWNER_FILE) or "another process"
    try:
        fd = _open_lock(run_dir)
    except EpisodeStateError:
        return None  # no run directory, or an odd one: nobody can hold it
    try:
        if fcntl is None:  # pragma: no cover
            return _read_note(run_dir / OWNER_FILE)
        try:
            if _held(fd):
                return _holding(_read_note(run_dir / OWNER_FILE))
            # a shared lock may be allowed where the writer's exclusive one was not (NFS refuses an exclusive lock
            # on a read-only descriptor): that writer holds the note itself
            return _note_holder(run_dir / OWNER_FILE)
        except OSError:  # the directory cannot be locked here: writers lock the note itself
            return _note_holder(run_dir / OWNER_FILE)
    finally:
        os.close(fd)


def _holding(note: str | None) -> str:
    """Who holds a run another process has locked: its note, unless the note names a process that cannot be the
    holder (this one, which does not hold it, or one no longer alive here): a note left behind, never named."""
    match = re.match(r"pid (\d+) on (\S+) ", note or "")
    if match is None:
        return note or "another process"
    pid, host = int(match[1]), match[2]
    if host == socket.gethostname() and (pid == os.getpid() or not _alive(pid)):
        return "another process"
    return str(note)


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` lives on this host (one of another user's counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def abandoned(run_dir: str | os.PathLike[str]) -> bool:
    """Whether the process that wrote this unsealed run is gone: its owner note is there and nobody holds its lock.

    noesis_nb holds a run's lock from the run's first instant to its seal (or to a pause it leaves on disk), and
    only the sealer removes the note; the lock goes with its process, ``kill -9`` included. So on a run whose
    files say it is running, a note nobody holds means its writer died. Without the note (a run Noēsis or another
    tool writes, which takes no lock) or when the lock cannot be asked about here, nothing can tell: False.
    A note in a shape noesis_nb never writes (a link, a FIFO, a folder) was put there by someone else; no writer
    can hold it, so the run's own lock alone decides (``resume_run`` then names the note to remove)."""
    run_dir = Path(run_dir)
    if fcntl is None:  # pragma: no cover - Windows: the note is the lock, and asking takes it
        return False
    if _held_by_this_process(run_dir):
        return False
    there, note = _open_note_to_ask(run_dir / OWNER_FILE)
    if not there:
        return False
    try:
        folder = os.open(run_dir, _DIR_FLAGS)
        try:
            if _held(folder):
                return False
        finally:
            os.close(folder)
        return note is None or not _held(note)  # where a directory cannot be locked (NFS) its writer locks the note
    except OSError:  # the directory or the note cannot be locked here: cannot tell
        return False
    finally:
        if note is not None:
            os.close(note)


def _open_note_to_ask(path: Path) -> tuple[bool, int | None]:
    """Whether a note is there to go by, and its descriptor when it is a regular file (opened once, never following
    a link, never waiting on a FIFO). Absent, or a regular file this user cannot open: (False, None)."""
    try:
        fd = os.open(path, os.O_RDONLY | _FLAGS)
    except FileNotFoundError:
        return False, None
    except OSError:  # a link (O_NOFOLLOW), a socket: there, in a shape no writer holds; a note not ours to open: unknown
        try:
            return not stat.S_ISREG(os.lstat(path).st_mode), None
        except OSError:
            return False, None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return True, fd
    except OSError:
        pass
    os.close(fd)
    return True, None


def _held_by_this_process(run_dir: Path) -> bool:
    """Whether this process holds the run's lock itself. Asked before any probe of the lock: where ``flock`` is
    emulated with POSIX locks (NFS), which belong to the whole process, this process's own shared probe would turn
    its exclusive lock into a shared one, and letting the probe go would release the run it writes.

    Compared by the identity each lock recorded when taken (one ``stat``, of the run asked about): a held run
    renamed is still found held, and another folder put at a held run's old path is not mistaken for it."""
    if not _HELD:
        return False
    try:
        asked = _identity(os.stat(run_dir))
    except OSError:
        return False
    return any(o.fd is not None and o.identity == asked for o in list(_HELD.values()))


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def held_here(note: str | None) -> bool:
    """Whether an owner note (``holder``'s answer) names this process: ``pid N on HOST …``."""
    return bool(note) and str(note).startswith(f"pid {os.getpid()} on {socket.gethostname()} ")


def _held(fd: int) -> bool:
    """Whether someone holds an exclusive lock on ``fd``'s file (asked with a shared lock, dropped at once)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def _note_holder(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | _FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or not _held(fd):
            return None
        return _note_text(os.read(fd, 200)) or "another process"
    except OSError:
        return None
    finally:
        os.close(fd)


def remove_stale_note(run_dir: str | os.PathLike[str]) -> bool:
    """Delete an owner note nobody holds (a sealed run's, left by an older writer killed after its manifest)."""
    run_dir = Path(run_dir)
    if not os.path.lexists(run_dir / OWNER_FILE):
        return False
    try:
        acquire(run_dir, note=False).release(remove=True)
    except (EpisodeStateError, OSError):
        return False  # held, or not removable: left as it is
    return True


def _open_lock(run_dir: Path) -> int:
    """The descriptor the lock is taken on: the run directory (the note file where ``flock`` is missing)."""
    if fcntl is None:  # pragma: no cover - Windows cannot lock a directory
        return _open_note(run_dir / OWNER_FILE, os.O_RDWR | os.O_CREAT)
    try:
        return os.open(run_dir, _DIR_FLAGS)
    except OSError as exc:
        raise EpisodeStateError(
            f"cannot open the run directory {run_dir} to take ownership of the run ({exc.strerror or exc}); "
            "a run is a real directory (not a link) that this user can read."
        ) from None


def _open_note(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags | _FLAGS, 0o644)
    except OSError as exc:
        if os.path.islink(path):
            raise EpisodeStateError(
                f"{path} is a symbolic link; noesis_nb writes a run only through regular files "
                "inside it. Remove the link (it is not part of the run) and try again."
            ) from None
        _refuse_odd(path)
        raise EpisodeStateError(
            f"cannot open {path} to take ownership of the run ({exc.strerror or exc}); check that the run directory is writable."
        ) from None


def _read_note(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | _FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # not a note: it says nothing
        return _note_text(os.read(fd, 200)) or None
    finally:
        os.close(fd)


def _note_text(raw: bytes) -> str:
    """What a note says, as one line with no control character (a terminal escape, a line break written into the
    note by someone else shows as ``\ufffd``); a note noesis_nb wrote reads unchanged (``held_here`` matches it)."""
    return visible(" ".join(raw.decode("utf-8", "replace").split()), exact=True)


def _refuse_odd(path: Path, mode: int | None = None) -> None:
    """Raise when the owner note is not a regular file (a FIFO, a socket, a folder planted in its place)."""
    if mode is None:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return
    if not stat.S_ISREG(mode):
        raise EpisodeStateError(
            f"{path} is {what_is(mode)}, not the note of who owns the run; noesis_nb writes it only as a regular "
            "file. Move it out of the run folder (it is not part of the run) and try again."
        )


def _refuse_linked(path: Path, nlink: int) -> None:
    """Raise when the owner note is a hard link: rewriting it would rewrite the file behind its other names too."""
    if nlink > 1:
        raise EpisodeStateError(
            f"{path} is a hard link ({nlink} names for one file), not the note of who owns the run; writing it would "
            "change the file behind its other names, maybe outside the run. Move it out of the run folder (it is not part "
            "of the run) and try again."
        )


def _lock_soon(fd: int, patience_s: float = 0.05) -> bool:
    """Try the lock a few times: someone asking ``holder()`` takes it shared for an instant."""
    deadline = time.monotonic() + patience_s
    while not _lock(fd):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _lock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover - Windows: best effort through msvcrt
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as exc:  # EBADF, ENOLCK, EOPNOTSUPP …: this file cannot be locked here
        raise _CannotLock(exc) from None


class _CannotLock(Exception):
    """``flock`` refused the descriptor itself (not because someone holds it)."""
