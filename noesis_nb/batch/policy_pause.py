"""A pause an approver policy decided, whose decision never reached disk: its process died in between.

A live episode writes a policy's pause as a person's is (interrupt → checkpoint → decision → resume), in one
breath. Killed inside it, the run is left paused on a draft nobody decided, though no person was ever asked. The
batch called again with a policy approver decides it by that policy (recorded as the policy's, as the live
episode records it), then continues it as any decided pause; asking a person (``approver="ask"``, or a policy
that answers None for it) the entry says why it waits and what to do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._jsonio import as_object
from ..runtime.context import _ask_policy
from ..runtime.gate import PendingApproval
from ..runtime.openpause import open_pause
from ..runtime.position import last_pause, payload_of
from ..secrets.quoted import quoted
from ..store import now_iso, read_state
from ..store.vocab import POLICY_DEFERRED_KEY, POLICY_PAUSE_KEY, RUN_INTERRUPT, TOOL_APPROVAL_PENDING
from ..tools import decide
from ..tools.repositories import ApprovalDecisionRepository, PreparedInvocationRepository

__all__ = ["asks_a_person", "decide_by_policy", "policy_id", "undecided_policy_pause", "why_it_waits"]


def undecided_policy_pause(run: Any) -> tuple[str, str] | None:
    """``(draft id, the policy its pause names)`` of a run (a ``DiskRun``) left paused on a draft an approver policy
    decided, with no decision on disk; None for any other run.

    The pause is found wherever its process died: after its checkpoint, or after its ``run.interrupt`` only (both
    are marked with the policy). A pause ``resume_run`` completed for a draft whose process died before its
    interrupt is unmarked (nothing on disk said the policy had answered): it is the policy's when the run was
    started with one (its state's approver), as a batch called again must be. A pause the policy left to a person
    (marked ``POLICY_DEFERRED_KEY``) is the person's: its policy is not asked again."""
    if run is None or run.status != "paused" or run.can_resume:
        return None
    events = run.events
    opened = open_pause(events)
    if opened is None:
        return None
    by_id = {e.get("id"): e for e in events if e.get("id")}
    interrupt = opened if opened.get("event_type") == RUN_INTERRUPT else None
    if interrupt is None:
        pause = last_pause(events)
        if pause is None or pause.resume_event is not None or pause.cause is None:
            return None
        interrupt, cause = by_id.get(opened.get("caused_by")) or {}, pause.cause
        marked = payload_of(opened).get(POLICY_PAUSE_KEY) or payload_of(interrupt).get(POLICY_PAUSE_KEY)
    else:
        cause = by_id.get(interrupt.get("caused_by")) or {}
        marked = payload_of(interrupt).get(POLICY_PAUSE_KEY)
    payload = payload_of(cause)
    draft_id = payload.get("draft_id")
    if payload.get("event_name") != TOOL_APPROVAL_PENDING or not isinstance(draft_id, str):
        return None
    if not isinstance(marked, str):
        if isinstance(payload_of(interrupt).get(POLICY_DEFERRED_KEY), str):  # the policy left it to a person: it stands
            return None
        marked = _started_with_policy(run)
        if marked is None:
            return None
    if ApprovalDecisionRepository(run.run_dir).get(None, draft_id) is not None:
        return None
    return draft_id, marked


def _started_with_policy(run: Any) -> str | None:
    """``policy:<name>`` when the run's state says it was started with an approver policy; None for a person."""
    approver = as_object(as_object(read_state(run.run_dir)).get("x-noesis_nb")).get("approver")
    return None if not isinstance(approver, str) or asks_a_person(approver) else policy_id(approver)


def asks_a_person(policy: Any) -> bool:
    """Whether the batch's approver leaves decisions to a person (``"ask"``, or none given)."""
    return policy is None or policy == "ask"


async def decide_by_policy(run_dir: Path, draft_id: str, policy: Any) -> bool:
    """Ask ``policy`` about the draft and record its answer as the policy's; False when it asks a person instead."""
    prepared = PreparedInvocationRepository(run_dir).get(None, draft_id)
    if prepared is None:
        return False
    verdict = await _ask_policy(policy, PendingApproval.from_prepared(prepared, now_iso()))
    if verdict is None:
        return False
    approve, reason = verdict
    decide(run_dir, draft_id, approve=approve, approver_id=policy_id(policy), reason=reason)
    return True


def policy_id(policy: Any) -> str:
    """``policy:<name>``: who a policy's decision says decided (as the live episode records it)."""
    return f"policy:{policy if isinstance(policy, str) else getattr(policy, '__name__', type(policy).__name__)}"


def why_it_waits(episode_id: str, draft_id: str, marked: str, asker: str) -> str:
    """What an entry left on such a pause says when this call of the batch asks a person (``asker`` says who does)."""
    run = quoted(episode_id)
    return (
        f"its run was paused on draft {quoted(draft_id)} by approver {marked}, whose decision never reached disk (the "
        f"process died in between), and {asker} asks a person for it now: decide it with "
        f"approve_draft({run}, approver_id=...) or reject_draft({run}, reason=...); the batch then continues it"
    )
