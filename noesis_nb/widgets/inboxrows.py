"""Rows of the approvals inbox: one line per pending draft or veto, with a selection box.

A row *is* an approval card (:class:`ApprovalCard` / :class:`VetoCard`) with a shorter body, so a
click on it calls exactly what the run's own card calls — ``source.approve`` / ``source.reject``
on the live handle or the shared run on disk — and shows who decided and when the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as w

from ..runtime.inboxitems import InboxItem
from ..store.vocab import (
    TERMINAL_STATUSES,
    TOOL_EXECUTION_FAILED,
    TOOL_EXECUTION_OUTCOME_UNKNOWN,
    TOOL_EXECUTION_SUCCEEDED,
)
from .approvals import ApprovalCard, VetoCard
from .cards import command_html, decision_html, draft_tail, never_decided, veto_decision_html
from .render import dot_join, ending_word, esc, label, local_time, refusal_html, short

__all__ = ["item_html", "check_name", "DraftRow", "VetoRow", "make_row", "decided_words", "ResumeRow", "resume_said"]

_RISK_HUES = {"high": "red", "critical": "red", "medium": "orange"}


def _excerpt(item: InboxItem, limit: int = 160) -> str:
    """The payload in one line, secrets removed (``short`` redacts), not escaped: the row's glance at it, cut to one
    line by the stylesheet; the whole is in the row's disclosure (:func:`_asked_html`)."""
    p = item.pending
    if p is None:
        return ""
    if p.command_line:
        return "$ " + short(p.command_line, limit, exact=True)  # every invisible character shown, as on the card
    return short(p.redacted_payload or {}, limit, exact=True)


def _asked_html(p: Any) -> str:
    """``▸ what fs.sync asked, in full``: the whole command of a draft as its card shows it (wrapped, escaped, secrets
    removed, every hidden character shown), behind a ``<details>`` a keyboard reaches and a screen reader reads. A
    row's one line ends in "…" where the command is long, and a ``title`` tooltip reaches neither keyboard, touch nor
    screen reader: what a reviewer approves must be readable whole before Approve."""
    return (
        f'<details class="nnb-ib-ask"><summary>what {label(p.tool)} asked, in full</summary><dl>{command_html(p)}</dl></details>'
    )


def item_html(
    item: InboxItem, decision: Mapping[str, Any] | None = None, *, status: bool = False, ended: str | None = None
) -> str:
    """``ep_… task`` then ``‖ tool · effect · risk · payload`` (or the veto's rule), or how it was decided
    (``status``: as a ``role="status"`` a screen reader reads out, for a decision made on this row), or (``ended``)
    that its run ended before anyone decided."""
    using = str(getattr(item.source, "using", "") or "")
    task = esc(short(item.task, 90))
    head = dot_join([f'<b class="nnb-mono">{label(item.episode_id)}</b>', label(using, 80)]) + (
        f' <span class="nnb-muted">{task}</span>' if task else ""
    )
    p = item.pending
    asked = ""
    if p is not None:
        hue = _RISK_HUES.get(str(p.risk_tier), "grey")
        risk = label(p.risk_tier)
        excerpt = _excerpt(item)
        what = dot_join(  # only the fields the draft has: no separator before an empty one
            [
                f'<b class="nnb-c-orange">‖ {label(p.tool)}</b>',
                label(p.effect_kind),
                f'risk <b class="nnb-c-{hue}">{risk}</b>' if risk else "",
                f'<code class="nnb-ib-payload" title="{esc(_excerpt(item, 2000))}">{esc(excerpt)}</code>' if excerpt else "",
            ]
        )
        if decision is not None:
            what = f"<b>{label(p.tool)}</b> {decision_html(decision)}"
        elif ended:
            what = f'<b>{label(p.tool)}</b> <span class="nnb-muted">{esc(never_decided(ended))}</span>'
        asked = _asked_html(p)
    else:
        payload = (item.governance or {}).get("payload")
        payload = payload if isinstance(payload, Mapping) else {}
        rule, message = label(payload.get("rule_id") or "?", 80), esc(short(payload.get("message") or "", 140))
        what = dot_join(['<b class="nnb-c-red">⊘ governance veto</b>', rule, message])
        if decision is not None:
            what = f"<b>governance veto</b> {veto_decision_html(decision)}"
        elif ended:
            what = f'<b>governance veto</b> <span class="nnb-muted">{esc(never_decided(ended))}</span>'
    if decision is not None and status:
        what = f'<span role="status">{what}</span>'
    return f'<div class="nnb-ib-line">{head}<br>{what}</div>{asked}'


