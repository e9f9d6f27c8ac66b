"""One writer per run, across processes: an advisory lock on ``<run_dir>/.owner.lock``.

A live episode holds its run's lock from creation to seal (or to a pause it leaves on disk);
``resume_run`` takes the same lock before it writes anything. The lock is an ``flock`` on an
open file, so the operating system drops it when the holder dies (``kill -9`` included): a
stale lock never needs deleting by hand. The file also says who holds it (pid, host, since),
for messages only.
"""

from __future__ import annotations

import os
import socket
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import EpisodeStateError
from .runfiles import what_is

try:  # POSIX; elsewhere an exclusive-create lock file with a pid check stands in
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["OWNER_FILE", "RunBusyError", "RunOwnership", "acquire", "holder"]

OWNER_FILE = ".owner.lock"
# never follow a link; never wait on a FIFO a crafted run put in the lock file's place
_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)


class RunBusyError(EpisodeStateError):
    """Another live process (or episode) owns the run; ``holder`` says which."""

    def __init__(self, run_dir: Path, holder: str):
        self.run_dir, self.holder = Path(run_dir), holder
        super().__init__(
            f"run {self.run_dir.name} is being written by {holder}; it continues there. "
            "Decide its draft with approve_draft/reject_draft and that process picks the decision up."
        )


@dataclass
class RunOwnership:
    """The held lock of one run. ``release()`` is idempotent."""

    run_dir: Path
    fd: int | None

    @property
    def held(self) -> bool:
        return self.fd is not None

    def release(self, *, remove: bool = False) -> None:
        """Give the run up. ``remove`` also deletes the lock file (done when the run is sealed)."""
        fd, self.fd = self.fd, None
        if fd is None:
            return
        try:
            if remove:
                (self.run_dir / OWNER_FILE).unlink(missing_ok=True)  # safe: we still hold it; see acquire()
        finally:
            _unlock(fd)
            os.close(fd)


def acquire(run_dir: str | os.PathLike[str]) -> RunOwnership:
    """Take the run's lock without waiting, or raise :class:`RunBusyError` naming the holder."""
    run_dir = Path(run_dir)
    path = run_dir / OWNER_FILE
    for _ in range(20):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | _FLAGS, 0o644)
        except OSError as exc:
            if os.path.islink(path):
                raise EpisodeStateError(
                    f"{path} is a symbolic link; noesis_nb writes a run only through regular files "
                    "inside it. Remove the link (it is not part of the run) and try again."
                ) from None
            _refuse_odd(path)
            raise EpisodeStateError(
                f"cannot open {path} to take ownership of the run ({exc.strerror or exc}); "
                "check that the run directory is writable."
            ) from None
        try:
            _refuse_odd(path, os.fstat(fd).st_mode)
            if not _lock_soon(fd):
                raise RunBusyError(run_dir, holder(run_dir) or "another process")
            if not _same_file(fd, path):  # the holder removed the file between our open and our lock: try again
                _unlock(fd)
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}".encode())
            return RunOwnership(run_dir, fd)
        except BaseException:
            try:
                os.close(fd)
            except OSError:
                pass
            raise
    raise RunBusyError(run_dir, "processes that keep sealing and reopening it")  # pragma: no cover


def holder(run_dir: str | os.PathLike[str]) -> str | None:
    """Who holds the run's lock, as its lock file says (None when nobody does)."""
    path = Path(run_dir) / OWNER_FILE
    try:
        fd = os.open(path, os.O_RDONLY | _FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # not a lock file: nobody can hold it
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                text = os.read(fd, 200).decode("utf-8", "replace").strip()
                return text or "another process"
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        return os.read(fd, 200).decode("utf-8", "replace").strip() or None  # pragma: no cover
    finally:
        os.close(fd)


def _refuse_odd(path: Path, mode: int | None = None) -> None:
    """Raise when the lock file is not a regular file (a FIFO, a socket, a folder planted in its place)."""
    if mode is None:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return
    if not stat.S_ISREG(mode):
        raise EpisodeStateError(
            f"{path} is {what_is(mode)}, not the run's lock file; noesis_nb locks a run only through a regular "
            "file. Remove it (it is not part of the run) and try again."
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


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)
