"""A batch's record, ``<runs root>/batches/<batch_id>.json``: what it runs and which episode each entry is.

Written atomically when the batch starts and whenever an entry gets a new episode (a re-run), so a
kernel that dies mid-batch leaves everything the next ``batch(…, batch_id=…)`` needs. Episode ids are
chosen when the record is first written; an entry whose run directory does not exist never started.
Every read-plan-write of the record holds the batch's lock (``<batch_id>.json.lock``), so two calls of
one batch at once (two kernels) agree on one record: one writes it, the other reads what it wrote.
The lock is only ever waited for on the event loop with ``asyncio.sleep`` (``record_lock_async``), or not at
all (``record_lock_now``): a kernel never blocks while another process plans the batch.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import orjson

from .._jsonio import atomic_write_json, canonical_json
from .._jsonkeys import loads_checked
from ..errors import EpisodeStateError, InvalidIdError, InvalidOptionError
from ..ids import new_episode_id, validate_id
from ..secrets import keys_hidden, redact
from ..secrets.quoted import quoted
from ..store import now_iso
from ..store.paths import UnsafeRunPathError
from ..store.roots import is_run_dir
from ..store.runfiles import UnreadableRunFile, read_file, what_is
from .differ import first_difference, short
from .spec import BatchSpec

try:  # POSIX; elsewhere two calls of one batch at once are not kept apart
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "SCHEMA",
    "record_path",
    "load_record",
    "new_record",
    "save_record",
    "check_same_batch",
    "record_lock_async",
    "record_lock_now",
]

SCHEMA = "noesis_nb.batch/1.0.0"


def record_path(root: Path, batch_id: str) -> Path:
    return Path(root) / "batches" / f"{validate_id(batch_id, what='batch id')}.json"


def _batches_folder(path: Path) -> None:
    """Make ``<root>/batches`` (the folder of ``path``), refusing one that is a link or no folder: a crafted
    root's ``batches -> /elsewhere`` would have the record and its lock written outside the root."""
    folder = path.parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(folder)
    except FileExistsError:
        pass
    mode = os.lstat(folder).st_mode
    if stat.S_ISLNK(mode):
        raise UnsafeRunPathError(
            f"{folder} is a symbolic link; noesis_nb writes batch records only into a real folder of the runs root. "
            "Remove the link (or replace it with the real folder) and call batch again."
        )
    if not stat.S_ISDIR(mode):
        raise UnsafeRunPathError(f"{folder} is {what_is(mode)}, not a folder; move it aside and call batch again")
    if is_run_dir(folder):  # a run named ``batches`` (made before the name was kept, or by another writer)
        raise UnsafeRunPathError(
            f"{folder} is a run, where batch records go: a record written there would change a sealed run. Move that "
            "run to a folder of another name (or use another runs_dir) and call batch again."
        )


_POLL_S = 0.01  # how often a lock held by another process is asked for again


@asynccontextmanager
async def record_lock_async(path: Path, timeout_s: float = 60.0) -> AsyncIterator[None]:
    """Hold the batch's lock while its record is read, planned from and written (another call of the batch waits).
    While another process holds it the loop goes on (the wait is ``asyncio.sleep``, never a blocking call), so the
    kernel, its views and the batch's other entries keep running; past ``timeout_s`` one error says who holds it."""
    fd = _open_lock(path)
    try:
        deadline = time.monotonic() + timeout_s
        while not _take(fd):
            if time.monotonic() > deadline:
                raise _held_too_long(path, timeout_s)
            await asyncio.sleep(_POLL_S)
        yield
    finally:
        _give_up(fd)


@contextmanager
def record_lock_now(path: Path) -> Iterator[bool]:
    """Take the batch's lock only if no other process holds it: yields whether it was taken (held until the end)."""
    fd = _open_lock(path)
    try:
        yield _take(fd)
    finally:
        _give_up(fd)


def _open_lock(path: Path) -> int:
    """The lock file's descriptor (``-1`` where there is no ``flock``: two calls at once are not kept apart)."""
    _batches_folder(path)
    if fcntl is None:  # pragma: no cover - Windows
        return -1
    lock = path.with_name(path.name + ".lock")
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        return os.open(lock, flags, 0o644)
    except OSError as exc:
        raise EpisodeStateError(
            f"cannot open {lock} to take batch {quoted(path.stem)} ({exc.strerror or exc}); it must be a regular, writable file"
        ) from None


def _take(fd: int) -> bool:
    if fd < 0:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _give_up(fd: int) -> None:
    if fd >= 0:
        os.close(fd)  # gives the lock up


def _held_too_long(path: Path, timeout_s: float) -> EpisodeStateError:
    lock = path.with_name(path.name + ".lock")
    return EpisodeStateError(
        f"batch {quoted(path.stem)} has been held by another process for {timeout_s:.0f} s ({lock}); "
        "call batch again once that process has started its episodes"
    )


