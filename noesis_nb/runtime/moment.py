"""``RunMoment``: a run as it was after its first ``k`` events, a read-only :class:`RunSource` for replays.

Everything it reports is a function of those ``k`` events (plus what the run directory says about the
drafts they name): status (``running``, ``paused`` while a pause is open, the ``terminate`` status once
written; at the last event, the run's final status), token usage (counted as a live handle counts
it), the drafts waiting for a decision at that moment and the decisions made by then. A view of it
therefore shows the step tree, header and cards as they were.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import EpisodeStateError
from ..store.facts import usage_from_events
from ..store.instants import epoch_seconds
from ..store.vocab import TOOL_APPROVAL_PENDING, TOOL_APPROVED
from ..tools import PreparedInvocationRepository
from .diskrun import DiskRun
from .gate import Decision, PendingApproval
from .position import last_pause, payload_of

__all__ = ["RunMoment", "epoch_of"]


def epoch_of(event: dict[str, Any]) -> float | None:
    """The event's timestamp in epoch seconds (None when it has none, or none that is a time)."""
    return epoch_seconds(event.get("timestamp"))  # the frames' rule: no offset is UTC, not the machine's local time


class RunMoment:
    """The run of ``run`` (a :class:`DiskRun`) after its first ``k`` events; nothing here can act on it."""

    summary_kind = "EpisodeReplay"
    loop: asyncio.AbstractEventLoop | None = None
    last_error: str | None = None
    following: str | None = None
    hint: str | None = None
    problems: list[str] = []
    paused_on_veto = False
    can_cancel = can_resume = resuming = can_steer = False

    def __init__(self, run: DiskRun, k: int):
        if not 0 <= k <= len(run.events):
            raise ValueError(f"k={k}: a moment of this run is between 0 and {len(run.events)} events")
        self.run, self.k = run, k
        self.problems = list(run.problems)  # lines of the log left out, damaged drafts: the replay names them too
        self.events = list(run.events[:k])
        self.episode_id, self.run_dir, self.task, self.using = run.episode_id, Path(run.run_dir), run.task, run.using
        self.usage, self.usage_calls = usage_from_events(self.events)
        self.status = self._status()
        self.started_at = run.started_at  # the run's own start (its state), as summary.duration_sec counts from it
        self.ended_at = self.events[-1].get("timestamp") if self.status not in ("running", "paused") and self.events else None
        self.now = epoch_of(self.events[-1]) if self.events else None  # the run's own clock at this moment
        decided = self._decided()
        self.decisions = [d for d in run.decisions if d["draft_id"] in decided]
        self.pending = [] if self.status not in ("running", "paused") else self._pending(set(decided))

    def _status(self) -> str:
        if self.k == len(self.run.events):
            return self.run.status
        for event in reversed(self.events):
            if event.get("phase") == "terminate":
                return str(payload_of(event).get("status") or "error")
        pause = last_pause(self.events)
        return "paused" if pause is not None and pause.resume_event is None else "running"

    def _decided(self) -> dict[str, str]:
        out = {}
        for event in self.events:
            payload = payload_of(event)
            name = payload.get("event_name")
            if event.get("phase") == "tool" and payload.get("draft_id") and isinstance(name, str):
                if name == TOOL_APPROVED or name.startswith("tool.rejected"):
                    out[str(payload["draft_id"])] = name
        return out

    def _pending(self, decided: set[str]) -> list[PendingApproval]:
        asked = {
            str(payload_of(e).get("draft_id")): str(e.get("timestamp") or "")
            for e in self.events
            if payload_of(e).get("event_name") == TOOL_APPROVAL_PENDING
        }
        waiting = {d for d in asked if d not in decided}
        if not waiting:
            return []
        return [
            PendingApproval.from_prepared(p, asked[p.key])
            for p in PreparedInvocationRepository(self.run_dir).readable([])  # the run's own view reports a damaged draft
            if p.key in waiting
        ]

    # -- a replay acts on nothing -------------------------------------------------------------------
    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        return _nothing

    def on_change(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        return _nothing

    def approve(self, draft_id: str | None = None, *, approver_id: str | None = None, reason: str | None = None) -> Decision:
        raise EpisodeStateError(f"this is a replay of {self.episode_id}: decide the run itself with noesis_nb.show(…)")

    def reject(self, draft_id: str | None = None, *, reason: str | None = None, approver_id: str | None = None) -> Decision:
        raise EpisodeStateError(f"this is a replay of {self.episode_id}: decide the run itself with noesis_nb.show(…)")

    def cancel(self) -> bool:
        return False

    def resume(self) -> Any:
        return None


def _nothing() -> None:
    return None
