"""The approval gate: one thread-safe, idempotent place where tool decisions arrive.

A decision is written to disk first (``tool_invocations/approvals/<draft_id>.json``), then the
waiting episode is woken on its own loop with ``call_soon_threadsafe``. Clicks, handle calls,
other threads and other programs (by writing the decision file) all end up here.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._envvars import check_approver_id
from ..errors import AmbiguousDraftError, DraftNotFoundError, InvalidOptionError
from ..secrets import shown, shown_repr
from ..secrets.quoted import quoted
from ..store.vocab import ABANDONED_BY
from ..tools import decide as persist_decision
from ..tools.draftref import match_draft_ref
from ..tools.protocols import render_command_line
from ..tools.shown_check import shown_mismatch
from .steer import check_free_text

__all__ = ["PendingApproval", "ApprovalGate", "Decision", "check_decider", "check_decision_options"]


def check_decider(approver_id: Any, reason: Any) -> None:
    """Who decides and why, as a decision records them: a non-empty string, and a string or None (free text, as a
    steer's: ``check_free_text``)."""
    check_approver_id(approver_id)
    if reason is not None and not isinstance(reason, str):
        raise InvalidOptionError(f"reason={quoted(reason, 80)}: pass the reason as text, e.g. reason='checked the diff', or None")
    if reason is not None:
        check_free_text(reason, "reason")


def check_decision_options(draft_id: Any, approver_id: Any, reason: Any) -> None:
    """Every decision's options (``approve_draft``, ``reject_draft``, a handle's ``approve`` / ``reject``), checked
    before anything is looked up: a draft reference that names nothing (not text, or blank) is refused whatever
    the run holds, the same way ``match_draft_ref`` refuses it."""
    check_decider(approver_id, reason)
    if draft_id is not None and (not isinstance(draft_id, str) or not draft_id.strip()):
        match_draft_ref(draft_id, [])  # raises InvalidIdError naming the value and the fix


@dataclass(frozen=True)
class PendingApproval:
    """A tool draft waiting for a human: what it asks, and what to bind a decision to."""

    draft_id: str
    request_id: str
    tool: str
    protocol: str
    effect_kind: str
    risk_tier: str
    redacted_payload: dict[str, Any]
    command_line: str | None
    fingerprint: str
    impact_hash: str | None
    requested_at: str
    episode_id: str = ""
    refused: str | None = None  # why the draft is refused unseen: it does not show what it runs (``shown_check``)

    def __repr__(self) -> str:  # a cell ending with ``handle.pending`` prints it: what it asks, minus its secrets
        return shown_repr(self)

    @classmethod
    def from_prepared(cls, prepared: Any, requested_at: str) -> PendingApproval:

        protocol = getattr(prepared.protocol, "value", prepared.protocol)
        refused = shown_mismatch(prepared)
        if refused is not None:  # what it shows is not what would run: neither is shown, only the refusal
            refused = f"refused, do not approve: the draft was tampered with ({refused}); it will not run"
            payload, command = {"refused": refused}, None
        else:
            payload = dict(prepared.payload.redacted_payload)
            command = render_command_line(payload) if protocol == "subprocess" else None
        tool = prepared.tool
        return cls(
            draft_id=prepared.draft_id,
            request_id=prepared.request_id,
            # as the run's files name it: a name carrying a key (a peer's tool call name) is shown redacted
            tool=shown(f"{tool.namespace}.{tool.name}" + (f"@{tool.version}" if tool.version else "")),
            protocol=str(protocol),
            effect_kind=str(getattr(prepared.governance.effect_kind, "value", prepared.governance.effect_kind)),
            risk_tier=str(getattr(prepared.governance.risk_tier, "value", prepared.governance.risk_tier)),
            redacted_payload=payload,
            command_line=command,
            fingerprint=prepared.payload.request_fingerprint,
            impact_hash=prepared.preflight.impact_hash if prepared.preflight else None,
            requested_at=requested_at,
            episode_id=prepared.run_id,
            refused=refused,
        )


@dataclass
class Decision:
    """What a call to approve/reject returns: the persisted decision and whether this call made it."""

    draft_id: str
    status: str
    approver_id: str | None
    reason: str | None
    decided_at: str | None
    created: bool
    record: Any = field(default=None, repr=False)

    @property
    def approved(self) -> bool:
        return self.status == "approved"

    def __repr__(self) -> str:  # a cell ending with ``handle.approve(reason=…)`` prints it
        return shown_repr(self)


class ApprovalGate:
    def __init__(self, run_dir: Path):
        self.run_dir = Path(run_dir)
        self._lock = threading.Lock()
        self._pending: dict[str, PendingApproval] = {}
        self._waiters: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}
        self._opened: list[str] = []  # every draft that ever waited here, oldest first
        self._detached = False  # the episode ended paused (``detach``): decisions are for the disk alone
        self.decisions: list[dict[str, Any]] = []

    @property
    def pending(self) -> list[PendingApproval]:
        with self._lock:
            return list(self._pending.values())

    def open(self, pending: PendingApproval, loop: asyncio.AbstractEventLoop) -> asyncio.Future[Any]:
        """Register a pending draft; the returned future resolves with its :class:`Decision`."""
        future = loop.create_future()
        with self._lock:
            self._pending[pending.draft_id] = pending
            self._opened.append(pending.draft_id)
            self._waiters[pending.draft_id] = (loop, future)
        return future

    def resolve_id(self, draft_id: str | None) -> str:
        """The one pending draft meant by ``draft_id`` (None, exact, or a unique prefix/suffix)."""
        with self._lock:
            ids = list(self._pending)
            opened = list(self._opened)
        if draft_id is None:
            if len(ids) == 1:
                return ids[0]
            if not ids and opened:
                return opened[-1]  # a second click on a decided draft: the disk answers with the first decision
            if not ids:
                raise DraftNotFoundError("no tool draft is pending approval in this episode; nothing to decide")
            raise AmbiguousDraftError(f"{len(ids)} drafts are pending ({', '.join(ids)}); pass draft_id=")

        matches = match_draft_ref(draft_id, ids)
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise AmbiguousDraftError(f"draft id {quoted(draft_id)} matches {matches}; pass more of the id")
        return draft_id  # not pending here: the disk decides (already decided, or unknown)

    def decide(self, draft_id: str | None, *, approve: bool, approver_id: str, reason: str | None = None) -> Decision:
        """Persist the decision (idempotently), then wake the episode. Safe from any thread."""

        draft = self.resolve_id(draft_id)
        with self._lock:
            record, created = persist_decision(self.run_dir, draft, approve=approve, approver_id=approver_id, reason=reason)
            decision = to_decision(record, created)
            if created:
                self.record(decision)
            self._pending.pop(draft, None)
            waiter = self._waiters.pop(draft, None)
        if waiter is not None:
            loop, future = waiter
            try:
                loop.call_soon_threadsafe(_settle, future, decision)
            except RuntimeError:  # the loop is closed: the decision is on disk for resume_run
                pass
        return decision

    def close(self) -> None:
        """The episode ended: nothing is pending any more; tool calls still waiting are cancelled.

        Undecided drafts stay undecided on disk (and a sealed run refuses decisions).
        """
        with self._lock:
            self._pending.clear()
        self._cancel_waiters()

    def withdraw(self, draft_id: str) -> None:
        """The call waiting on ``draft_id`` gave up (cancelled, or ``solve`` unwound): it is pending here no more
        (unless the episode ended paused: ``detach``).

        Its draft stays on disk as it is (decided or not) for resume_run."""
        with self._lock:
            if not self._detached:
                self._pending.pop(draft_id, None)
            self._waiters.pop(draft_id, None)

    def detach(self) -> None:
        """The episode ended with its run paused on disk (its adapter went on without the decisions it asked for): the
        calls still waiting are cancelled (nothing in this process continues the run), and the drafts stay pending
        here, so that a decision (``decide``) is written on disk for ``resume_run``."""
        with self._lock:
            self._detached = True
        self._cancel_waiters()

    def _cancel_waiters(self) -> None:
        """Cancel every call still waiting on a decision, each in its own loop."""
        with self._lock:
            waiters = list(self._waiters.values())
            self._waiters.clear()
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(future.cancel)
            except RuntimeError:  # loop already closed
                pass

    def record(self, decision: Decision) -> None:
        """Remember a decision for the view (who decided what, and when)."""
        self.decisions.append(
            {
                "draft_id": decision.draft_id,
                "status": decision.status,
                "approver_id": decision.approver_id,
                "decided_at": decision.decided_at,
                "reason": decision.reason,
            }
        )

    def settle_from_disk(self, draft_id: str, record: Any) -> None:
        """A decision another program wrote: forget the pending draft and wake its waiter."""
        decision = to_decision(record, created=False)
        with self._lock:
            self._pending.pop(draft_id, None)
            waiter = self._waiters.pop(draft_id, None)
            if waiter is not None:
                self.record(decision)
        if waiter is not None:
            _settle(waiter[1], decision)


