"""What the inbox's selection and its Python twin do: tick rows, ask "Approve 3 drafts?", then decide.

Every decision is made by the row itself (``row.decide``, what its own button does), so a selection,
a button and ``inbox.approve(...)`` in a cell all go through the run's gate the same way.
"""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as w

from ..errors import InvalidOptionError
from ..runtime.steer import check_free_text
from ..secrets.quoted import quoted
from .cards import command_html
from .inboxrows import DraftRow, ResumeRow, VetoRow
from .keyguard import INVALID_CLASS
from .render import esc, label, refusal_html, short

__all__ = ["Row", "Selection", "asked_html", "count_words", "named_rows"]

Row = DraftRow | VetoRow

_REASON_SHOWN = 200  # characters of the typed reason the question repeats
_NAMED = 3  # rows the question names by tool, draft and run; the rest are counted ("and 4 more")
_WHAT_TO_PASS = "pass items from inbox.pending, their keys, draft ids, or 'all'"


def named_rows(rows: list[Row]) -> str:
    """What a question asks about, by name: ``fs.append in ep_a, the veto in ep_b and 2 more`` (HTML, each name as
    every name read from a run is shown)."""
    names = []
    for row in rows[:_NAMED]:
        item = row.item
        what = label(item.pending.tool, 60) if item.pending is not None else "the veto"
        names.append(f"{what} in {label(item.episode_id, 80)}")
    more = len(rows) - len(names)
    return ", ".join(names) + (f" and {more:,} more" if more > 0 else "")


def asked_html(rows: list[Row]) -> str:
    """What each row asked about runs, in full, for the question before several are decided at once: a draft's
    whole command (as its card shows it: wrapped, escaped, secrets removed, every hidden character shown), a veto's
    rule and message. A row shows its command cut to one line; the question is where it is read before deciding."""
    items = []
    for row in rows:
        item = row.item
        p = item.pending
        if p is not None:
            head = f"<b>{label(p.tool)}</b> in {label(item.episode_id, 80)} · {label(p.effect_kind)} · risk {label(p.risk_tier)}"
            items.append(f"<li>{head}<dl>{command_html(p)}</dl></li>")
        else:
            payload = (item.governance or {}).get("payload")
            payload = payload if isinstance(payload, dict) else {}
            rule, message = label(payload.get("rule_id") or "?", 80), esc(short(payload.get("message") or "", 600))
            items.append(f"<li><b>the veto</b> in {label(item.episode_id, 80)}: {rule} {message}</li>")
    return f'<ol class="nnb-ib-asked">{"".join(items)}</ol>'


def count_words(rows: list[Row]) -> str:
    """``3 drafts``, ``1 veto``, ``2 drafts and 1 veto``."""
    drafts = sum(1 for r in rows if r.item.kind == "draft")
    vetoes = len(rows) - drafts
    parts = [f"{drafts} draft{'s' * (drafts != 1)}"] if drafts else []
    if vetoes:
        parts.append(f"{vetoes} veto{'es' * (vetoes != 1)}")
    return " and ".join(parts) or "nothing"


