"""What a view reads beyond the events: tool drafts and their results, and the decision on a paused veto.

Both come from the run directory (``tool_invocations/``, ``checkpoints/<id>/decision.json``),
read once per draft when it is finished and at most once per redraw while a veto waits, so
a view of any run — live, from disk, another process's — tells the same story.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import NoesisNbError
from ..runtime.vetoes import read_veto_decision
from ..tools import ExecutionRepository, PreparedInvocationRepository
from .render import short
from .steps import Step
from .stepview import ToolFacts

__all__ = ["ToolFactsCache", "veto_of"]


def _payload(event: Mapping[str, Any]) -> Mapping[str, Any]:
    payload = event.get("payload")
    return payload if isinstance(payload, Mapping) else {}


def _excerpt(output: Any) -> str | None:
    """A tool's output in a few words: exit code and the first line of stdout or stderr."""
    if not isinstance(output, Mapping):
        return short(output, 60) if output not in (None, "", {}, []) else None
    parts = []
    code = output.get("returncode", output.get("exit_code"))
    if code is not None:
        parts.append(f"exit {code}")
    for key in ("stdout", "stderr", "result", "output"):
        text = output.get(key)
        if isinstance(text, str) and text.strip():
            parts.append(short(text.strip().splitlines()[0], 60))
            break
    return " · ".join(parts) or short(dict(output), 60)


class ToolFactsCache:
    """``get(draft_id)``: tool, effect, risk and a result excerpt of one draft; cached once the draft is finished."""

    def __init__(self, run_dir: Path):
        self.run_dir = Path(run_dir)
        self._done: dict[str, ToolFacts] = {}
        self._pending: dict[str, ToolFacts] = {}

    def note_pending(self, pending: list[Any]) -> None:
        for p in pending:
            self._pending[p.draft_id] = ToolFacts(p.tool, p.effect_kind, p.risk_tier)

    def get(self, draft_id: str, *, finished: bool = False) -> ToolFacts | None:
        if draft_id in self._done:
            return self._done[draft_id]
        facts = self._pending.get(draft_id)
        if facts is None or finished:
            facts = self._read(draft_id, with_result=finished) or facts
            if facts is not None and finished:
                self._done[draft_id] = facts
            elif facts is not None:
                self._pending[draft_id] = facts
        return facts

    def _read(self, draft_id: str, *, with_result: bool) -> ToolFacts | None:
        try:
            prepared = PreparedInvocationRepository(self.run_dir).get(None, draft_id)
            result = ExecutionRepository(self.run_dir).get(draft_id) if with_result else None
        except (OSError, ValueError, NoesisNbError):
            return None
        if prepared is None:
            return None
        tool = prepared.tool
        name = f"{tool.namespace}.{tool.name}" + (f"@{tool.version}" if tool.version else "")
        governance = prepared.governance
        return ToolFacts(
            name,
            str(getattr(governance.effect_kind, "value", governance.effect_kind)),
            str(getattr(governance.risk_tier, "value", governance.risk_tier)),
            _excerpt(result.output) if result is not None else None,
        )


def veto_of(step: Step | None, run_dir: Path) -> tuple[Mapping[str, Any], dict[str, Any] | None] | None:
    """(the governance event, its decision or None) when ``step`` is an enforced veto that paused the run.

    The decision is the override written after the resume (``human.override``), else the decision
    file a person wrote (``approve_draft`` / a button), else an upheld veto in the run's end.
    """
    if step is None or step.kind != "governance" or not step.pause_events:
        return None
    governance = step.first
    payload = _payload(governance)
    if payload.get("decision") != "veto" or not payload.get("enforced"):
        return None
    override = next((e for e in step.events[1:] if e.get("phase") == "governance"), None)
    checkpoint = next((_payload(e).get("checkpoint_id") for e in step.events if _payload(e).get("checkpoint_id")), None)
    recorded = None
    if checkpoint:
        try:
            recorded = read_veto_decision(run_dir, str(checkpoint))
        except (NoesisNbError, OSError, ValueError):
            recorded = None
    if recorded is not None:
        return governance, {
            "status": "approved" if recorded.get("decision") == "override" else "rejected",
            "approver_id": recorded.get("approver_id"),
            "decided_at": recorded.get("decided_at"),
            "reason": recorded.get("reason"),
        }
    if override is not None:
        who = _payload(override).get("approver_id")
        return governance, {"status": "approved", "approver_id": who, "decided_at": override.get("timestamp"), "reason": None}
    return governance, None
