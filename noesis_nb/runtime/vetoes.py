"""A veto's human decision on disk: ``checkpoints/<id>/decision.json``, written once, read by every process.

A governance veto pauses the run with a checkpoint; whoever decides (the live view's buttons, ``approve_draft``
on a run paused on disk, another kernel) writes the decision here with an exclusive create, so the first
decision wins and the episode, or a later ``resume_run``, reads the same one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import DecisionFileError, RunSealedError
from ..secrets.quoted import keys_hidden, quoted
from ..store import now_iso
from ..store.artifacts import taken_back_if_sealed
from ..store.paths import check_part, run_path
from ..tools._files import create_exclusive_json, quarantine, read_json_object
from .gate import Decision

__all__ = ["write_veto_decision", "read_veto_decision", "decide_veto_on_disk"]


def _decision_path(run_dir: Any, checkpoint_id: str, *, mkdir: bool = False) -> Path:
    return run_path(run_dir, "checkpoints", check_part(checkpoint_id, "checkpoint id"), "decision.json", mkdir=mkdir)


def write_veto_decision(
    run_dir: Any, checkpoint_id: str, *, override: bool, approver_id: str, reason: str | None
) -> tuple[dict[str, Any], bool]:
    """``checkpoints/<id>/decision.json``: a human overrode (or upheld) the veto that paused the run.

    The first decision wins (exclusive create); later ones get it back with ``created=False``. A
    malformed file there is moved aside (``decision.json.invalid-<time>``) rather than trusted.
    """

    path = _decision_path(run_dir, checkpoint_id, mkdir=True)
    record = {
        "checkpoint_id": checkpoint_id,
        "decision": "override" if override else "uphold",
        "approver_id": approver_id,
        "reason": reason,
        "decided_at": now_iso(),
    }
    for _ in range(3):
        if create_exclusive_json(path, record):
            return record, True
        try:
            existing = read_veto_decision(run_dir, checkpoint_id)
        except DecisionFileError:  # set aside only if still malformed once moved (a valid one written meanwhile stays)
            quarantine(path, still_bad=lambda moved: _read_at(moved) is None)
            continue
        if existing is not None:
            return existing, False
    raise DecisionFileError(f"{path}: could not record the decision (the file keeps changing); decide again")


def decide_veto_on_disk(run_dir: Any, checkpoint_id: str, *, override: bool, approver_id: str, reason: str | None) -> Decision:
    """Persist a veto decision for a run paused on disk; a :class:`Decision` saying whether this call made it."""

    record, created = write_veto_decision(run_dir, checkpoint_id, override=override, approver_id=approver_id, reason=reason)
    if created and (late := taken_back_if_sealed(Path(run_dir), _decision_path(run_dir, checkpoint_id))):
        raise RunSealedError(
            f"run {Path(run_dir).name} was sealed while its veto was being decided; {late} "
            "(its episode ended without one). Start a new episode instead."
        )
    return Decision(
        draft_id="",
        status="approved" if record.get("decision") == "override" else "rejected",
        approver_id=record.get("approver_id"),
        reason=record.get("reason"),
        decided_at=record.get("decided_at"),
        created=created,
    )


def read_veto_decision(run_dir: Any, checkpoint_id: str) -> dict[str, Any] | None:
    """The veto decision on disk, None when there is none; a malformed file raises DecisionFileError."""

    return _read_at(_decision_path(run_dir, checkpoint_id))


def _read_at(path: Path) -> dict[str, Any] | None:
    """The veto decision in the file at ``path`` (``read_veto_decision``'s reading of any such file)."""
    try:
        data = read_json_object(path)
    except ValueError as exc:
        raise DecisionFileError(
            f'{path}: {keys_hidden(str(exc))}; write {{"decision": "override" | "uphold", "approver_id": …}} '
            "or decide again with approve_draft/reject_draft"
        ) from None
    if data is None:
        return None
    if data.get("decision") not in ("override", "uphold") or not isinstance(data.get("approver_id"), str):
        raise DecisionFileError(
            f"{path}: 'decision' must be 'override' or 'uphold' and 'approver_id' a string, got "
            f"{quoted(data.get('decision'))} / {quoted(data.get('approver_id'))}; decide again with approve_draft/reject_draft"
        )
    return data
