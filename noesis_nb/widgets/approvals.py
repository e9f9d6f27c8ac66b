"""Approval cards: one per tool draft (Approve / Reject) and one for a paused veto (Override / Uphold).

A card only forwards the click to its source (``approve`` / ``reject``), which persists the
decision before the episode continues. Both buttons are disabled before the call, so a double
click makes one decision. Once decided — here, in code, by a magic, in another kernel — the card
says who decided, when and why, and its buttons go away. A click on a card that was behind (the
draft was decided elsewhere) does not decide again: it shows the decision that stands. After a click the
keyboard focus goes to the next draft's Approve, else to the decided card (``focus.py``), never to the page's body.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as w

from .._envvars import approver_id_from_env
from ..runtime.gate import DecisionStands
from ..runtime.steer import check_free_text
from ..secrets import shown
from .cards import decision_html, decision_words, pending_html, veto_decision_html, veto_html
from .focus import FocusKeeper
from .keyguard import INVALID_CLASS
from .render import as_label, esc, refusal_html, short

__all__ = ["ApprovalCard", "VetoCard", "ApprovalsPanel", "CardFocus", "as_decision", "FOLDER_GONE"]

FOLDER_GONE = "folder gone"  # what closes a card whose run's folder was removed or moved away (not an ending)


def as_decision(decision: Any) -> dict[str, Any]:
    if isinstance(decision, Mapping):
        return dict(decision)
    fields = ("draft_id", "status", "approver_id", "decided_at", "reason", "created")
    return {k: getattr(decision, k, None) for k in fields}


class _Card:
    """Buttons, a reason and a status line; subclasses say what the buttons are and what the body shows."""

    labels = ("Approve", "Reject")
    tooltips = ("approve", "reject")
    kind = "draft"
    ended: str | None = None  # how its run ended before anyone decided (or FOLDER_GONE): set by close_undecided

    def __init__(
        self,
        source: Any,
        *,
        approver_id: str | None,
        on_decided: Callable[[], None] | None,
        on_clicked: Callable[[_Card, bool], None] | None = None,
    ):
        self.source, self.approver_id = source, approver_id_from_env(approver_id)
        self.decision: dict[str, Any] | None = None
        self._on_decided, self._on_clicked = on_decided, on_clicked
        self.body = w.HTML(self.body_html())
        # a placeholder is no name to a screen reader (nor is a tooltip beside ipywidgets' empty label): a description,
        # which the stylesheet hides from the eye only
        self.reason = w.Text(
            description="reason for the decision", placeholder="reason (optional)", layout=w.Layout(width="260px")
        )
        self.reason.add_class("nnb-named")
        self.reason_refused = False  # the last decision failed on its reason: the focus goes to the box to correct it
        self.approve_button = self._button(0, "nnb-yes", "check")
        self.reject_button = self._button(1, "nnb-no", "times")
        self.status = w.HTML("")
        self.approve_button.on_click(lambda _b: self._clicked(True))
        self.reject_button.on_click(lambda _b: self._clicked(False))
        # narrow (a side panel, half a comparison): the reason goes under the buttons, which keep their labels
        self.reason.layout.flex = "0 1 auto"
        self.controls = w.HBox([self.approve_button, self.reject_button, self.reason], layout=w.Layout(flex_flow="row wrap"))
        # where the focus goes once the card is decided: focusable from the kernel, not by Tab (tabindex -1), read by a
        # screen reader, the ring drawn round the card; a Label, as an HTML widget's focus() goes to its content
        self.outcome = w.Label(tabbable=False)
        self.outcome.add_class("nnb-outcome")
        self.box = w.VBox([self.body, self.controls, self.outcome, self.status])
        self.box.add_class("nnb-card")
        if self.kind == "veto":
            self.box.add_class("nnb-veto-card")

    def _button(self, i: int, cls: str, icon: str) -> w.Button:
        # the tooltip is sent and shown as it is: the id read from a draft file, redacted and nothing hidden, as the card shows it
        tip = f"{self.tooltips[i]} {short(self.target(), 200, exact=True)}"
        button = w.Button(description=self.labels[i], icon=icon, tooltip=tip)
        button.layout.flex = "0 0 auto"
        button.add_class("nnb-btn")
        button.add_class(cls)
        return button

    def target(self) -> str:
        return ""

    def body_html(self) -> str:
        raise NotImplementedError

    def call(self, approve: bool, reason: str | None) -> Any:
        raise NotImplementedError

    @property
    def decided(self) -> bool:
        return self.decision is not None

    @property
    def waiting(self) -> bool:
        """Undecided with its buttons shown (a run that ended, or whose folder went, closes its cards undecided)."""
        return self.decision is None and self.controls.layout.display != "none"

    def _clicked(self, approve: bool) -> None:
        """A click on Approve or Reject (or Enter or Space on it): decide, then say where the focus goes."""
        self.decide(approve)
        if self._on_clicked is not None:
            self._on_clicked(self, approve)

    def decide(self, approve: bool, reason: str | None = None) -> None:
        """What a click does: disable both buttons, persist through the source, show the decision that stands.

        ``reason``: given by a caller deciding many cards at once (an inbox), else the card's own field."""
        if self.decided or self.approve_button.disabled:
            return
        self._set_enabled(False)
        own = reason is None  # the card's own box holds the reason (an inbox deciding many gives one of its own)
        reason = (reason if reason is not None else self.reason.value).strip() or None
        self._mark_reason(None)
        try:
            if reason is not None and own:  # the rule every decision's reason is held to, said on the box it is typed in
                check_free_text(reason, "reason")
        except Exception as exc:
            self._mark_reason(str(exc))
            self._refused(approve, exc)
            return
        try:
            with warnings.catch_warnings():  # the card itself says "already approved …; nothing changed"
                warnings.simplefilter("ignore", DecisionStands)
                decision = as_decision(self.call(approve, reason))
        except Exception as exc:
            self._refused(approve, exc)
            return
        already = decision.get("created") is False
        if self.decision is None:
            self.mark_decided(decision, already=already)
        elif already:  # a redraw during the call showed the standing decision first: still say the click changed nothing
            self._say_already()
        if self._on_decided is not None:
            self._on_decided()

    def _refused(self, approve: bool, exc: Exception) -> None:
        """The decision was refused: said at once to a screen reader too (a live region), the buttons enabled again."""
        verb = self.labels[0 if approve else 1].lower()
        self.status.value = refusal_html(f"could not {verb}: {esc(shown(str(exc)))}")
        self._set_enabled(True)

    def _mark_reason(self, problem: str | None) -> None:
        """Name the reason box's problem in its accessible name (ipywidgets sets no ``aria-invalid``) and mark it."""
        self.reason_refused = problem is not None
        name = "reason for the decision"
        self.reason.description = name if problem is None else short(f"{name}, not accepted: {shown(problem)}", 300)
        if problem is None:
            self.reason.remove_class(INVALID_CLASS)
        else:
            self.reason.add_class(INVALID_CLASS)  # the guard says it: aria-invalid, described by the refusal

    def mark_decided(self, decision: Mapping[str, Any], *, already: bool = False) -> None:
        """Show who decided and when (also for decisions made elsewhere: code, a magic, another kernel)."""
        if self.decision is not None:
            return
        self.decision = dict(decision)
        self._set_enabled(False)
        with self.box.hold_sync():
            self.controls.layout.display = "none"
            self.body.value = self.body_html()
            self.outcome.value = as_label(self.outcome_text())
            self.box.add_class("nnb-decided")
            if self.decision.get("status") != "approved":
                self.box.add_class("nnb-no")
            if already:  # this card was behind: the click did not decide, the decision that stands is shown
                self._say_already()

    def outcome_text(self) -> str:
        """Plain text of the decision, what a screen reader reads where the focus goes once the card is decided."""
        return decision_words(self.decision or {})

    def _say_already(self) -> None:
        self.status.value = f'<span class="nnb-muted">{self.already_html()} (this view was behind; nothing changed)</span>'

    def already_html(self) -> str:
        return decision_html(self.decision or {}, already=True)

    def close_undecided(self, status: str) -> None:
        """The run ended (e.g. Stop) before anyone decided, or its folder is gone (``FOLDER_GONE``): nothing to click."""
        if self.decision is None and self.controls.layout.display != "none":
            self._set_enabled(False)
            self.controls.layout.display = "none"
            why = "the run's folder is gone" if status == FOLDER_GONE else f"the run ended {status}"
            self.ended = status
            with self.box.hold_sync():  # the heading no longer says it waits for a decision
                self.body.value = self.body_html()
                self.outcome.value = f"no decision: {why}"
                self.box.add_class("nnb-undecided")
                self.status.value = f'<span class="nnb-muted">no decision: {esc(why)}</span>'

    def _set_enabled(self, enabled: bool) -> None:
        with self.approve_button.hold_sync(), self.reject_button.hold_sync():
            self.approve_button.disabled = not enabled
            self.reject_button.disabled = not enabled


