"""Approval cards: one per pending tool draft, with Approve / Reject and an optional reason.

A card only forwards the click to its source (``handle.approve`` / ``approve_draft``), which
persists the ``ToolApprovalDecision`` before the episode continues. Both buttons are disabled
before the call, so a double click makes one decision.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as w

from ..secrets import shown
from .render import decision_html, esc, pending_html

__all__ = ["ApprovalCard", "ApprovalsPanel"]


def _as_dict(decision: Any) -> dict[str, Any]:
    if isinstance(decision, Mapping):
        return dict(decision)
    return {k: getattr(decision, k, None) for k in ("draft_id", "status", "approver_id", "decided_at", "reason")}


class ApprovalCard:
    def __init__(self, source: Any, pending: Any, *, approver_id: str = "human", on_decided: Callable[[], None] | None = None):
        self.source, self.pending, self.approver_id = source, pending, approver_id
        self.draft_id: str = pending.draft_id
        self.decision: dict[str, Any] | None = None
        self._on_decided = on_decided
        self.body = w.HTML(pending_html(pending))
        self.reason = w.Text(placeholder="reason (optional)", layout=w.Layout(width="260px"))
        self.approve_button = w.Button(
            description="Approve", button_style="success", icon="check", tooltip=f"approve {self.draft_id}"
        )
        self.reject_button = w.Button(
            description="Reject", button_style="danger", icon="times", tooltip=f"reject {self.draft_id}"
        )
        self.status = w.HTML("")
        self.approve_button.on_click(lambda _b: self.decide(True))
        self.reject_button.on_click(lambda _b: self.decide(False))
        self.box = w.VBox(
            [self.body, w.HBox([self.approve_button, self.reject_button, self.reason]), self.status],
            layout=w.Layout(border="1px solid #d4a72c", padding="4px", margin="4px 0"),
        )

    @property
    def decided(self) -> bool:
        return self.decision is not None

    def decide(self, approve: bool) -> None:
        """What a click does: disable both buttons, persist through the source, show the outcome."""
        if self.decided or self.approve_button.disabled:
            return
        self._set_enabled(False)
        reason = self.reason.value.strip() or None
        try:
            if approve:
                decision = self.source.approve(self.draft_id, approver_id=self.approver_id, reason=reason)
            else:
                decision = self.source.reject(self.draft_id, reason=reason, approver_id=self.approver_id)
        except Exception as exc:
            self.status.value = (
                f'<span style="color:#cf222e">could not {"approve" if approve else "reject"}: {esc(shown(str(exc)))}</span>'
            )
            self._set_enabled(True)
            return
        self.mark_decided(_as_dict(decision))
        if self._on_decided is not None:
            self._on_decided()

    def mark_decided(self, decision: Mapping[str, Any]) -> None:
        """Show who decided and when (also for decisions made elsewhere: code, magic, another program)."""
        if self.decision is not None:
            return
        self.decision = dict(decision)
        self._set_enabled(False)
        self.reason.layout.display = "none"
        self.status.value = decision_html(self.decision)

    def close_undecided(self, status: str) -> None:
        """The episode ended (e.g. Stop) before anyone decided: nothing to click any more."""
        if self.decision is None and not self.approve_button.disabled:
            self._set_enabled(False)
            self.reason.layout.display = "none"
            self.status.value = f'<span style="color:#57606a">no decision: the episode ended {esc(status)}</span>'

    def _set_enabled(self, enabled: bool) -> None:
        with self.approve_button.hold_sync(), self.reject_button.hold_sync():
            self.approve_button.disabled = not enabled
            self.reject_button.disabled = not enabled


class ApprovalsPanel:
    """Cards for every draft seen so far; new pending drafts add a card, decisions update it."""

    def __init__(self, source: Any, *, approver_id: str = "human", on_decided: Callable[[], None] | None = None):
        self.source, self.approver_id, self._on_decided = source, approver_id, on_decided
        self.cards: dict[str, ApprovalCard] = {}
        self.box = w.VBox([])

    def sync(self, pending: list[Any], decisions: list[Mapping[str, Any]], *, ended: str | None = None) -> None:
        """Add cards for new drafts, mark decided ones; once the episode ended, undecided cards close."""
        added = False
        for p in pending:
            if p.draft_id not in self.cards:
                self.cards[p.draft_id] = ApprovalCard(self.source, p, approver_id=self.approver_id, on_decided=self._on_decided)
                added = True
        for d in decisions:
            card = self.cards.get(str(d.get("draft_id")))
            if card is not None:
                card.mark_decided(d)
        if ended:
            for card in self.cards.values():
                card.close_undecided(ended)
        if added:
            self.box.children = tuple(c.box for c in self.cards.values())

    def rebind(self, source: Any) -> None:
        self.source = source
        for card in self.cards.values():
            card.source = source

    def card(self, draft_id: str | None = None) -> ApprovalCard:
        if draft_id is None:
            return next(reversed(self.cards.values()))
        return self.cards[draft_id]