def check_name(item: InboxItem) -> str:
    """The selection box's name: what it selects, in words (one line, redacted, nothing hidden): the tool and the
    run's task, when it was asked and the end of its id (``draft_tail``), so two drafts of one tool are told apart; the
    ids stay whole in the row's details
    (two ids of 30 characters each made every box's name a minute to listen to)."""
    task = short(item.task, 60, exact=True)
    of = f"of “{task}”" if task else f"of run {short(item.episode_id, 80, exact=True)}"
    p = item.pending
    if p is not None:
        asked = local_time(str(p.requested_at)) if p.requested_at else "?"
        return f"select the {short(p.tool, 80, exact=True)} draft {draft_tail(p.draft_id)} {of}, asked at {asked}"
    payload = (item.governance or {}).get("payload")
    rule = payload.get("rule_id") if isinstance(payload, Mapping) else None
    return f"select the veto {short(rule or '?', 80)} {of}"


class _Row:
    """What both rows add to a card: the item, a selection box, a compact body."""

    item: InboxItem
    box: Any
    body: Any
    reason: Any
    controls: Any
    outcome: Any
    status: Any
    decision: dict[str, Any] | None
    ended: str | None
    _said = False  # this row's own decision is being shown: read it out

    def _as_row(
        self,
        item: InboxItem,
        subject: Any,
        *,
        approver_id: str,
        on_decided: Callable[[], None] | None = None,
        on_clicked: Callable[[Any, bool], None] | None = None,
    ) -> None:
        """Build the card of ``subject`` (a draft or a veto) as a row of the inbox."""
        self.item = item
        card: Any = super()
        card.__init__(item.source, subject, approver_id=approver_id, on_decided=on_decided, on_clicked=on_clicked)
        self._with_checkbox()

    def _with_checkbox(self) -> None:
        """One line: the box, what is asked, then the card's buttons and reason (the status line under it)."""
        name = check_name(self.item)  # the box's name; the stylesheet hides it from the eye
        self.check = w.Checkbox(value=False, indent=False, description=name, layout=w.Layout(width="24px", flex="0 0 auto"))
        self.check.add_class("nnb-named")
        self.check.add_class("nnb-ib-check")
        # the text takes what the buttons leave, but never under 300px: in a narrow notebook they go under it
        self.body.layout.flex, self.body.layout.min_width, self.body.layout.overflow = "1 1 300px", "0", "hidden"
        self.reason.layout.width = "150px"
        self.controls.layout.flex = "0 0 auto"
        line = w.HBox([self.check, self.body, self.controls], layout=w.Layout(align_items="center", flex_flow="row wrap"))
        self.box.children = (line, self.outcome, self.status)  # the card's outcome line: where the focus goes once decided
        self.box.add_class("nnb-ib-row")

    on_click: Callable[[], None] | None = None  # the inbox's: a row's own decision is its last action (``announce``)

    def decide(self, approve: bool, reason: str | None = None, *, announce: bool = True) -> None:
        """The card's decision; ``announce=False`` when many rows are decided at once (their summary is read out)."""
        if announce and self.on_click is not None and self.decision is None:
            self.on_click()
        self._said = announce
        try:
            super().decide(approve, reason)  # type: ignore[misc]
        finally:
            self._said = False

    def mark_decided(self, decision: Mapping[str, Any], *, already: bool = False) -> None:
        super().mark_decided(decision, already=already)  # type: ignore[misc]
        self.check.layout.display = "none"

    def close_undecided(self, status: str) -> None:
        super().close_undecided(status)  # type: ignore[misc]
        self.check.layout.display = "none"

    @property
    def key(self) -> str:
        return self.item.key

    @property
    def selected(self) -> bool:
        return bool(self.check.value) and self.decision is None

    def body_html(self) -> str:
        return item_html(self.item, getattr(self, "decision", None), status=self._said, ended=self.ended)


class DraftRow(_Row, ApprovalCard):
    def __init__(self, item: InboxItem, **card: Any):
        self._as_row(item, item.pending, **card)


class VetoRow(_Row, VetoCard):
    def __init__(self, item: InboxItem, **card: Any):
        self._as_row(item, item.governance, **card)


def make_row(
    item: InboxItem,
    *,
    approver_id: str,
    on_decided: Callable[[], None] | None = None,
    on_click: Callable[[], None] | None = None,
    on_clicked: Callable[[Any, bool], None] | None = None,
) -> DraftRow | VetoRow:
    """A row for ``item``; ``on_click`` comes before a row's own decision, ``on_clicked`` after a click on its buttons."""
    kind = DraftRow if item.pending is not None else VetoRow
    row = kind(item, approver_id=approver_id, on_decided=on_decided, on_clicked=on_clicked)
    row.on_click = on_click
    return row


def decided_words(row: DraftRow | VetoRow) -> str:
    """What a row's own decision did, in a line (not escaped): ``rejected the notes.write draft of ep_…``."""
    decision = row.decision or {}
    status = str(decision.get("status") or "decided")
    run = short(row.item.episode_id, 80, exact=True)
    pending = row.item.pending
    if pending is None:
        what, status = f"the governance veto of {run}", ("overridden" if status == "approved" else "upheld")
    else:
        what = f"the {short(pending.tool, 60, exact=True)} draft of {run}"
    if decision.get("created") is False:
        return f"nothing changed: {what} was {status} already"
    return f"{({'overridden': 'overrode', 'upheld': 'upheld'}).get(status, status)} {what}"


