"""This user's seal key: 32 random bytes made once in a file of mode 0600, read once per process.

It is what noesis_nb's own records are trusted by: a sealed run's ``final.json`` (``store.seal``), the runs
index and the frames kept beside it, and the rates file (``_genai_rates``). The key is kept at
``$XDG_CONFIG_HOME/noesis_nb/seal.key`` when that is an absolute path, else ``~/.config/noesis_nb/seal.key``;
where none can be kept, a key for this process alone.
"""

from __future__ import annotations

import os
import secrets
import stat
import threading
from pathlib import Path

__all__ = ["key_path", "load_key", "seal_key"]

_KEY_BYTES = 32
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_lock = threading.Lock()
_key: bytes | None = None


def key_path() -> Path | None:
    """Where this user's seal key is kept; None when no absolute place is known (``HOME`` relative, or unset
    for a user without a home): a key under whatever folder the process runs in could be committed with it."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: the XDG spec says ignore it (not a key under the cwd)
        base = os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "noesis_nb" / "seal.key" if os.path.isabs(base) else None


def seal_key() -> bytes:
    """This user's key (made on first use), else one for this process alone; read once per process."""
    global _key
    with _lock:
        if _key is None:
            path = key_path()
            _key = (load_key(path) if path is not None else None) or secrets.token_bytes(_KEY_BYTES)
        return _key


def load_key(path: Path) -> bytes | None:
    """The key kept at ``path``, made there first when there is none; None when none can be kept or trusted.

    Made atomically (a private temp file linked into place), so processes starting together agree on one.
    """
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}")
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600
        )
        try:
            try:
                os.write(fd, secrets.token_bytes(_KEY_BYTES))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, path)
            except FileExistsError:  # another process made it first: theirs is the key
                pass
        finally:
            os.unlink(tmp)
        return _read_key(path)
    except OSError:
        return None


def _read_key(path: Path) -> bytes | None:
    """The key file's bytes when it is a regular file of this user that no one else may read or write.

    Opened without following a link and without waiting (a FIFO put at its place would block every episode's seal).
    """
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
        if not stat.S_ISREG(st.st_mode) or not mine or st.st_mode & 0o077 or st.st_size != _KEY_BYTES:
            return None
        data = os.read(fd, _KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == _KEY_BYTES else None
