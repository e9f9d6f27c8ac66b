"""What a person owes a run, one item each: a pending tool draft or a veto pause, with the run's source.

:func:`source_for` gives the source a decision goes through — the run's live handle in this process,
else the one :class:`DiskRun` of its directory that every view and inbox here shares — so a decision
made in an inbox and one made on the run's own card are the same decision, seen by both at once.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import NoesisNbError
from ..store.vocab import TERMINAL_STATUSES
from ..tools import ApprovalDecisionRepository
from .diskrun import DiskRun
from .gate import PendingApproval
from .position import last_pause, payload_of
from .registry import live_handles
from .vetoes import read_veto_decision

__all__ = ["InboxItem", "source_for", "items_of", "decision_of"]

_SHARED: weakref.WeakValueDictionary[Path, DiskRun] = weakref.WeakValueDictionary()


def source_for(run_dir: str | os.PathLike[str], *, refresh: bool = True) -> Any:
    """The live handle of this run in this process, else the one ``DiskRun`` of its directory (shared by
    every view and inbox here; ``refresh``: read it again when it already existed)."""
    run_dir = Path(run_dir)
    live = live_handles().get(run_dir.name)
    if live is not None and Path(live.run_dir).resolve() == run_dir.resolve():
        return live
    key = _shared_key(run_dir)
    disk = _SHARED.get(key)
    if disk is None:
        disk = _SHARED[key] = DiskRun(run_dir)
    elif refresh:
        disk.refresh()
    return disk


def _shared_key(run_dir: Path) -> Path:
    """Where a run is, for sharing its ``DiskRun``: its real path; but a link to a run keeps its own key. A
    ``DiskRun`` made through a link refuses the run (it would write through it): shared under the real path,
    that refusal hid the real run's drafts from every view and inbox of this process that looked after it."""
    if run_dir.is_symlink():
        return Path(os.path.abspath(run_dir))
    return run_dir.resolve()


def _payload(event: Mapping[str, Any]) -> Mapping[str, Any]:
    payload = event.get("payload")
    return payload if isinstance(payload, Mapping) else {}


@dataclass(frozen=True, eq=False)
class InboxItem:
    """One decision a person owes a run: a tool draft (``pending``) or, when ``pending`` is None, a veto pause."""

    source: Any
    pending: PendingApproval | None
    governance: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def kind(self) -> str:
        return "draft" if self.pending is not None else "veto"

    @property
    def episode_id(self) -> str:
        return str(self.source.episode_id)

    @property
    def draft_id(self) -> str | None:
        return self.pending.draft_id if self.pending is not None else None

    @property
    def key(self) -> str:
        if self.pending is not None:
            return f"{self.episode_id}/{self.pending.draft_id}"
        return f"{self.episode_id}/veto:{(self.governance or {}).get('id') or ''}"

    @property
    def task(self) -> str:
        return str(self.source.task or "")

    @property
    def asked_at(self) -> str:
        if self.pending is not None:
            return str(self.pending.requested_at or "")
        return str((self.governance or {}).get("timestamp") or "")


def items_of(source: Any) -> list[InboxItem]:
    """What ``source`` waits for: its pending drafts, else an undecided veto pause; nothing once it ended."""
    if source.status in TERMINAL_STATUSES:
        return []
    items = [InboxItem(source, p) for p in source.pending]
    if not items and source.paused_on_veto:
        decided = getattr(source, "veto_decision", None)
        if decided is None or decided() is None:
            governance = next(
                (e for e in reversed(source.events) if e.get("phase") == "governance" and _payload(e).get("decision") == "veto"),
                None,
            )
            items.append(InboxItem(source, None, governance))
    return items


def decision_of(item: InboxItem) -> dict[str, Any] | None:
    """How ``item`` was decided, wherever that happened (its source, else its run directory); None while undecided."""
    source = item.source
    try:
        if item.pending is not None:
            draft_id = item.pending.draft_id
            found = next((dict(d) for d in source.decisions if str(d.get("draft_id")) == draft_id), None)
            if found is not None:
                return found
            record = ApprovalDecisionRepository(source.run_dir).get(None, draft_id)
            if record is None:
                return None
            status = getattr(record.status, "value", record.status)
            fields = ("approver_id", "decided_at", "reason")
            return {"draft_id": draft_id, "status": str(status), **{k: getattr(record, k, None) for k in fields}}
        pause = last_pause(source.events)
        checkpoint = payload_of(pause.checkpoint_event).get("checkpoint_id") if pause and pause.checkpoint_event else None
        veto = read_veto_decision(source.run_dir, str(checkpoint)) if checkpoint else None
    except (OSError, ValueError, NoesisNbError):
        return None
    if veto is None:
        return None
    status = "approved" if veto.get("decision") == "override" else "rejected"
    return {"status": status, **{k: veto.get(k) for k in ("approver_id", "decided_at", "reason")}}