class ResumeRow:
    """A run on disk whose every decision is made: Resume continues it, as its view's Resume does, and says what it
    did (``on_said``, with a line of HTML) once the resume has ended; ``on_pressed`` is told of each press (it moves
    the keyboard focus, as the press takes the row's button away)."""

    def __init__(
        self,
        source: Any,
        on_done: Callable[[], None] | None = None,
        on_said: Callable[[str], None] | None = None,
        on_pressed: Callable[[ResumeRow], None] | None = None,
    ):
        self.source, self._on_done, self._on_said, self._on_pressed = source, on_done, on_said, on_pressed
        self._unsubscribe: Callable[[], None] | None = None
        self._from = 0  # the run's events before this resume: the tools it ran are counted after them
        self.said = ""
        self.line = w.HTML(
            f'<span class="nnb-mono">{label(source.episode_id)}</span> <span class="nnb-muted">decided, paused on disk — '
            f"{esc(short(source.task or '', 80))}</span>"
        )
        self.button = w.Button(
            description="Resume",
            icon="play",
            tooltip=f"resume {short(source.episode_id, 200, exact=True)} now that it is decided",
        )
        self.button.add_class("nnb-btn")
        self.button.add_class("nnb-go")
        self.button.on_click(lambda _b: self.resume())
        self.box = w.HBox([self.button, self.line], layout=w.Layout(align_items="center"))

    def resume(self) -> None:
        """What the view's Resume does: ``source.resume()`` (a task on the loop; nothing twice)."""
        self.button.disabled = True
        self._from = len(getattr(self.source, "events", None) or ())
        try:
            self.source.resume()
        except Exception as exc:
            self.line.value = refusal_html(f"could not resume {esc(self.source.episode_id)}: {esc(short(str(exc), 200))}")
            self.button.disabled = False
            self._say(self.line.value)
        else:
            if getattr(self.source, "resuming", False):  # on the loop: said once its task has ended
                self._unsubscribe = self.source.on_change(self._changed)
            else:  # resumed synchronously (no loop), or nothing was left to resume
                self._say(resume_said(self.source, self._from))
        if self._on_done is not None:
            self._on_done()
        if self._on_pressed is not None:
            self._on_pressed(self)

    def _changed(self, _source: Any) -> None:
        if getattr(self.source, "resuming", False) or self._unsubscribe is None:
            return
        self._unsubscribe()
        self._unsubscribe = None
        self._say(resume_said(self.source, self._from))

    def _say(self, html: str) -> None:
        self.said = html
        if self._on_said is not None:
            self._on_said(html)


_RAN = frozenset({TOOL_EXECUTION_SUCCEEDED, TOOL_EXECUTION_FAILED, TOOL_EXECUTION_OUTCOME_UNKNOWN})


def resume_said(source: Any, since: int = 0) -> str:
    """What a resume of ``source`` did, as one escaped line: ``resumed run ep_…: ran 1 approved tool, sealed ok``, or
    its error (secrets removed)."""
    run = esc(short(source.episode_id, 80, exact=True))
    error = getattr(source, "last_error", None)
    if error:
        return refusal_html(f"could not resume run {run}: {esc(short(str(error), 600))}")
    events = list(getattr(source, "events", None) or ())[since:]
    names = [(e.get("payload") or {}).get("event_name") for e in events if isinstance(e.get("payload"), dict)]
    ran = sum(1 for n in names if n in _RAN)
    failed = sum(1 for n in names if n != TOOL_EXECUTION_SUCCEEDED and n in _RAN)
    if not events:  # another kernel or process resumed or sealed it first: nothing was written here
        now = label(source.status, 60)  # a status another program wrote is any text
        return f'<span class="nnb-muted" role="status">run {run} was not resumed here: it is {now} now</span>'
    tools = f"ran {ran} approved tool{'s' * (ran != 1)}" if ran else "ran no tool"
    tools += f" ({failed} failed)" if failed else ""
    status = str(source.status)
    if status == "paused":
        waiting = len(getattr(source, "pending", None) or ())
        end = f"paused again: {waiting} draft{'s' * (waiting != 1)} wait{'s' * (waiting == 1)}" if waiting else "paused again"
    elif status in TERMINAL_STATUSES:
        end = f"sealed {ending_word(status, list(getattr(source, 'events', None) or ()))}"
    else:  # a status another program wrote is any text
        end = f"now {short(status, 60, exact=True)}"
    hue = "nnb-c-red" if status in TERMINAL_STATUSES and status not in ("ok", "cancelled") else "nnb-muted"
    return f'<span class="{hue}" role="status">resumed run {run}: {esc(tools)}, {esc(end)}</span>'
