"""Streamed secrets a killed process left in a log that another process continues.

An agent streaming a key one delta per event (``{"delta": "sk-pr"}``, ``{"delta": "oj-Ab3d…"}``) has the
parts earlier pieces hold noted in memory and rewritten by the late sweep at pause or seal. A process killed
before that sweep leaves those heads on disk, and the process that continues the run (``resume_run``) never
saw them as a stream. So before a continued run's own sweep (pause or seal), its whole log is read as the
frames read a run noesis_nb did not seal (``secrets.streamed.redact_streams``): the pieces' parts of a secret
found joined, and key characters glued to a piece redacted already, are rewritten in the log and in memory,
and the secrets found are learned (the sweep then takes them out of every other file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from .._jsonio import atomic_write_bytes, dumps_line
from ..secrets.streamed import DELTA_KEYS, redact_streams
from ..store.paths import run_path

if TYPE_CHECKING:
    from .recorder import Recorder

__all__ = ["sweep_recovered_streams"]

# the names a streamed piece's text is under (``streamed.streamed_piece``): a line holding none is no piece
_PIECE_NAMES = tuple(b'"' + name.encode() + b'"' for name in sorted(DELTA_KEYS))


def sweep_recovered_streams(rec: Recorder, *, reopen: bool = False) -> bool:
    """Redact in ``rec``'s log and events the streamed parts of secrets read joined over the whole log; True when a
    line was rewritten. With ``reopen`` the open writer is replaced by one on the new file (a pause goes on writing).
    """
    events = rec.events
    copies = [dict(e) for e in events]
    found = redact_streams(copies, rec.secrets.streamed_find)  # the detectors' finds and the run's known values
    if found:
        rec.secrets.learn(found)
    changed: dict[str, tuple[Any, Any]] = {}  # event id -> (payload as written, payload redacted)
    for event, copy in zip(events, copies):
        if copy.get("payload") is not event.get("payload") and isinstance(event.get("id"), str):
            changed[event["id"]] = (event.get("payload"), copy["payload"])
    if not changed:
        return False
    path = run_path(rec.run_dir, "events.jsonl")
    with rec.writer.lock:  # the recorder appends under this lock
        data = path.read_bytes()
        lines = data.splitlines(keepends=True)
        for i, line in enumerate(lines):
            if not any(name in line for name in _PIECE_NAMES):
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(record, dict):
                continue
            change = changed.get(str(record.get("id")))
            if change is not None and record.get("payload") == change[0]:  # the piece as read at the resume
                lines[i] = dumps_line({**record, "payload": change[1]})
        new = b"".join(lines)
        if new != data:
            atomic_write_bytes(path, new)
            old = rec.writer
            if reopen and not old.closed:  # the old writer's file is the replaced one: go on on the new file
                rec.replace_writer()
                old.close()
    for event in events:
        change = changed.get(str(event.get("id")))
        if change is not None:
            event["payload"] = change[1]
    return True