class DecisionStands(UserWarning):
    """A decision asked for a draft (or veto) already decided the other way: the first one stands."""


def tell_if_overruled(decision: Decision, approve: bool, stacklevel: int) -> Decision:
    """Warn (``DecisionStands``, at the caller's line) when ``decision`` is an earlier one of the other way.

    Decisions are final and idempotent: a second click the same way is silent, but a reject after an
    approve (or the reverse) changes nothing, which the caller must not take for done.
    """
    if not decision.created and decision.approved != approve:
        what = f"draft {decision.draft_id}" if decision.draft_id else "the governance veto"
        by = f" by {decision.approver_id}" if decision.approver_id else ""
        when = f" at {decision.decided_at}" if decision.decided_at else ""
        why = f" ({decision.reason})" if decision.approver_id == ABANDONED_BY and decision.reason else ""
        warnings.warn(
            f"{'approve' if approve else 'reject'} changed nothing: {what} was already {decision.status}{by}{when}{why}, "
            "and a decision is final",
            DecisionStands,
            stacklevel=stacklevel + 1,
        )
    return decision


def to_decision(record: Any, created: bool) -> Decision:
    status = getattr(record.status, "value", record.status)
    return Decision(
        draft_id=record.draft_id,
        status=str(status),
        approver_id=record.approver_id,
        reason=getattr(record, "reason", None),
        decided_at=getattr(record, "decided_at", None),
        created=created,
        record=record,
    )


def _settle(future: asyncio.Future[Any], decision: Decision) -> None:
    if not future.done():
        future.set_result(decision)
