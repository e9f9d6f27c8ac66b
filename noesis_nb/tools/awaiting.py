"""Which prepared records wait for a person's decision: one rule for the runtime and the frames.

Noēsis finds the draft a paused run waits on as the one record whose status is ``pending_approval``. noesis_nb pauses
on one draft at a time; a draft asked for approval while another pause is open is written ``prepared`` with its
``governance.requires_approval`` still true (held: never executed without an approved decision), and it waits for a
person as much as the one paused on. Noēsis never writes a draft that needs approval ``prepared``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["awaits_decision", "is_held"]


def _field(record: Any, name: str) -> Any:
    return record.get(name) if isinstance(record, dict) else getattr(record, name, None)


def is_held(record: Any) -> bool:
    """A record (a ``PreparedToolInvocation`` or its JSON document) held: ``prepared``, its approval still required."""
    status = _field(record, "status")
    status = getattr(status, "value", status)
    governance = _field(record, "governance")
    required = _field(governance, "requires_approval") if governance is not None else None
    return status == "prepared" and required is True


def awaits_decision(record: Any, *, run_ended: bool = False) -> bool:
    """A record waiting for a person's decision: ``pending_approval``, or held (``is_held``), in a run whose seal has
    not begun. ``run_ended``: the run's seal began (``SealState.ended``): ``approve_draft`` refuses every decision then,
    so nothing of it waits (``tools_df`` calls such a draft ``undecided``, ``runs_df`` counts it in no
    ``pending_approvals``)."""
    if run_ended:
        return False
    status = _field(record, "status")
    return getattr(status, "value", status) == "pending_approval" or is_held(record)
