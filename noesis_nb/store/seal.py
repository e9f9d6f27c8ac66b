"""The seal noesis_nb writes into ``final.json``: proof, to the user who wrote a run, that noesis_nb wrote it.

noesis_nb screens every event for secrets before it writes it, so the frames need not screen its own
runs again. The ``x-noesis_nb`` marker cannot tell which runs those are (anyone can copy a string
into a crafted run), so sealing a run records, after the log's last line, an HMAC-SHA256 under a
key only this user can read over the run's id and the size and modification time (ns) of
``events.jsonl``, ``summary.json`` and each file under ``tool_invocations/`` (by its name in the run).
A reader trusts a run only when the tag verifies with its key and those files still have that size
(and, locally, that time): an edit moves them, a copy that keeps times (``cp -a``, ``rsync -a``)
keeps them; a tool record the seal does not list is screened. It binds sizes and times, not
contents: someone who can write into this user's sealed run can make a same-size edit and set the
time back, or copy a genuine ``final.json`` into a run crafted to the same name, sizes and times,
and such a run is read as written (closing that means hashing every file read: not done, for speed).
The key is made once, 32 random bytes in a file of mode 0600 (``$XDG_CONFIG_HOME/noesis_nb/seal.key``
when that is an absolute path, else ``~/.config/noesis_nb/seal.key``); where none can be kept, a key
for this process alone: only its own runs read unscreened. A seal of any shape ``make_seal`` never
writes is simply not vouched for.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["SEAL_KEY", "TOOLS_DIR", "key_path", "load_key", "seal_key", "make_seal", "vouched", "vouched_records"]

SEAL_KEY = "seal"  # under final.json's ``x-noesis_nb``
TOOLS_DIR = "tool_invocations"
_KEY_BYTES = 32
_TAG_CHARS = 64  # hex digits of an HMAC-SHA256
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_lock = threading.Lock()
_key: bytes | None = None
_keyed: hmac.HMAC | None = None


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


def make_seal(run_dir: Path, episode_id: str, keep: Callable[[Path, int, int], bool] | None = None) -> dict[str, Any]:
    """The seal of a run whose log, summary and tool records are final: their size and mtime (ns), and the tag.

    ``keep(path, size, mtime_ns)``: whether the sealing process screened that tool record as it wrote it; one
    it did not (another process put it into the run) is left out of the seal, so its reader screens it.
    """
    events, summary = (_stat(Path(run_dir) / name) for name in ("events.jsonl", "summary.json"))
    tools = [t for t in _tool_stats(Path(run_dir)) if keep is None or keep(Path(run_dir, t[0]), t[1], t[2])]
    return {"events": events, "summary": summary, "tools": tools, "tag": _tag(episode_id, events, summary, tools)}


def vouched(seal: Any, episode_id: str, events: Any, summary: Any) -> bool:
    """Whether ``seal`` (final.json's) is this user's for this run, with its log and summary as sealed.

    ``events``/``summary``: their stats, local ``(size, mtime_ns, ctime_ns)`` or remote ``(size, etag)``
    (remote stamps carry no time of ours: the sizes decide); None when absent. The tool records are
    checked by their reader (``vouched_records``).
    """
    if type(seal) is not dict or not _is_tag(seal.get("tag")) or not _is_tools(seal.get("tools")):
        return False  # any shape make_seal never writes: not vouched, never an error
    sealed_events, sealed_summary = seal.get("events"), seal.get("summary")
    if not (_same(sealed_events, events) and _same(sealed_summary, summary)):
        return False
    return hmac.compare_digest(seal["tag"], _tag(episode_id, sealed_events, sealed_summary, seal["tools"]))


def vouched_records(tools: Any, files: Mapping[str, Any]) -> set[str]:
    """The tool records among ``files`` that a vouched seal's ``tools`` lists, unchanged since.

    ``files``: each record's name under the run (``tool_invocations/…``) → its stat, as for ``vouched``.
    """
    if not _is_tools(tools):
        return set()
    sealed = {name: [size, mtime] for name, size, mtime in tools}
    return {name for name, stat in files.items() if name in sealed and _same(sealed[name], stat)}


def _tool_stats(run_dir: Path) -> list[list[Any]]:
    """``[name, size, mtime_ns]`` of each regular file under ``tool_invocations/`` (symlinks not followed), sorted."""
    out = []
    for folder, dirs, names in os.walk(run_dir / TOOLS_DIR):
        dirs.sort()
        for name in names:
            path = Path(folder, name)
            try:
                st = os.stat(path, follow_symlinks=False)
                rel = path.relative_to(run_dir).as_posix()
                rel.encode()  # a name that is no text is left out: its record is screened
            except (OSError, UnicodeEncodeError):  # gone meanwhile (a temp file swept)
                continue
            if stat.S_ISREG(st.st_mode):
                out.append([rel, st.st_size, st.st_mtime_ns])
    return sorted(out)


def _is_tools(tools: Any) -> bool:
    """A ``tools`` list as ``make_seal`` writes it (any other shape is not vouched for)."""
    return type(tools) is list and all(
        type(t) is list and len(t) == 3 and type(t[0]) is str and type(t[1]) is int and type(t[2]) is int for t in tools
    )


def _is_tag(tag: Any) -> bool:
    """A tag as ``_tag`` writes it (64 hex digits): ``compare_digest`` refuses non-ASCII text with a TypeError."""
    return type(tag) is str and len(tag) == _TAG_CHARS and tag.isascii()


def _stat(path: Path) -> list[int] | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _same(sealed: Any, now: Any) -> bool:
    """Whether a file's stat now matches the ``[size, mtime_ns]`` sealed (both None: absent then and now)."""
    if sealed is None or now is None:
        return sealed is None and now is None
    if type(sealed) is not list or len(sealed) != 2 or type(now) is not tuple or not now:
        return False
    if len(now) == 3:
        return bool(sealed[0] == now[0] and sealed[1] == now[1])
    return bool(sealed[0] == now[0])


def _tag(episode_id: str, events: Any, summary: Any, tools: list[list[Any]]) -> str:
    mac = _keyed or _keyed_mac()
    mac = mac.copy()  # the key's pads are hashed once per process, not per run
    mac.update(f"noesis_nb seal 2\n{episode_id}\n{events}\n{summary}\n{tools}".encode())
    return mac.hexdigest()


def _keyed_mac() -> hmac.HMAC:
    global _keyed
    _keyed = hmac.new(seal_key(), digestmod=hashlib.sha256)
    return _keyed
