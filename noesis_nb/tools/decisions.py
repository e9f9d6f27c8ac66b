"""Record a human approval or rejection of a draft, once.

``decide`` binds the decision to what was reviewed (request id, request fingerprint, impact
hash) and stores it with an exclusive create: the first decision on a draft wins, later or
racing calls change nothing and get the stored decision back with ``created=False``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from noesis_nb.errors import DecisionFileError, RunSealedError
from noesis_nb.secrets import quoted
from noesis_nb.store.artifacts import taken_back_if_sealed
from noesis_nb.store.sealing import refuse_odd_seal

from . import codes
from ._files import quarantine
from .errors import ApprovalDecisionBindingError, PreparedToolInvocationNotFoundError
from .repositories import (
    ApprovalDecisionRepository,
    PreparedInvocationRepository,
    resolve_draft_id,
)
from .shown_check import check_shown
from .types import ApprovalDecisionStatus, PreparedToolInvocation, ToolApprovalDecision, default_decision_id

__all__ = ["decide", "binding_problem", "bound_decision"]


def binding_problem(prepared: PreparedToolInvocation, decision: ToolApprovalDecision) -> str | None:
    """What keeps an approval from binding ``prepared`` (another run, request, fingerprint or impact hash than the
    draft's: the draft or the decision was changed after review, or written for another draft), None when it binds. A
    rejection binds whatever it says (it runs nothing)."""
    if decision.status is not ApprovalDecisionStatus.APPROVED:
        return None
    if decision.run_id != prepared.run_id:  # Noēsis finds a decision by run_id + draft_id: another run's is none
        return f"is for run {quoted(decision.run_id)}, not the draft's run {quoted(prepared.run_id)}"
    if decision.request_id != prepared.request_id:
        return f"approves request {quoted(decision.request_id)}, not the draft's {quoted(prepared.request_id)}"
    if decision.reviewed_fingerprint != prepared.payload.request_fingerprint:
        return f"approves payload {decision.reviewed_fingerprint!r}, not the draft's {prepared.payload.request_fingerprint!r}"
    if prepared.preflight is not None and decision.impact_hash != prepared.preflight.impact_hash:
        return f"approves impact_hash {decision.impact_hash!r}, not the draft's {prepared.preflight.impact_hash!r}"
    return None


def bound_decision(run_dir: Path | str, draft_id: str) -> ToolApprovalDecision | None:
    """The decision on ``draft_id`` on disk, None when there is none. An approval that does not bind the draft
    (``binding_problem``) is moved aside (``<draft>.json.invalid-<time>``, as a malformed file is) and
    DecisionFileError raised naming it: the draft is undecided again, and a real decision can take its place."""
    run_dir = Path(run_dir)
    repository = ApprovalDecisionRepository(run_dir)
    path = repository.path_for(draft_id)
    for _ in range(_TRIES):
        decision = repository.get(None, draft_id)
        if decision is None:
            return None
        prepared = PreparedInvocationRepository(run_dir).get(None, draft_id)
        problem = binding_problem(prepared, decision) if prepared is not None else None
        if problem is None:
            return decision
        # only the file judged is set aside: a binding decision another process wrote there meanwhile is put back
        aside = quarantine(path, still_bad=partial(_unbound, prepared, draft_id))
        if aside is not None:
            raise DecisionFileError(
                f"{path}: the decision {problem} (changed after review, or written for another draft), so it cannot "
                f"approve draft {quoted(draft_id)}; it was moved aside to {aside.name}. Decide the draft again."
            )
    raise DecisionFileError(f"{path}: the decision on draft {quoted(draft_id)} keeps changing while read; decide it again")


#: how many times ``bound_decision`` reads a decision file replaced while it set the one it judged aside
_TRIES = 3


def _unbound(prepared: PreparedToolInvocation | None, draft_id: str, path: Path) -> bool:
    """Whether the decision file at ``path`` (one just set aside) does not bind ``prepared``; raises if unreadable."""
    decision = ApprovalDecisionRepository._read(path, draft_id)
    return decision is None or (prepared is not None and binding_problem(prepared, decision) is not None)


def decide(
    run_dir: Path | str,
    draft_id: str | None,
    *,
    approve: bool,
    approver_id: str,
    reason: str | None = None,
    reason_code: str | None = None,
    expected_fingerprint: str | None = None,
    decided_at: str | None = None,
) -> tuple[ToolApprovalDecision, bool]:
    """Approve or reject a draft; returns ``(decision, created)``.

    ``decided_at``: when the person decided (ISO 8601), for a decision a recorded trace holds; default now.

    ``draft_id`` may be None (the single pending draft) or a unique part of the request id
    (see ``resolve_draft_id``). ``expected_fingerprint``, when given, must equal the draft's
    request fingerprint, so a UI cannot approve a payload other than the one it showed; a draft that does not
    show what it runs (``shown_check``) is not approved: PayloadIntegrityError.
    Rejections default to reason code ``governance.vetoed``.
    """
    if not isinstance(approver_id, str) or not approver_id.strip():
        raise ValueError(f"approver_id {quoted(approver_id)} must name who decided (a non-empty string).")
    if reason is not None and not isinstance(reason, str):
        raise ValueError(f"reason {quoted(reason, 80)} must be text (a string) or None.")
    run_dir = Path(run_dir)
    draft_id = resolve_draft_id(run_dir, draft_id)
    prepared = PreparedInvocationRepository(run_dir).get(None, draft_id)
    if prepared is None:
        raise PreparedToolInvocationNotFoundError(f"draft {quoted(draft_id)} disappeared from {run_dir}; nothing to decide.")
    seal = refuse_odd_seal(run_dir)  # a link or folder where final.json or manifest.json goes: nothing is written
    if seal.ended:  # sealed, or its seal being written: the episode ended
        existing = ApprovalDecisionRepository(run_dir).get(None, draft_id)
        if existing is not None:
            return existing, False  # decided before the run was sealed: nothing changes
        raise RunSealedError(
            f"run {run_dir.name} is sealed, so draft {quoted(draft_id)} can no longer be decided "
            "(its episode ended without a decision); start a new episode instead."
        )
    if approve:  # a draft that does not show what it runs cannot be approved (it may be rejected)
        check_shown(prepared, PreparedInvocationRepository(run_dir).path_for(draft_id))
    fingerprint = prepared.payload.request_fingerprint
    if expected_fingerprint is not None and expected_fingerprint != fingerprint:
        raise ApprovalDecisionBindingError(
            f"draft {quoted(draft_id)} now has fingerprint {fingerprint!r}, not the reviewed {expected_fingerprint!r}; "
            "show the current draft and decide again."
        )
    decision = ToolApprovalDecision(
        decision_id=default_decision_id(draft_id),
        run_id=prepared.run_id,
        request_id=prepared.request_id,
        candidate_id=prepared.governance.candidate_id,
        draft_id=draft_id,
        status=ApprovalDecisionStatus.APPROVED if approve else ApprovalDecisionStatus.REJECTED,
        reason_code=reason_code or (None if approve else codes.GOVERNANCE_VETOED),
        reviewed_fingerprint=fingerprint,
        impact_hash=prepared.preflight.impact_hash if prepared.preflight else None,
        approver_id=approver_id,
        reason=reason,
        decided_at=decided_at or datetime.now(UTC).isoformat(),
    )
    try:
        bound_decision(run_dir, draft_id)
    except DecisionFileError:  # a decision there that is not this draft's (moved aside if it approves another): this
        pass  # one takes its place
    repository = ApprovalDecisionRepository(run_dir)
    stored, created = repository.create(decision)
    if created and (late := taken_back_if_sealed(run_dir, repository.path_for(draft_id))):
        raise RunSealedError(
            f"run {run_dir.name} was sealed while draft {quoted(draft_id)} was being decided; {late} "
            "(its episode ended without one). Start a new episode instead."
        )
    return stored, created
