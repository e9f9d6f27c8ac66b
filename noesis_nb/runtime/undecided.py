"""The drafts a paused run still waits on a decision for, read from its directory (no live episode needed).

A run paused on parallel tool calls waits on several drafts at once: a decision given without ``draft_id`` is for
"the draft" only when one of them is left undecided (``approve_draft``, ``reject_draft``, ``%noesis approve``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..store import read_events_to_continue
from ..store.vocab import TOOL_APPROVAL_PENDING, TOOL_APPROVED
from ..tools.repositories import UNREADABLE_RECORD, ApprovalDecisionRepository, PreparedInvocationRepository
from .position import last_pause, payload_of

__all__ = ["undecided_drafts"]


def undecided_drafts(run_dir: Path, events: list[dict[str, Any]] | None = None) -> list[tuple[str, str]]:
    """``(draft_id, tool)`` of each draft the run asked approval for and has no decision on (none in its log, none
    recorded beside it), in the order asked: those its pause waits on, those a parallel call asked for while the
    episode stopped at its first pause, and those a resumed episode still waited on when its process died. Empty
    when the run never paused. The tool is "?" when its record is unreadable. ``events``: the run's log when the
    caller read it already (read here otherwise)."""
    if events is None:
        events = read_events_to_continue(Path(run_dir) / "events.jsonl", strict=False)
    pause = last_pause(events)
    if pause is None:  # never paused: any draft waits in its live episode, decided there
        return []
    asked: list[str] = []
    decided: set[str] = set()
    for event in events:
        payload = payload_of(event)
        name, draft = payload.get("event_name"), payload.get("draft_id")
        if event.get("phase") != "tool" or not isinstance(draft, str) or not isinstance(name, str):
            continue
        if name == TOOL_APPROVAL_PENDING and draft not in asked:
            asked.append(draft)
        elif name == TOOL_APPROVED or name.startswith("tool.rejected"):
            decided.add(draft)
    records = ApprovalDecisionRepository(run_dir)
    undecided = [draft for draft in asked if draft not in decided and _no_decision(records, draft)]
    if not undecided:
        return []
    tools = {p.key: f"{p.tool.namespace}.{p.tool.name}" for p in PreparedInvocationRepository(run_dir).readable([])}
    return [(draft, tools.get(draft, "?")) for draft in undecided]


def _no_decision(records: ApprovalDecisionRepository, draft: str) -> bool:
    """No readable decision recorded for ``draft``: none, or one that is no decision (a FIFO, garbage; the decision
    made now is written in its place, the bad file kept aside, as ``decide`` does)."""
    try:
        return records.get(None, draft) is None
    except UNREADABLE_RECORD:
        return True
