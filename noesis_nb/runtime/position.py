"""Where a run stands on disk: its last pause, what it paused on, and the resume that followed it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._jsonio import as_object
from ..store.vocab import RUN_CHECKPOINT, RUN_INTERRUPT, RUN_RESUME
from .episode import EpisodeOptions
from .recorder import Recorder

__all__ = ["Pause", "last_pause", "payload_of", "options_from_state"]


@dataclass
class Pause:
    checkpoint_event: dict[str, Any]
    cause: dict[str, Any] | None  # the tool.approval.pending or governance event the pause is about
    resume_event: dict[str, Any] | None  # set when a resume of this checkpoint began
    resume_index: int | None


def payload_of(event: dict[str, Any]) -> dict[str, Any]:
    payload = event.get("payload")
    return as_object(payload)


def last_pause(events: list[dict[str, Any]]) -> Pause | None:
    """The run's last checkpoint, what it paused on, and the resume that followed it (if any)."""
    index = next((i for i in range(len(events) - 1, -1, -1) if events[i].get("event_type") == RUN_CHECKPOINT), None)
    if index is None:
        return None
    checkpoint = events[index]
    by_id = {e.get("id"): e for e in events if e.get("id")}
    cause = _paused_on(checkpoint, by_id)
    checkpoint_id = payload_of(checkpoint).get("checkpoint_id")
    for j in range(index + 1, len(events)):
        if events[j].get("event_type") == RUN_RESUME and payload_of(events[j]).get("checkpoint_id") == checkpoint_id:
            return Pause(checkpoint, cause, events[j], j)
    return Pause(checkpoint, cause, None, None)


def _paused_on(checkpoint: dict[str, Any], by_id: dict[Any, dict[str, Any]]) -> dict[str, Any] | None:
    """The event a checkpoint's pause is about: the parent of the ``run.interrupt`` it follows. A checkpoint taken
    while the run was already paused (after its checkpoint, or after an evidence-only ``ns.resume``; runs written
    before ``ns.checkpoint`` refused that) changes nothing it waits for: the pause is found through it."""
    seen: set[Any] = set()
    parent = by_id.get(checkpoint.get("caused_by"))
    while parent is not None and parent.get("id") not in seen:
        seen.add(parent.get("id"))
        kind = parent.get("event_type")
        if kind == RUN_INTERRUPT:
            return by_id.get(parent.get("caused_by"))
        if kind != RUN_CHECKPOINT and not (kind == RUN_RESUME and payload_of(parent).get("resumed_by") == "resume"):
            return None
        parent = by_id.get(parent.get("caused_by"))
    return None


def options_from_state(rec: Recorder) -> EpisodeOptions:
    state = rec.state
    ext = as_object(state.get("x-noesis_nb"))
    episode = as_object(state.get("episode"))
    goal = as_object(state.get("goal"))
    tags = as_object(episode.get("tags"))
    return EpisodeOptions(
        task=str(goal.get("task", "")),
        seed=episode.get("seed", 0) if type(episode.get("seed")) is int else 0,
        tags=tags,
        governance=str(ext.get("governance_mode", "off")),
        approver="ask",
        wait_for_human=False,
        **({"capture": ext["capture"]} if type(ext.get("capture")) is bool else {}),  # as the run was started
    )
