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
import warnings
from pathlib import Path

from ._cachedir import user_folder, user_stacklevel

__all__ = ["key_path", "load_key", "seal_key"]

_KEY_BYTES = 32
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_lock = threading.Lock()
_key: bytes | None = None


def key_path() -> Path | None:
    """Where this user's seal key is kept; None when no absolute place is known (``HOME`` relative, or unset
    for a user without a home): a key under whatever folder the process runs in could be committed with it."""
    base = user_folder("XDG_CONFIG_HOME", ".config")  # a relative XDG_CONFIG_HOME is ignored, as the spec says
    return Path(base) / "noesis_nb" / "seal.key" if base is not None else None


def seal_key() -> bytes:
    """This user's key (made on first use), else one for this process alone; read once per process."""
    global _key
    with _lock:
        if _key is None:
            path = key_path()
            _key = (load_key(path, warn=True) if path is not None else None) or secrets.token_bytes(_KEY_BYTES)
        return _key


def load_key(path: Path, warn: bool = False) -> bytes | None:
    """The key kept at ``path``, made there first when there is none; None when none can be kept or trusted.

    Made atomically (a private temp file linked into place), so processes starting together agree on one.
    With ``warn``, a key file that is there but not trusted is named in one warning with its fix: every process
    would otherwise seal with a key of its own, and no run would be verified by another, silently.
    """
    try:
        return _read_key(path, warn)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if warn:
            _distrust(path, f"cannot be read ({exc.strerror or exc})", "move it aside (a new key is made; the old one is kept)")
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
        return _read_key(path, warn)
    except OSError as exc:
        if warn:
            _distrust(path, f"cannot be made ({exc.strerror or exc})", f"make {str(path.parent)!r} a folder you may write")
        return None


def _read_key(path: Path, warn: bool = False) -> bytes | None:
    """The key file's bytes when it is a regular file of this user that no one else may read or write.

    Opened without following a link and without waiting (a FIFO put at its place would block every episode's seal).
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if warn and not isinstance(exc, FileNotFoundError) and os.path.islink(path):
            _distrust(path, "is a symbolic link", "remove the link (a new key is made there)")
            return None
        raise
    try:
        st = os.fstat(fd)
        why = _untrusted(st)
        if why is not None:
            if warn:
                _distrust(path, why[0], why[1].format(path=str(path)))
            return None
        data = os.read(fd, _KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == _KEY_BYTES else None


def _untrusted(st: os.stat_result) -> tuple[str, str] | None:
    """(what is wrong, the fix) of a key file that is not trusted; None for one that is."""
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file", "move it aside (a new key is made there; the old one is kept)"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"is owned by another user (uid {st.st_uid})", "move it aside (a new key of yours is made there)"
    if st.st_mode & 0o077:
        mode = stat.S_IMODE(st.st_mode)
        return f"may be read or written by other users (mode {mode:04o})", (
            "run chmod 600 {path!r} if no other user could have read it, else move it aside (a new key is made there)"
        )
    if st.st_size != _KEY_BYTES:
        return f"holds {st.st_size} bytes, not {_KEY_BYTES}", "move it aside (a new key is made there; the old one is kept)"
    return None


_warned = False


def _distrust(path: Path, what: str, fix: str) -> None:
    """Say once per process that the key file is not used, why, and the fix."""
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        f"noesis_nb seal key {str(path)!r} {what}: it is not used, so this process seals with a key of its own "
        f"(runs it seals are not verified by other processes, no runs index is shared); {fix}",
        UserWarning,
        stacklevel=user_stacklevel(),
    )