def load_record(path: Path) -> dict[str, Any] | None:
    """The record, or None when there is none; a record that is not one is a clear error (never overwritten)."""
    if not os.path.lexists(path):  # a dangling link is no absent record: its batch's runs are named nowhere else
        return None
    record = _read(path)
    if not isinstance(record, dict) or record.get("schema_version") != SCHEMA or not isinstance(record.get("entries"), list):
        raise InvalidOptionError(f"{path} is not a noesis_nb batch record; pass another batch_id or move the file aside")
    tasks, adapters = record.get("tasks"), record.get("adapters")
    if not isinstance(tasks, list) or not isinstance(adapters, list) or not all(isinstance(a, str) for a in adapters):
        raise InvalidOptionError(
            f"{path}: its tasks or adapters are not lists (of adapter names); restore the file or use a new batch_id"
        )
    for entry in record["entries"]:
        index = entry.get("task_index") if isinstance(entry, dict) else None
        if (
            type(index) is not int
            or not 0 <= index < len(tasks)
            or entry.get("adapter") not in adapters
            or not isinstance(entry.get("previous", []), list)
        ):
            raise InvalidOptionError(
                f"{path}: entry {quoted(entry, 120)} does not fit the record; restore the file or use a new batch_id"
            )
        try:  # read from a file: checked before it becomes a path
            for episode_id in (entry.get("episode_id"), *entry.get("previous", [])):
                validate_id(episode_id)
        except InvalidIdError as exc:
            raise InvalidIdError(f"{path}: {keys_hidden(str(exc))}; restore the file or use a new batch_id") from None
    _refuse_shared_ids(record["entries"], path)
    _refuse_gaps(record, path)
    return record


def _read(path: Path) -> Any:
    """The record's JSON; a file that cannot be read as JSON is one error saying why (never through a link out of the root)."""
    try:
        got = read_file(os.fspath(path), os.fspath(path.parent.parent))
        if got is None:  # it was there a moment ago (``lexists``): a dangling link, or removed meanwhile
            target = os.readlink(path) if os.path.islink(path) else None
            why = f"a symbolic link to {target}, which does not exist" if target else "it is gone (removed meanwhile)"
            raise UnreadableRunFile(os.fspath(path), why)
        record, repeated = loads_checked(got[0])
        if repeated is None:
            canonical_json(record)  # compared as this later: a value nested past what Python's json encodes is refused
            return record
        # which value of the key counts is not known: neither is used (the record plans which runs to start)
        why = f"line {repeated.line}: {repeated.reason}"
    except UnreadableRunFile as exc:
        why = exc.reason
    except orjson.JSONDecodeError as exc:
        why = f"not valid JSON ({exc})"
    except RecursionError:
        why = "a value in it is nested too deeply"
    raise InvalidOptionError(
        f"{path} cannot be read as a batch record: {why}; restore the file, move it aside or pass another batch_id"
    )


def _refuse_gaps(record: dict[str, Any], path: Path) -> None:
    """Each task runs once per adapter: an entry missing would drop a task silently, one twice would run it twice."""
    seen = Counter((entry["task_index"], entry["adapter"]) for entry in record["entries"])
    for index in range(len(record["tasks"])):
        for adapter in record["adapters"]:
            if (count := seen[(index, adapter)]) != 1:
                raise InvalidOptionError(
                    f"{path}: task {index} with adapter {quoted(adapter, 80)} has {count} entries, not one; "
                    "restore the file (one entry per task and adapter) or use a new batch_id"
                )


def _refuse_shared_ids(entries: list[dict[str, Any]], path: Path) -> None:
    """Each entry names a run of its own: two entries naming one run would report one result twice."""
    seen: dict[str, int] = {}
    for number, entry in enumerate(entries):
        for episode_id in (entry["episode_id"], *entry.get("previous", [])):
            first = seen.setdefault(str(episode_id), number)
            if first != number:
                raise InvalidOptionError(
                    f"{path}: entries {first} and {number} both name run {quoted(str(episode_id), 80)}; "
                    "restore the file (each entry names its own run) or use a new batch_id"
                )


def new_record(spec: BatchSpec, options: dict[str, Any]) -> dict[str, Any]:
    identity = spec.identity()
    entries = [
        {"task_index": index, "adapter": name, "episode_id": new_episode_id(), "previous": []}
        for index in range(len(spec.tasks))
        for name in spec.adapters
    ]
    return {
        "schema_version": SCHEMA,
        "batch_id": spec.batch_id,
        "created_at": now_iso(),
        "tasks": identity["tasks"],
        "adapters": identity["adapters"],
        "options": redact(options)[0],
        "entries": entries,
    }


def save_record(path: Path, record: dict[str, Any]) -> None:
    _batches_folder(path)
    atomic_write_json(path, record)


def check_same_batch(record: dict[str, Any], spec: BatchSpec, path: Path, options: dict[str, Any] | None = None) -> None:
    """Running a recorded batch again needs the same tasks, adapters and episode options: otherwise one error
    naming the first difference. ``concurrency``, ``score``, ``score_timeout_s``, ``executor`` and ``upload_to`` may change."""
    identity = spec.identity()
    for key, what in (("tasks", "task list"), ("adapters", "adapters")):
        if canonical_json(record.get(key)) != canonical_json(identity[key]):
            before, now = record.get(key) or [], identity[key]
            raise InvalidOptionError(
                f"batch {quoted(spec.batch_id)} was recorded with another {what}: {first_difference(before, now)} (see {path}); "
                "pass the same tasks and adapters to continue it, or a new batch_id for a new batch"
            )
    recorded = record.get("options")
    if options is None or not isinstance(recorded, dict):
        return
    now_opts = redact(options)[0]
    for key in sorted(set(recorded) | set(now_opts)):
        if key in _MAY_CHANGE or canonical_json(recorded.get(key)) == canonical_json(now_opts.get(key)):
            continue
        was = f"{key}={short(recorded[key])}" if key in recorded else f"no {key}"
        fix = f"pass {key}={short(recorded[key])}" if key in recorded else f"leave {key} out"
        raise InvalidOptionError(
            f"batch {quoted(spec.batch_id)} was recorded with {was}, now {key}={short(now_opts.get(key))} (see {path}): "
            f"its episodes would run two ways; {fix} to continue it, or pass a new batch_id for a new batch"
        )


#: options a later call of a batch may change: how it runs, not what its episodes are
_MAY_CHANGE = frozenset({"concurrency", "score", "score_timeout_s", "executor", "upload_to"})
