"""This user's cache folder for noesis_nb: ``$NOESIS_NB_CACHE_DIR``, else ``$XDG_CACHE_HOME/noesis_nb``, else
``~/.cache/noesis_nb``. Only copies live there (price rates, the runs index): anything in it may be deleted."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

__all__ = ["cache_root", "read_cached", "write_cached"]

_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
)
_WRITE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
)


def cache_root() -> Path:
    """The folder (not created here); read from the environment on each call, so a test or a notebook may move it."""
    root = os.environ.get("NOESIS_NB_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "noesis_nb"
    )
    return Path(root)


def read_cached(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``); OSError for anything else: a FIFO there would
    block the read forever, a device (a link to ``/dev/zero``) never end it, a link may point anywhere."""
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise OSError(f"{path} is not a cache file of noesis_nb")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_cached(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``, readable by this user alone (a private temp file renamed into place).

    Not synced: a copy lost or cut by a crash is checked on reading and built again.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}")
    fd = os.open(tmp, _WRITE_FLAGS, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