class ApprovalCard(_Card):
    """A pending tool draft: what it asks (tool, effect, risk, command, fingerprint) and Approve / Reject."""

    def __init__(
        self,
        source: Any,
        pending: Any,
        *,
        approver_id: str | None = None,
        on_decided: Callable[[], None] | None = None,
        on_clicked: Callable[[_Card, bool], None] | None = None,
    ):
        self.pending = pending
        self.draft_id: str = pending.draft_id
        super().__init__(source, approver_id=approver_id, on_decided=on_decided, on_clicked=on_clicked)

    def target(self) -> str:
        return self.draft_id

    def body_html(self) -> str:
        return pending_html(self.pending, getattr(self, "decision", None), self.ended)

    def outcome_text(self) -> str:
        return f"{short(self.pending.tool, 80, exact=True)} {super().outcome_text()}"

    def call(self, approve: bool, reason: str | None) -> Any:
        if approve:
            return self.source.approve(self.draft_id, approver_id=self.approver_id, reason=reason)
        return self.source.reject(self.draft_id, reason=reason, approver_id=self.approver_id)


class VetoCard(_Card):
    """A run paused by an enforced governance veto: Override (the adapter runs) or Uphold (the run ends vetoed)."""

    labels = ("Override", "Uphold")
    tooltips = ("override the governance veto of", "uphold the governance veto of")
    kind = "veto"

    def __init__(self, source: Any, governance: Mapping[str, Any] | None, **kwargs: Any):
        self.governance = governance
        super().__init__(source, **kwargs)

    def target(self) -> str:
        return str(self.source.episode_id)

    def body_html(self) -> str:
        return veto_html(self.governance, getattr(self, "decision", None), self.ended)

    def already_html(self) -> str:
        return veto_decision_html(self.decision or {}, already=True)

    def outcome_text(self) -> str:
        word = "overridden" if (self.decision or {}).get("status") == "approved" else "upheld"
        return f"governance veto {word}: {super().outcome_text()}"

    def call(self, approve: bool, reason: str | None) -> Any:
        if approve:  # with no draft pending, approve/reject decide the paused veto
            return self.source.approve(None, approver_id=self.approver_id, reason=reason)
        return self.source.reject(None, reason=reason, approver_id=self.approver_id)


