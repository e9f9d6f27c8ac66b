"""Record a human approval or rejection of a draft, once.

``decide`` binds the decision to what was reviewed (request id, request fingerprint, impact
hash) and stores it with an exclusive create: the first decision on a draft wins, later or
racing calls change nothing and get the stored decision back with ``created=False``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

from noesis_nb.errors import RunSealedError
from noesis_nb.store.artifacts import read_manifest
from noesis_nb.store.ownership import holder

from . import codes
from .errors import ApprovalDecisionBindingError, PreparedToolInvocationNotFoundError
from .repositories import (
    ApprovalDecisionRepository,
    PreparedInvocationRepository,
    resolve_draft_id,
)
from .types import ApprovalDecisionStatus, ToolApprovalDecision, default_decision_id

__all__ = ["decide"]


def decide(
    run_dir: Path | str,
    draft_id: str | None,
    *,
    approve: bool,
    approver_id: str,
    reason: str | None = None,
    reason_code: str | None = None,
    expected_fingerprint: str | None = None,
) -> tuple[ToolApprovalDecision, bool]:
    """Approve or reject a draft; returns ``(decision, created)``.

    ``draft_id`` may be None (the single pending draft) or a unique part of the request id
    (see ``resolve_draft_id``). ``expected_fingerprint``, when given, must equal the draft's
    request fingerprint, so a UI cannot approve a payload other than the one it showed.
    Rejections default to reason code ``governance.vetoed``.
    """
    if not isinstance(approver_id, str) or not approver_id.strip():
        raise ValueError(f"approver_id {approver_id!r} must name who decided (a non-empty string).")
    if reason is not None and not isinstance(reason, str):
        raise ValueError(f"reason {reason!r:.80} must be text (a string) or None.")
    run_dir = Path(run_dir)
    draft_id = resolve_draft_id(run_dir, draft_id)
    prepared = PreparedInvocationRepository(run_dir).get(None, draft_id)
    if prepared is None:
        raise PreparedToolInvocationNotFoundError(f"draft {draft_id!r} disappeared from {run_dir}; nothing to decide.")
    if (run_dir / "final.json").exists() or (run_dir / "manifest.json").exists():
        existing = ApprovalDecisionRepository(run_dir).get(None, draft_id)
        if existing is not None:
            return existing, False  # decided before the run was sealed: nothing changes
        raise RunSealedError(
            f"run {run_dir.name} is sealed, so draft {draft_id!r} can no longer be decided "
            "(its episode ended without a decision); start a new episode instead."
        )
    fingerprint = prepared.payload.request_fingerprint
    if expected_fingerprint is not None and expected_fingerprint != fingerprint:
        raise ApprovalDecisionBindingError(
            f"draft {draft_id!r} now has fingerprint {fingerprint!r}, not the reviewed {expected_fingerprint!r}; "
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
        decided_at=datetime.now(UTC).isoformat(),
    )
    repository = ApprovalDecisionRepository(run_dir)
    stored, created = repository.create(decision)
    if created:
        _take_back_if_sealed_meanwhile(run_dir, repository.path_for(draft_id), draft_id)
    return stored, created


def _take_back_if_sealed_meanwhile(run_dir: Path, path: Path, draft_id: str, patience_s: float = 5.0) -> None:
    """The run may have been sealed between the check above and the write: a decision its manifest does not
    list is taken back (nothing may be added to a sealed run) and the caller is told, as if it came late.

    The manifest lists the files present when it is written, after ``final.json``: without ``final.json``
    now, it will list this decision. While the seal is under way, its manifest is waited for; a sealer
    that died mid-way leaves the seal to ``resume_run``, which lists the decision too."""
    if not (run_dir / "final.json").exists():
        return
    deadline = time.monotonic() + patience_s
    while not (run_dir / "manifest.json").exists():
        if holder(run_dir) is None or time.monotonic() > deadline:
            return
        time.sleep(0.01)
    files = (read_manifest(run_dir) or {}).get("files")
    listed = {f.get("name") for f in files if isinstance(f, dict)} if isinstance(files, list) else set()
    if path.relative_to(run_dir).as_posix() in listed:
        return
    path.unlink(missing_ok=True)
    raise RunSealedError(
        f"run {run_dir.name} was sealed while draft {draft_id!r} was being decided; the decision was taken back "
        "(its episode ended without one). Start a new episode instead."
    )
