"""Which drafts a resume from disk continues, and which checkpoint a resume may name.

Parallel tool calls (``asyncio.gather`` of ``ctx.tool_async``) ask for several approvals at once. The run pauses on
one of them; the others wait held (asked, never paused on yet), and each pauses in its turn. Runs written before
pauses took turns paused on each, one ``run.interrupt → run.checkpoint`` per draft with no resume between. Either is
one pause: a resume continues every draft it waits on, in the order their approval was asked, and any of its
checkpoints names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import CheckpointConsistencyError
from ..secrets.quoted import quoted
from ..store.vocab import (
    RUN_CHECKPOINT,
    RUN_INTERRUPT,
    RUN_RESUME,
    TERMINAL_EXECUTION_EVENTS,
    TOOL_APPROVAL_ABANDONED,
    TOOL_APPROVAL_PENDING,
    TOOL_APPROVED,
    TOOL_REJECTED_GOVERNANCE,
)
from .position import Pause, payload_of

__all__ = ["PausedDraft", "checkpoint_of", "paused_drafts", "pause_checkpoint_id", "unpaused_requests"]

_FINISHED = {*TERMINAL_EXECUTION_EVENTS, TOOL_REJECTED_GOVERNANCE}


@dataclass(frozen=True)
class PausedDraft:
    """A draft the run paused on: its ``tool.approval.pending`` event, the last checkpoint it paused at, and that
    checkpoint's ``run.resume`` when a resume cut short wrote it."""

    pending: dict[str, Any]
    checkpoint_event: dict[str, Any]
    resume_event: dict[str, Any] | None

    @property
    def draft_id(self) -> str:
        return str(payload_of(self.pending).get("draft_id"))


def paused_drafts(events: list[dict[str, Any]], cause: dict[str, Any]) -> list[PausedDraft]:
    """The drafts a resume continues, in the order their approval was asked: every draft the run paused on
    whose tool has no result or rejection yet, and those a resume cut short finished (its seal is still to
    write). ``cause`` (the pending event of the run's last pause) is one of them unless its live adapter gave its
    call up (``tool.approval.abandoned``): such a draft never runs, and is none of them."""

    index = {e.get("id"): i for i, e in enumerate(events) if e.get("id")}
    first_own = next(
        (
            i
            for i, e in enumerate(events)
            if e.get("event_type") == RUN_RESUME and payload_of(e).get("resumed_by") == "resume_run"
        ),
        len(events),
    )
    finished_at: dict[str, int] = {}
    for i, event in enumerate(events):
        payload = payload_of(event)
        if event.get("phase") == "tool" and payload.get("event_name") in _FINISHED:
            finished_at.setdefault(str(payload.get("request_id")), i)
    approved = {
        str(payload_of(e).get("request_id"))
        for e in events
        if e.get("phase") == "tool" and payload_of(e).get("event_name") == TOOL_APPROVED
    }
    abandoned = {
        str(payload_of(e).get("request_id"))
        for e in events
        if e.get("phase") == "tool" and payload_of(e).get("event_name") == TOOL_APPROVAL_ABANDONED
    }
    cause_checkpoint = checkpoint_of(events, cause.get("id"))
    drafts = []
    for event in events:
        payload = payload_of(event)
        if event.get("phase") != "tool" or payload.get("event_name") != TOOL_APPROVAL_PENDING:
            continue
        if str(payload.get("request_id")) in abandoned:
            continue
        checkpoint = checkpoint_of(events, event.get("id"))
        if checkpoint is None:
            request = str(payload.get("request_id"))
            if request in approved or request in finished_at or cause_checkpoint is None:
                continue  # never paused on (decided while its episode waited in process)
            # held behind the pause: it pauses in its turn, when the drafts before it are done (``resume_pause``)
            drafts.append(PausedDraft(event, cause_checkpoint, None))
            continue
        done = finished_at.get(str(payload.get("request_id")))
        if event is not cause and done is not None and done < first_own:
            continue  # finished by its live episode: not this resume's to continue
        resume = next(
            (
                e
                for e in events[index[checkpoint.get("id")] + 1 :]
                if e.get("event_type") == RUN_RESUME
                and payload_of(e).get("checkpoint_id") == payload_of(checkpoint).get("checkpoint_id")
            ),
            None,
        )
        drafts.append(PausedDraft(event, checkpoint, resume))
    return drafts


def checkpoint_of(events: list[dict[str, Any]], pending_id: Any) -> dict[str, Any] | None:
    """The last ``run.checkpoint`` of a pause on the draft whose ``tool.approval.pending`` is ``pending_id``."""
    interrupts = {e.get("id") for e in events if e.get("event_type") == RUN_INTERRUPT and e.get("caused_by") == pending_id}
    return next((e for e in reversed(events) if e.get("event_type") == RUN_CHECKPOINT and e.get("caused_by") in interrupts), None)


def pause_checkpoint_id(events: list[dict[str, Any]], pause: Pause, named: str | None) -> str | None:
    """The checkpoint a resume validates and continues from: the run's last one (it binds the run's files as they
    are), also when ``named`` is an earlier checkpoint of the same pause (parallel drafts pause a run once per
    draft). A checkpoint the run has since resumed is refused, saying so and naming the one to use."""

    current = payload_of(pause.checkpoint_event).get("checkpoint_id")
    if named is None or named == current:
        return current
    at = next(
        (
            i
            for i, e in enumerate(events)
            if e.get("event_type") == RUN_CHECKPOINT and payload_of(e).get("checkpoint_id") == named
        ),
        None,
    )
    later = next((e for e in events[(at if at is not None else len(events)) :] if e.get("event_type") == RUN_RESUME), None)
    if at is None:
        return named  # a checkpoint file with no event: read and checked as it is
    if later is None:
        return current  # the same pause: no resume since
    raise CheckpointConsistencyError(
        f"checkpoint {quoted(named)} of run {events[0].get('episode_id') if events else '?'} was resumed already "
        f"(run.resume of checkpoint {quoted(payload_of(later).get('checkpoint_id'))} followed it), so the run's files "
        f"have moved on since; nothing was changed. Resume from the run's last checkpoint {quoted(current)}, or leave "
        "checkpoint_id out"
    )


def unpaused_requests(events: list[dict[str, Any]]) -> set[str]:
    """Tool requests in the log with neither a result or rejection nor a pause on them (read from the log only):
    parallel calls whose process died, or stopped, before pausing on them."""
    requests: set[str] = set()
    done: set[str] = set()
    for event in events:
        payload = payload_of(event)
        if event.get("phase") != "tool" or not isinstance(payload.get("request_id"), str):
            continue
        requests.add(payload["request_id"])
        if payload.get("event_name") in _FINISHED or (
            payload.get("event_name") == TOOL_APPROVAL_PENDING and checkpoint_of(events, event.get("id")) is not None
        ):
            done.add(payload["request_id"])
    return requests - done
