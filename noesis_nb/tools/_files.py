"""File helpers for ``tool_invocations/``: safe ids, JSON reads, exclusive creates."""

from __future__ import annotations

import errno
import os
import re
import stat
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from noesis_nb._jsonio import atomic_write_json, loads, temp_stem
from noesis_nb._jsonkeys import checked
from noesis_nb._safetext import unseen_said
from noesis_nb.errors import InvalidIdError, RunWriteError, refused_write
from noesis_nb.ids import holds_credential
from noesis_nb.secrets import quoted
from noesis_nb.store.paths import UnsafeRunPathError
from noesis_nb.store.runfiles import UnreadableRunFile, read_file, what_is

__all__ = [
    "MAX_ID_LENGTH",
    "check_id",
    "read_json_object",
    "create_exclusive_json",
    "claim_file",
    "quarantine",
    "note_written",
    "written_here",
    "forget_written",
    "as_written_here",
]

# each tool record this process wrote, by run (the folder holding ``tool_invocations``) and absolute path: its
# (size, mtime_ns) just after the write. A run's seal lists only these (``runtime.lifecycle``): a record another
# process put into a live run was never screened here. A sealed run's entries are dropped; past _RUNS_KEPT runs
# (paused ones never continued here) the oldest go, and their records are then screened as read (the safe side)
_WRITTEN: dict[str, dict[str, tuple[int, int]]] = {}
_RUNS_KEPT = 4096


def _run_of(full: str) -> str | None:
    """The run folder of a tool record's absolute path: the folder holding its (last) ``tool_invocations``."""
    parts = Path(full).parts
    if _TOOLS not in parts:
        return None
    return os.path.join(*parts[: len(parts) - 1 - parts[::-1].index(_TOOLS)])


def note_written(path: Path) -> None:
    """Remember the tool record at ``path`` as written by this process, as it is now (other files are ignored)."""
    full = os.path.abspath(path)
    run = _run_of(full)
    if run is None:
        return
    try:
        st = os.stat(full, follow_symlinks=False)
    except OSError:
        return
    records = _WRITTEN.get(run)
    if records is None:
        if len(_WRITTEN) >= _RUNS_KEPT:
            _WRITTEN.pop(next(iter(_WRITTEN)), None)
        records = _WRITTEN[run] = {}
    records[full] = (st.st_size, st.st_mtime_ns)


def written_here(path: Path) -> tuple[int, int] | None:
    """``(size, mtime_ns)`` of ``path`` when this process wrote it last, else None."""
    full = os.path.abspath(path)
    run = _run_of(full)
    return None if run is None else _WRITTEN.get(run, {}).get(full)


def as_written_here(run_dir: Path) -> set[str]:
    """The tool records of ``run_dir`` (absolute paths) this process wrote that are still as it wrote them."""
    out = set()
    for full, stamp in list(_WRITTEN.get(os.path.abspath(run_dir), {}).items()):
        try:
            st = os.stat(full, follow_symlinks=False)
        except OSError:
            continue
        if (st.st_size, st.st_mtime_ns) == stamp:
            out.add(full)
    return out


def forget_written(run_dir: Path) -> None:
    """Forget the records of ``run_dir`` (a sealed run's): the table holds only runs still being written."""
    _WRITTEN.pop(os.path.abspath(run_dir), None)


_TOOLS = "tool_invocations"

MAX_ID_LENGTH = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")  # line breaks, escapes, and what UTF-8 cannot hold