class CardFocus(FocusKeeper):
    """Where the focus goes after a click on one of a list of cards (a view's, or an inbox's rows), in their order."""

    def clicked(self, cards: Sequence[_Card], card: _Card, approve: bool) -> None:
        """After a click on ``card``: the focus goes to its reason box if the reason was refused, to the button pressed
        if the decision failed otherwise (the card says why),
        else to the Approve of the next card waiting, else to this card's outcome line, which says the decision."""
        if card.waiting and card.reason_refused:  # its reason was refused: to the box, to correct it
            self.move(card.reason)
        elif card.waiting:
            self.move(card.approve_button if approve else card.reject_button)
        else:
            self.move(self.after(cards, card))

    def keep(self, cards: Sequence[_Card]) -> None:
        """The focus was sent to a card's button and that card was decided elsewhere or closed: move it on."""
        target = self.target
        for card in cards:
            if target in (card.approve_button, card.reject_button) and not card.waiting:
                self.follow(self.after(cards, card))
                return

    @staticmethod
    def after(cards: Sequence[_Card], card: _Card) -> Any:
        """The Approve of the first card waiting after ``card`` (then before it), else ``card``'s outcome line."""
        cards = list(cards)
        at = cards.index(card) if card in cards else 0
        waiting = next((c for c in cards[at + 1 :] + cards[:at] if c.waiting), None)
        return waiting.approve_button if waiting is not None else card.outcome


class ApprovalsPanel:
    """Cards for every draft seen so far and for a paused veto; decisions made anywhere update them."""

    def __init__(self, source: Any, *, approver_id: str | None = None, on_decided: Callable[[], None] | None = None):
        self.source, self.approver_id, self._on_decided = source, approver_id_from_env(approver_id), on_decided
        self.cards: dict[str, _Card] = {}
        self.box = w.VBox([])
        self.focus = CardFocus()

    def sync(
        self,
        pending: list[Any],
        decisions: list[Mapping[str, Any]],
        *,
        ended: str | None = None,
        veto: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] | None = None,
    ) -> None:
        """Add cards for new drafts (and a veto pause), mark decided ones; once the run ended, undecided cards close.

        ``veto``: (the governance event, its decision or None) while the run is or was paused on a veto."""
        added = False
        for p in pending:
            if p.draft_id not in self.cards:
                self.cards[p.draft_id] = ApprovalCard(
                    self.source, p, approver_id=self.approver_id, on_decided=self._on_decided, on_clicked=self._clicked
                )
                added = True
        for d in decisions:
            card = self.cards.get(str(d.get("draft_id")))
            if card is not None:
                card.mark_decided(d)
        if veto is not None:
            governance, decision = veto
            key = "veto:" + str((governance or {}).get("id") or "")
            card = self.cards.get(key)
            if card is None and decision is None:
                card = self.cards[key] = VetoCard(
                    self.source, governance, approver_id=self.approver_id, on_decided=self._on_decided, on_clicked=self._clicked
                )
                added = True
            if card is not None and decision is not None:
                card.mark_decided(decision)
        if ended:
            for card in self.cards.values():
                card.close_undecided(ended)
        if added:
            self.box.children = tuple(c.box for c in self.cards.values())
        self._keep_focus()

    def _clicked(self, card: _Card, approve: bool) -> None:
        self.focus.clicked(list(self.cards.values()), card, approve)

    def _keep_focus(self) -> None:
        self.focus.keep(list(self.cards.values()))

    def rebind(self, source: Any) -> None:
        self.source = source
        for card in self.cards.values():
            card.source = source

    def card(self, draft_id: str | None = None) -> Any:
        if draft_id is None:
            return next(reversed(self.cards.values()))
        return self.cards[draft_id]

    def veto_card(self) -> VetoCard | None:
        return next((c for c in self.cards.values() if isinstance(c, VetoCard)), None)
