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
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .._sealkey import key_path, load_key, seal_key

__all__ = ["SEAL_KEY", "TOOLS_DIR", "key_path", "load_key", "seal_key", "make_seal", "vouched", "vouched_records"]

SEAL_KEY = "seal"  # under final.json's ``x-noesis_nb``
TOOLS_DIR = "tool_invocations"
_TAG_CHARS = 64  # hex digits of an HMAC-SHA256
#: SHA-256 already fed the key's inner and outer pads (RFC 2104): a tag is two copies and two updates, all C calls
_keyed: tuple[Any, Any] | None = None
_BLOCK = 64  # SHA-256's block size in bytes
_INNER, _OUTER = bytes(b ^ 0x36 for b in range(256)), bytes(b ^ 0x5C for b in range(256))


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

    ``events``/``summary``: their stats, local ``change_stamp`` (size, mtime_ns, ctime_ns, inode, device) or remote
    ``(size, etag)`` (remote stamps carry no time of ours: the sizes decide); None when absent. The tool records are
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
    if type(tools) is not list:
        return False
    for t in tools:  # a loop, not ``all(...)``: every run read asks this of its seal
        if not (type(t) is list and len(t) == 3 and type(t[0]) is str and type(t[1]) is int and type(t[2]) is int):
            return False
    return True


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
    if len(now) >= 3:  # a local ``change_stamp`` (size, mtime_ns, ...); a remote stat is (size, etag)
        return bool(sealed[0] == now[0] and sealed[1] == now[1])
    return bool(sealed[0] == now[0])


def _tag(episode_id: str, events: Any, summary: Any, tools: list[list[Any]]) -> str:
    """HMAC-SHA256 of the seal's fields under the user's key (``hmac.new(key, text, sha256).hexdigest()``), from the
    key's pads hashed once per process: no Python call of ``hmac``'s four for each run read."""
    inner, outer = _keyed or _keyed_pads()
    inner, outer = inner.copy(), outer.copy()
    inner.update(f"noesis_nb seal 2\n{episode_id}\n{events}\n{summary}\n{tools}".encode())
    outer.update(inner.digest())
    tag: str = outer.hexdigest()
    return tag


def _keyed_pads() -> tuple[Any, Any]:
    """SHA-256 fed the key's inner and outer pad, as ``hmac`` makes them (a key longer than a block hashed first)."""
    global _keyed
    key = seal_key()
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    _keyed = hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER))
    return _keyed