def check_id(value: Any, what: str = "draft id") -> str:
    """Return ``value`` if it is safe as a file name, else raise InvalidIdError saying why."""
    if not isinstance(value, str) or not value:
        raise InvalidIdError(f"{what} {quoted(value)} must be a non-empty string.")
    problem = None
    if "/" in value or "\\" in value:
        problem = "contains a path separator"
    elif "\x00" in value:
        problem = "contains a NUL byte"
    elif ".." in value:
        problem = "contains '..'"
    elif control := _CONTROL.search(value):
        problem = unseen_said(control.group(), control.start())
    elif len(value) > MAX_ID_LENGTH:
        problem = f"is {len(value)} characters long (the limit is {MAX_ID_LENGTH})"
    elif holds_credential(value, named=False):  # the file name would keep it in clear, the records name it redacted
        problem = "holds what looks like a credential (a token or a password), which run files store redacted"
    if problem:
        raise InvalidIdError(
            f"{what} {quoted(value)} {problem}; ids become file names, so use letters, digits, '-', '_', ':' or '.'."
        )
    return value


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when the file does not exist.

    Raises ValueError with the reason when the file is not valid JSON or not an object, or is
    not a regular file (a FIFO would block the read forever, a device never end it), or writes a key twice in one
    object (readers disagree on which value counts: neither is taken, ``_jsonkeys``).
    """
    try:
        got = read_file(os.fspath(path))
    except UnreadableRunFile as exc:
        raise ValueError(exc.reason) from None
    if got is None:
        return None
    data = got[0]
    try:
        value = loads(data)
    except Exception as exc:  # orjson.JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, found {type(value).__name__}")
    if (repeated := checked(data, value)[1]) is not None:  # a status or a decision written twice: neither value is used
        raise ValueError(f"line {repeated.line}: {repeated.reason}")
    if _deeper_than(value, MAX_RECORD_DEPTH):
        raise ValueError(f"a value in it is nested more than {MAX_RECORD_DEPTH} levels deep (no tool record is)")
    return value


#: nesting a record may have: far past what is written (orjson stops at 255 levels), well short of the ~1000
#: at which validating, dumping or comparing it would fail deep inside pydantic or ``json``
MAX_RECORD_DEPTH = 255


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists/objects more than ``limit`` levels deep (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def create_exclusive_json(path: Path, value: Any) -> bool:
    """Write ``value`` to ``path`` only if ``path`` does not exist yet; True if this call created it.

    The document is written completely to a temp file and hard-linked into place, so readers
    never see a partial file and of several racing writers exactly one wins. Where hard links
    are unsupported an ``O_EXCL`` lock file (``<name>.lock``) decides the winner instead.
    A temp file removed under it (a run's owner sweeps temp files right before it seals, while
    another process may be deciding a draft) is written again.
    """
    path = Path(path)
    for _ in range(_SWEPT_TRIES):
        tmp = path.with_name(f".{temp_stem(path.name)}.{uuid.uuid4().hex}.new")
        try:
            created = _create_once(path, tmp, value)
        finally:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:  # a folder that takes files but refuses their removal (append-only): the seal sweeps it
                pass
        if created is not None:
            return created
    raise RunWriteError(
        path,
        errno.ENOENT,
        f"its temp file was removed {_SWEPT_TRIES} times before it could be linked in",
        "something keeps deleting files in this folder; stop it, then try again",
    )


#: how many times a document whose temp file was swept away is written again (one seal sweeps once)
_SWEPT_TRIES = 3


def _create_once(path: Path, tmp: Path, value: Any) -> bool | None:
    """One try of ``create_exclusive_json`` through ``tmp``; None when the temp was swept away under it."""
    try:
        atomic_write_json(tmp, value)
    except RunWriteError as exc:  # say the document, not its temp file
        raise RunWriteError(path, exc.errno, exc.reason, exc.advice) from None
    except FileNotFoundError:  # the temp's own temp removed before its rename
        if not path.parent.is_dir():
            raise
        return None
    try:
        os.link(tmp, path)
        note_written(path)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) and path.parent.is_dir():
            return None  # the temp removed between its write and its link
        if not claim_file(path.with_name(path.name + ".lock")) or path.exists():
            return False
        atomic_write_json(path, value)
        note_written(path)
        return True


def claim_file(path: Path) -> bool:
    """Create an empty marker with ``O_CREAT|O_EXCL``; True if this call created it."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
    except OSError as exc:
        if refused_write(exc):
            raise RunWriteError.of(path, exc) from None
        raise
    os.close(fd)
    return True


def quarantine(path: Path, still_bad: Callable[[Path], bool] | None = None) -> Path | None:
    """Move a malformed record aside (``<name>.invalid-<time>``, never read as a record) so a valid one can take its place.

    Nothing is deleted: the bad file stays next to the good one for whoever investigates. Between a file judged bad
    and this move, another process may have set that file aside and written a valid record in its place: the rename
    takes whatever stands at ``path``. So ``still_bad`` judges the file moved, under its new name (no writer's): one
    that reads as valid is linked back (exclusively: a record written meanwhile is kept) and None is returned, as when
    the file was already gone.

    Only a regular file is moved aside: a link, FIFO, socket, device or folder noesis_nb never writes (``UnsafeRunPathError``
    names it, nothing is moved): renamed, it would stay in the run, where every seal refuses it, and removing it could
    delete what is not noesis_nb's to delete. Its owner moves it out of the run.
    """
    import time

    path = Path(path)
    _refuse_odd_record(path)
    target = path.with_name(f"{path.name}.invalid-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}")
    try:
        os.rename(path, target)
    except FileNotFoundError:
        return None
    if still_bad is None or _judged_bad(still_bad, target):
        return target
    try:
        os.link(target, path)  # the same file (inode, size, mtime) back in its place
    except FileExistsError:  # yet another record took the place meanwhile: it stays, the moved one is kept aside
        return target
    except OSError:  # a file system without hard links: back by rename, unless a record took the place meanwhile
        if os.path.lexists(path):
            return target
        os.rename(target, path)
        return None
    target.unlink(missing_ok=True)
    return None


def _refuse_odd_record(path: Path) -> None:
    """``UnsafeRunPathError`` when ``path`` is there as anything but a regular file (not followed)."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISREG(mode):
        return
    what = "a symbolic link" if stat.S_ISLNK(mode) else what_is(mode)
    raise UnsafeRunPathError(
        f"{path} is {what}, not a record noesis_nb writes (a regular file), so it is neither read nor moved aside "
        "(a seal refuses a run holding it) and nothing was written; move it out of the run folder (noesis_nb did not "
        "make it), then try again"
    )


def _judged_bad(still_bad: Callable[[Path], bool], moved: Path) -> bool:
    """``still_bad(moved)``; a judge that fails on the file judges it bad (it stays aside, as before)."""
    try:
        return bool(still_bad(moved))
    except Exception:
        return True
