"""A run's open pause, as Noēsis derives it: its last lifecycle status is ``interrupted`` or ``paused``.

Noēsis' lifecycle goes ``running → interrupted → paused → resuming``: only ``run.resume`` leaves a pause. Nothing
acts on, reflects on or terminates a run whose pause is open; ``leave_open_pause`` writes the resume (saying why)
first, when a run is closed from its pause (cancelled while it waited, lost while paused).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._jsonio import as_object
from ..store.vocab import RUN_CHECKPOINT, RUN_INTERRUPT, TERMINAL_STATUSES

if TYPE_CHECKING:
    from .recorder import Recorder

__all__ = ["open_pause", "leave_open_pause"]

#: the runtime statuses Noēsis' lifecycle service reads (any other status, a state projection's, changes nothing)
_LIFECYCLE = frozenset({"running", "interrupted", "paused", "resuming", "success", "failed"}) | (TERMINAL_STATUSES - {"ok"})


def open_pause(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``run.interrupt`` or ``run.checkpoint`` event of the run's open pause; None when the run is not paused.

    ``events`` in order: all of the run's, or only its runtime and terminate events (``Recorder.lifecycle_events``,
    the same answer without a scan of a long run)."""
    for event in reversed(events):
        if event.get("phase") == "terminate":
            return None
        if event.get("phase") != "runtime":
            continue
        status = as_object(event.get("payload")).get("status")
        if not isinstance(status, str) or status.strip().lower() not in _LIFECYCLE:
            continue
        if status.strip().lower() in ("interrupted", "paused") and event.get("event_type") in (RUN_INTERRUPT, RUN_CHECKPOINT):
            return dict(event)
        return None
    return None


def leave_open_pause(rec: Recorder, reason: str, *, resumed_by: str = "episode") -> dict[str, Any] | None:
    """Write ``run.resume`` (its ``reason`` said) for the run's open pause, completing its checkpoint first when only
    its interrupt is on disk; the resume event, or None when no pause is open."""
    event = open_pause(rec.lifecycle_events)
    if event is None or not rec.run_dir.is_dir():  # a run removed: nothing is written (no folder made again)
        return None
    if event.get("event_type") == RUN_INTERRUPT:
        checkpoint = rec.complete_pause(event)
    else:
        payload = as_object(event.get("payload"))
        checkpoint = {"checkpoint_id": payload.get("checkpoint_id"), "event_offset": payload.get("event_offset")}
    return rec.resume_event(checkpoint, resumed_by=resumed_by, reason=reason)