class Selection:
    """A mixin of :class:`~noesis_nb.widgets.InboxView`: the selection, its confirmation, and approve/reject in code."""

    # provided by InboxView
    rows: dict[str, Row]
    limit: int
    message: Any
    question: Any
    reason: Any
    reason_refusal: Any  # the toolbar's line saying why the shared reason was refused
    confirm_box: Any
    confirm_button: Any
    cancel_button: Any
    approve_selected: Any
    reject_selected: Any
    _lock: threading.RLock
    _bulk: bool
    _confirming: tuple[bool, list[str]] | None
    _summary = ""  # what the last decision of several said (plain text)
    _resume_rows: dict[str, ResumeRow]
    decided: Any  # the rows decided, newest last (a bounded deque)
    focus: Any  # the inbox's CardFocus: where the keyboard focus goes after a press
    pressed: Any  # the inbox's PressedLine: what the last press did, where the focus goes after it

    def refresh(self) -> None:
        raise NotImplementedError

    def selected(self) -> list[Row]:
        with self._lock:
            return [r for r in self.rows.values() if r.selected]

    def tick_all(self) -> None:
        """Select every row shown (the first ``rows``)."""
        for row in list(self.rows.values())[: self.limit]:
            row.check.value = True

    def ask(self, approve: bool) -> None:
        """Approve / Reject selected…: ask to confirm, naming how many (nothing is decided yet)."""
        chosen = self.selected()
        if not chosen:
            self.message.value = '<span class="nnb-muted">tick the rows to decide first (the box at the left of each)</span>'
            return
        self._confirming = (approve, [r.key for r in chosen])
        self._word_question(approve, chosen, [])
        self.message.value = ""
        self.confirm_box.layout.display = None
        self.approve_selected.disabled = self.reject_selected.disabled = True
        self.focus.move(self.confirm_button)  # the button pressed is disabled: the focus would fall to the page's body

    def _word_question(self, approve: bool, chosen: list[Row], gone: list[str]) -> None:
        """``Approve 2 drafts?`` for what still waits of the rows asked about (``gone``: what became of the others)."""
        verb = "Approve" if approve else "Reject"
        reason = self.reason.value.strip()
        # as every view shows text: secrets removed, one bounded line (a pasted log or token is not echoed whole)
        tail = f" — reason: {esc(short(reason, _REASON_SHOWN))}" if reason else ""
        since = f' <span class="nnb-muted">(decided since, on its own row or elsewhere: {esc(", ".join(gone))})</span>'
        named = f' <span class="nnb-ib-named">{named_rows(chosen)}</span>'
        question = f"<b>{verb} {count_words(chosen)}?</b>{named}{tail}" + (since if gone else "")
        if question != self.question.value:
            self.question.value = question
        listing = asked_html(chosen)
        if listing != self.asked.value:
            self.asked.value = listing
        label = f"Confirm: {verb.lower()} {len(chosen)}"
        if label != self.confirm_button.description:
            self.confirm_button.description = label

    @property
    def asked(self) -> Any:
        """The list under the question of what each row asked about runs, whole (:func:`asked_html`), above Confirm:
        in the question's box, so it shows and hides with it."""
        listing: Any = getattr(self, "_asked_list", None)
        if listing is None:
            listing = self._asked_list = w.HTML(layout=w.Layout(flex="1 1 100%", min_width="0"))
            listing.add_class("nnb-ib-asked-box")
            first, *rest = self.confirm_box.children
            self.confirm_box.children = (first, listing, *rest)
        return listing

    def _asked_about(self) -> tuple[list[Row], list[str]]:
        """Of the rows the open question names: those still waiting, and what became of each of the others."""
        assert self._confirming is not None
        ended = {r.key: r for r in self.decided}
        left, gone = [], []
        for key in self._confirming[1]:
            row = self.rows.get(key)
            if row is not None and row.decision is None:
                left.append(row)
                continue
            row = row or ended.get(key)
            status = (row.decision or {}).get("status") if row is not None and row.decision else None
            pending = row.item.pending if row is not None else None
            name = pending.tool if pending is not None else "the veto" if row is not None else "a row"
            gone.append(f"{short(name, 60)} {status if status else 'no longer waiting'}")
        return left, gone

    def sync_question(self) -> None:
        """Keep the open question true: a row it names that was decided meanwhile (its own button, another view, a
        cell) leaves its count; with none left, the question closes and says so."""
        if self._confirming is None:
            return
        left, gone = self._asked_about()
        if left:
            self._word_question(self._confirming[0], left, gone)
            return
        asked = self._asked_with()
        self._close_question()
        if self.focus.target in (self.confirm_button, self.cancel_button):  # they hide: back to the button that asked
            if self.rows:
                self.focus.follow(asked)
            else:
                self.focus.release()
        self.message.value = (
            '<span class="nnb-muted" role="status">nothing left to confirm: every row asked about was decided since '
            f"({esc(', '.join(gone))})</span>"
        )

    def confirm(self) -> list[dict[str, Any]]:
        """Confirm: decide the rows named in the question (only those, even if the selection changed since)."""
        if self._confirming is None:
            return []
        approve = self._confirming[0]
        reason = self.reason.value.strip() or None
        if not self._reason_taken(reason):  # nothing decided: the question stays, the focus goes to the box to correct it
            self.focus.move(self.reason)
            return []
        with self._lock:
            rows, gone = self._asked_about()
        self._close_question()
        decisions = self._decide(rows, approve, reason, since=gone)
        # the focus goes to the line saying what the confirmation did (the question and, once nothing waits, the
        # toolbar hide): the line says it, read out as it takes the focus, so the inbox's message says it no more
        self.pressed.say(self._summary)
        self.message.value = ""
        self.focus.move(self.pressed.line)
        return decisions

    def _reason_taken(self, reason: str | None) -> bool:
        """Whether the shared reason keeps the rule of a decision's reason (``check_free_text``), as a card's own box is
        held to before anything is decided; a refused one marks the box (the guard says it: ``aria-invalid``, described
        by the refusal under it) until a reason is taken."""
        try:
            if reason is not None:
                check_free_text(reason, "reason")
        except InvalidOptionError as exc:
            self.reason_refusal.value = refusal_html(f"nothing decided: {esc(short(str(exc), 300))}")
            self.reason.add_class(INVALID_CLASS)
            return False
        self.reason_refusal.value = ""
        self.reason.remove_class(INVALID_CLASS)
        return True

    def cancel(self) -> None:
        """Cancel: nothing is decided; the focus goes back to the button that asked."""
        asked = self._asked_with()
        self._close_question()
        self.message.value = '<span class="nnb-muted">nothing decided</span>'
        if asked is not None:
            self.focus.move(asked)

    def _asked_with(self) -> Any:
        """The toolbar button that opened the question (None when none is open)."""
        if self._confirming is None:
            return None
        return self.approve_selected if self._confirming[0] else self.reject_selected

    def _close_question(self) -> None:
        self._confirming = None
        self.confirm_box.layout.display = "none"
        self.approve_selected.disabled = self.reject_selected.disabled = False

    def _decide(self, rows: list[Row], approve: bool, reason: str | None, since: list[str] | None = None) -> list[dict[str, Any]]:
        """Decide ``rows``; the message says how many, and what became of the rows asked about decided ``since``."""
        decisions, failed = [], 0
        self._bulk = True
        try:
            for row in rows:
                row.decide(approve, reason=reason, announce=False)  # what its own button does; the summary is read out
                if row.decision is None:
                    failed += 1
                else:
                    decisions.append(row.decision)
        finally:
            self._bulk = False
        verb = "approved" if approve else "rejected"
        note = f" · {failed} could not be decided (see the row)" if failed else ""
        note += f" · decided before the confirmation: {', '.join(since)}" if since else ""
        drafts = f"{len(decisions):,} draft{'' if len(decisions) == 1 else 's'}"
        self._summary = f"{verb} {drafts}{note}"
        self.message.value = f'<span class="nnb-muted" role="status">{esc(self._summary)}</span>'
        self.refresh()
        return decisions

    def approve(self, items: Any = None, *, reason: str | None = None) -> list[dict[str, Any]]:
        """Approve ``items`` (rows, items or keys; ``"all"``; None: the ticked rows) — the Python twin of the buttons."""
        return self._decide(self._rows_of(items), True, reason)

    def reject(self, items: Any = None, *, reason: str | None = None) -> list[dict[str, Any]]:
        """Reject ``items`` (as for :meth:`approve`); the adapters see ``ToolRejected`` with the reason."""
        return self._decide(self._rows_of(items), False, reason)

    def resume_decided(self) -> int:
        """Resume every run on disk whose decisions are all made (each as its Resume button would); how many."""
        rows = list(self._resume_rows.values())
        for row in rows:
            row.resume()
        return len(rows)

    def _key_of(self, ref: Any) -> Any:
        """A row's key from its key or its draft id (as ``handle.pending`` and ``approve_draft`` name drafts)."""
        if not isinstance(ref, str):
            raise InvalidOptionError(
                f"{quoted(ref, 80)} names no draft; pass items from inbox.pending, their keys, draft ids, or 'all'"
            )
        if ref in self.rows:
            return ref
        drafts = [key for key, row in self.rows.items() if row.item.draft_id == ref]
        return drafts[0] if len(drafts) == 1 else ref

    def _rows_of(self, items: Any) -> list[Row]:
        self.refresh()
        with self._lock:
            if items is None:
                return [r for r in self.rows.values() if r.selected]
            if items == "all":
                return [r for r in self.rows.values() if r.decision is None]
            if isinstance(items, str) or hasattr(items, "key"):
                items = [items]  # one key, draft id, item or row
            elif not hasattr(items, "__iter__") or isinstance(items, (dict, bytes)):
                raise InvalidOptionError(f"{quoted(items, 80)} names no draft; {_WHAT_TO_PASS}")
            keys = [self._key_of(getattr(i, "key", i)) for i in items]
            unknown = [k for k in keys if k not in self.rows]
            if unknown:
                raise InvalidOptionError(
                    f"{quoted(unknown[0])} is not waiting in this inbox (decided, or never here); {_WHAT_TO_PASS}"
                )
            return [self.rows[k] for k in keys]
