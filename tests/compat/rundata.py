"""One run directory loaded once for the compatibility checker: events with line numbers, JSON documents, lineage.

Nothing here judges the run; the rule modules do. Reading is lenient (a broken line or document is
recorded, not raised) so that every rule can still report on the rest of the run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = [
    "Violation",
    "Run",
    "load_run",
    "parent",
    "payload_of",
    "text",
    "parse_time",
    "sha256_file",
    "LIFECYCLE_STATES",
    "TERMINAL_STATES",
]

# Noēsis' run-lifecycle state machine (domain/run_lifecycle.py, usecases/run_lifecycle.py).
LIFECYCLE_STATES = frozenset(
    {"running", "interrupted", "paused", "resuming", "success", "failed", "vetoed", "cancelled", "error"}
)
TERMINAL_STATES = frozenset({"success", "failed", "vetoed", "cancelled", "error"})
_TERMINATE_STATUS = {
    "ok": "success",
    "success": "success",
    "failed": "failed",
    "vetoed": "vetoed",
    "cancelled": "cancelled",
    "error": "error",
}


@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, in which file, where (line and/or event id), and what is wrong."""

    rule: str
    file: str
    message: str
    line: int | None = None
    event_id: str | None = None

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line is not None else "")
        if self.event_id:
            where += f" (event {self.event_id})"
        return f"[{self.rule}] {where}: {self.message}"


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp with an offset, or None (``Z`` accepted, as Noēsis' reader does)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def parent(event: dict[str, Any]) -> str | None:
    """The event's ``caused_by`` when it is a usable id (a non-empty string), else None."""
    value = event.get("caused_by")
    return value if isinstance(value, str) and value else None


def payload_of(event: dict[str, Any]) -> dict[str, Any]:
    """The event's payload when it is an object, else an empty dict (the guard reports the bad payload)."""
    value = event.get("payload")
    return value if isinstance(value, dict) else {}


def text(value: Any) -> str | None:
    """``value`` when it is a string, else None: safe to look up in sets and dicts."""
    return value if isinstance(value, str) else None


def sha256_file(path: Path) -> str:
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass
class Run:
    path: Path
    events: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # the events.jsonl line of each event (1-based)
    broken_lines: list[tuple[int, str]] = field(default_factory=list)
    unterminated: bool = False
    docs: dict[str, Any] = field(default_factory=dict)  # name -> parsed object (absent: missing)
    doc_errors: dict[str, str] = field(default_factory=dict)  # name -> why it could not be read

    # -- identity and generation ---------------------------------------------------------------
    @property
    def episode_id(self) -> str:
        state, summary = self.docs.get("state.json"), self.docs.get("summary.json")
        for doc, path in ((state, ("episode", "id")), (summary, ("episode_id",))):
            value: Any = doc
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if isinstance(value, str) and value:
                return value
        return self.path.name

    def exists(self, name: str) -> bool:
        return (self.path / name).is_file()

    @property
    def legacy(self) -> bool:
        """A run of Noēsis' pre-1.3 writer: summary ``schema_version`` below 1.3.0 and no ``final.json``.

        That writer predates ``final.json``, the reference-shaped insight event, ids on every line and
        the summary 1.3.0 fields; the rules that came with them do not apply to its runs.
        """
        summary = self.docs.get("summary.json")
        if not isinstance(summary, dict) or self.exists("final.json"):
            return False
        version = _version(summary.get("schema_version"))
        return version is not None and version < (1, 3, 0)

    # -- events ---------------------------------------------------------------------------------
    def where(self, index: int) -> dict[str, Any]:
        """Keyword arguments locating event ``index`` for a Violation."""
        event_id = self.events[index].get("id")
        return {"file": "events.jsonl", "line": self.lines[index], "event_id": event_id if isinstance(event_id, str) else None}

    @cached_property
    def index_by_id(self) -> dict[str, int]:
        index: dict[str, int] = {}
        for i, event in enumerate(self.events):
            event_id = event.get("id")
            if isinstance(event_id, str):
                index.setdefault(event_id, i)
        return index

    def chain(self, start: int) -> list[int]:
        """Indices reached by following ``caused_by`` back from event ``start`` (itself excluded), cycle-safe."""
        index_by_id, seen, out = self.index_by_id, {start}, []
        current = self.events[start]
        while True:
            cause = parent(current)
            if cause is None or cause not in index_by_id:
                return out
            i = index_by_id[cause]
            if i in seen:
                return out
            seen.add(i)
            out.append(i)
            current = self.events[i]

    def runtime(self, kind: str) -> Iterator[int]:
        """Indices of ``runtime`` events of one ``event_type`` (``run.interrupt``, ``run.checkpoint``, …)."""
        for i, event in enumerate(self.events):
            if event.get("phase") == "runtime" and event.get("event_type") == kind:
                yield i

    def lifecycle(self) -> list[str]:
        """The lifecycle state after each event, derived as Noēsis' lifecycle service derives it."""
        state, out = "running", []
        for event in self.events:
            payload = event.get("payload")
            status = payload.get("status") if isinstance(payload, dict) else None
            if isinstance(status, str):
                status = status.strip().lower()
                if event.get("phase") == "runtime" and status in LIFECYCLE_STATES:
                    state = status
                elif event.get("phase") == "terminate" and status in _TERMINATE_STATUS:
                    state = _TERMINATE_STATUS[status]
            out.append(state)
        return out

    @cached_property
    def final_state(self) -> str:
        states = self.lifecycle()
        return states[-1] if states else "running"

    @property
    def paused(self) -> bool:
        return self.final_state in {"paused", "interrupted"}

    def tool_events(self) -> Iterable[tuple[int, dict[str, Any]]]:
        for i, event in enumerate(self.events):
            payload = event.get("payload")
            if event.get("phase") == "tool" and isinstance(payload, dict):
                yield i, payload

    def checkpoint_record(self, checkpoint_id: Any) -> dict[str, Any] | None:
        if not isinstance(checkpoint_id, str) or "/" in checkpoint_id or checkpoint_id in {"", ".", ".."}:
            return None
        doc = self.docs.get(f"checkpoints/{checkpoint_id}/checkpoint.json")
        return doc if isinstance(doc, dict) else None


def _version(value: Any) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in str(value).split("."))
    except ValueError:
        return None


def _read_doc(run: Run, name: str) -> None:
    path = run.path / name
    if not path.is_file():
        return
    try:
        value = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        run.doc_errors[name] = f"not valid UTF-8 JSON ({exc})"
        return
    if not isinstance(value, dict):
        run.doc_errors[name] = f"expected a JSON object, found {type(value).__name__}"
        return
    run.docs[name] = value


def load_run(path: Path | str) -> Run:
    """Read ``events.jsonl`` line by line and the JSON documents the rules look at."""
    run = Run(Path(path))
    events_path = run.path / "events.jsonl"
    data = events_path.read_bytes() if events_path.is_file() else b""
    run.unterminated = bool(data) and not data.endswith(b"\n")
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            run.broken_lines.append((number, f"not a UTF-8 JSON line ({exc})"))
            continue
        if not isinstance(value, dict):
            run.broken_lines.append((number, f"a line must hold a JSON object, found {type(value).__name__}"))
            continue
        run.events.append(value)
        run.lines.append(number)
    for name in ("summary.json", "state.json", "final.json", "manifest.json"):
        _read_doc(run, name)
    checkpoints = run.path / "checkpoints"
    if checkpoints.is_dir():
        for folder in sorted(p for p in checkpoints.iterdir() if p.is_dir()):
            _read_doc(run, f"checkpoints/{folder.name}/checkpoint.json")
    return run
