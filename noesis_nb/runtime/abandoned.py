"""A paused draft whose call the adapter gave up: recorded abandoned, its pause resumed, the next held draft's turn.

An adapter may give up a tool call while it awaits a person's approval (``asyncio.wait_for`` timing out,
``task.cancel()``, a ``gather`` cancelled) and go on. The run was paused on that draft; left so, the drafts held
behind it (``PauseTurns``) would wait for a turn that never comes. So the draft is recorded abandoned, never run: its
decision is written rejected by ``ABANDONED_BY`` with the reason (unless someone decided it first: a later approval
then changes nothing, and says why), its pause is resumed with a ``run.resume`` that says why, followed by the
request's ``tool.approval.abandoned``, and the run goes on. A call cancelled with the episode itself (a stop, its loop
going away) is not abandoned: its pause stays open on disk for ``resume_run``. A draft held behind another pause
(never paused on) whose call is given up is recorded abandoned the same way, with no pause of its own to resume: else
``resume_run`` would take it for a held draft still wanted, and run it (or pause on it) after a crash.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .. import tools as tc
from .._jsonio import as_object
from ..store.vocab import ABANDONED_BY, TOOL_APPROVAL_ABANDONED, TOOL_APPROVAL_PENDING

if TYPE_CHECKING:
    from .episode import Episode
    from .gate import PendingApproval
    from .position import Pause
    from .recorder import Recorder

__all__ = [
    "episode_stopping",
    "abandon_paused_draft",
    "abandon_held_draft",
    "finish_abandonment",
    "is_abandonment",
    "ABANDONED_CODE",
]

#: ``reason_code`` of an abandoned draft's decision and event
ABANDONED_CODE = "tool.call_abandoned"


def episode_stopping(episode: Episode, task: asyncio.Task[Any] | None) -> bool:
    """Whether a cancellation reaching a tool call now stops the episode itself (a stop asked, a drain, the adapter
    ended, ``task`` cancelled: the episode's own, its loop going away), rather than the adapter giving up that one
    call (the adapter runs in a task of its own: ``asyncio.wait_for`` and ``task.cancel()`` there leave ``task`` be)."""
    return (
        episode.cancel_requested
        or episode.drain is not None
        or episode.recorder.closed
        or episode.left_running.adapter_ended
        or task is None
        or task.done()
        or task.cancelling() > 0
    )


def abandon_paused_draft(episode: Episode, pending: PendingApproval, checkpoint: dict[str, Any], paused_on: Any) -> str:
    """Record the draft of ``pending`` (the run paused on it at ``checkpoint``) abandoned and resume its pause; returns
    the id of its ``tool.approval.abandoned`` event."""
    rec = episode.recorder
    reason = _reason(pending)
    record, created = _decide_abandoned(episode, pending, reason)
    resume = rec.resume_pause(checkpoint, paused_on, reason=reason)
    event_id = _abandoned_event(episode, pending, record, created, reason, resume["id"])
    episode.set_status("running")
    return event_id


def abandon_held_draft(episode: Episode, pending: PendingApproval, caused_by: str | None) -> str:
    """Record the draft of ``pending``, held behind another draft's pause (never paused on), abandoned; returns the id
    of its ``tool.approval.abandoned`` event (caused by ``caused_by``, the request's last event)."""
    reason = _reason(pending)
    record, created = _decide_abandoned(episode, pending, reason)
    return _abandoned_event(episode, pending, record, created, reason, caused_by)


def _reason(pending: PendingApproval) -> str:
    return (
        f"the adapter gave up the call of tool {pending.tool} while it waited for approval of draft {pending.draft_id} "
        "(cancelled, or timed out); the tool never ran"
    )


def _decide_abandoned(episode: Episode, pending: PendingApproval, reason: str) -> tuple[Any, bool]:
    """The draft's decision: written rejected by ``ABANDONED_BY`` unless someone decided it first."""
    record, created = tc.decide(
        episode.recorder.run_dir,
        pending.draft_id,
        approve=False,
        approver_id=ABANDONED_BY,
        reason=reason,
        reason_code=ABANDONED_CODE,
    )
    episode.gate.settle_from_disk(pending.draft_id, record)  # pending no more: an Approve now is told it changes nothing
    return record, created


def _abandoned_event(
    episode: Episode, pending: PendingApproval, record: Any, created: bool, reason: str, caused_by: str | None
) -> str:
    event = episode.recorder.emit(
        "tool",
        {
            "event_name": TOOL_APPROVAL_ABANDONED,
            "request_id": pending.request_id,
            "draft_id": pending.draft_id,
            "decision_id": record.decision_id,
            "reason_code": ABANDONED_CODE if created else record.reason_code,
            "reason": reason,
        },
        agent_id="tool_contract",
        caused_by=caused_by,
    )
    return str(event["id"])


def is_abandonment(record: Any) -> bool:
    """Whether the approval ``record`` (a record, or its JSON) is an abandonment's: rejected by ``ABANDONED_BY`` with
    ``ABANDONED_CODE``; no person decides so."""
    fields = (
        record if isinstance(record, dict) else {k: getattr(record, k, None) for k in ("status", "approver_id", "reason_code")}
    )
    status = fields.get("status")
    return bool(
        getattr(status, "value", status) == "rejected"
        and fields.get("approver_id") == ABANDONED_BY
        and fields.get("reason_code") == ABANDONED_CODE
    )


def finish_abandonment(rec: Recorder, pause: Pause) -> bool:
    """``resume_run`` of a run whose process was killed while it recorded the abandonment of the draft it paused on
    (``abandon_paused_draft``: its decision written, then its pause's ``run.resume``, then ``tool.approval.abandoned``):
    the writes missing are completed as the episode would have made them, so the draft reads abandoned (never run)
    and not rejected by a person. True when something was written."""
    cause = _payload(pause.cause or {})
    draft_id, request_id = cause.get("draft_id"), cause.get("request_id")
    if cause.get("event_name") != TOOL_APPROVAL_PENDING or not isinstance(draft_id, str):
        return False
    record = tc.ApprovalDecisionRepository(rec.run_dir).get(None, draft_id)
    if record is None or not is_abandonment(record):
        return False
    if any(
        _payload(e).get("event_name") == TOOL_APPROVAL_ABANDONED and _payload(e).get("request_id") == request_id
        for e in rec.events
    ):
        return False
    reason = str(getattr(record, "reason", None) or "the adapter gave up the call while it waited for approval")
    caused_by = None
    if pause.resume_event is None:
        checkpoint = _payload(pause.checkpoint_event)
        resume = rec.resume_event(
            {"checkpoint_id": checkpoint.get("checkpoint_id"), "event_offset": checkpoint.get("event_offset")},
            resumed_by="resume_run",
            reason=reason,
        )
        caused_by = resume["id"]
    else:
        caused_by = pause.resume_event.get("id")
    rec.emit(
        "tool",
        {
            "event_name": TOOL_APPROVAL_ABANDONED,
            "request_id": request_id,
            "draft_id": draft_id,
            "decision_id": getattr(record, "decision_id", None),
            "reason_code": ABANDONED_CODE,
            "reason": reason,
        },
        agent_id="tool_contract",
        caused_by=caused_by,
    )
    return True


def _payload(event: dict[str, Any]) -> dict[str, Any]:
    return as_object(event.get("payload"))
