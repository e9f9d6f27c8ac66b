"""A batch's record, ``<runs root>/batches/<batch_id>.json``: what it runs and which episode each entry is.

Written atomically when the batch starts and whenever an entry gets a new episode (a re-run), so a
kernel that dies mid-batch leaves everything the next ``batch(…, batch_id=…)`` needs. Episode ids are
chosen when the record is first written; an entry whose run directory does not exist never started.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._jsonio import atomic_write_json, canonical_json
from ..errors import InvalidOptionError
from ..ids import new_episode_id, validate_id
from ..secrets import redact
from ..store import now_iso, read_json
from .spec import BatchSpec

__all__ = ["SCHEMA", "record_path", "load_record", "new_record", "save_record", "check_same_batch"]

SCHEMA = "noesis_nb.batch/1.0.0"


def record_path(root: Path, batch_id: str) -> Path:
    return Path(root) / "batches" / f"{validate_id(batch_id, what='batch id')}.json"


def load_record(path: Path) -> dict[str, Any] | None:
    """The record, or None when there is none; a record that is not one is a clear error (never overwritten)."""
    if not path.exists():
        return None
    record = read_json(path, within=path.parent.parent)  # never through a link out of the runs root
    if not isinstance(record, dict) or record.get("schema_version") != SCHEMA or not isinstance(record.get("entries"), list):
        raise InvalidOptionError(f"{path} is not a noesis_nb batch record; pass another batch_id or move the file aside")
    tasks, adapters = record.get("tasks"), record.get("adapters")
    for entry in record["entries"]:
        index = entry.get("task_index") if isinstance(entry, dict) else None
        if (
            type(index) is not int
            or not isinstance(tasks, list)
            or not 0 <= index < len(tasks)
            or not isinstance(adapters, list)
            or entry.get("adapter") not in adapters
            or not isinstance(entry.get("previous", []), list)
        ):
            raise InvalidOptionError(
                f"{path}: entry {entry!r:.120} does not fit the record; restore the file or use a new batch_id"
            )
        validate_id(entry.get("episode_id"))  # read from a file: checked before it becomes a path
    return record


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
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, record)


def check_same_batch(record: dict[str, Any], spec: BatchSpec, path: Path) -> None:
    """Running a recorded batch again needs the same tasks and adapters: otherwise one error saying what differs."""
    identity = spec.identity()
    for key, what in (("tasks", "task list"), ("adapters", "adapters")):
        if canonical_json(record.get(key)) != canonical_json(identity[key]):
            before, now = record.get(key) or [], identity[key]
            raise InvalidOptionError(
                f"batch {spec.batch_id!r} was recorded with another {what} ({len(before)} vs {len(now)} now; see {path}); "
                "pass the same tasks and adapters to continue it, or a new batch_id for a new batch"
            )
