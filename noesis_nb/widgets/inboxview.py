"""``InboxView``: every decision people owe the runs under a root (or a batch's episodes), in one place.

Each pending tool draft or veto pause is one row (episode, task, tool, effect, risk, payload);
Approve / Reject one, or tick several and Approve / Reject them after a confirmation that says how
many. A row is an approval card (``inboxrows.py``), so every decision goes through the run's own
gate and is on disk before anything continues; a live episode continues at once, a run paused on
disk is offered Resume (as its view offers it). The inbox follows the runs with a few ``stat``
calls every half second (``runtime/inbox.py``), so decisions made on a run's card, by a magic or
in another kernel leave the inbox within a second, and the inbox's own show on the cards at once.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import ipywidgets as w

from .._envvars import approver_id_from_env
from ..errors import InvalidOptionError
from ..runtime.inbox import PendingScan
from ..runtime.inboxitems import InboxItem, decision_of
from ..secrets import shown
from ..secrets.quoted import quoted
from ..store.vocab import TERMINAL_STATUSES
from .approvals import FOLDER_GONE, CardFocus
from .bundle import SnapshotOutput, css_widget
from .cellsync import keep_saved
from .coalesce import Coalescer
from .controls import PressedLine
from .inboxrows import ResumeRow, decided_words, item_html, make_row
from .inboxselect import Row, Selection, count_words
from .keyguard import REFUSAL_SCOPE_CLASS, key_guard
from .render import ending_word, esc, live_css, short
from .stale import stale_inbox_html
from .theme import ROOT_CLASS

__all__ = ["InboxView", "inbox"]


class InboxView(Selection, SnapshotOutput, w.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """Pending drafts and veto pauses of every paused run under ``root`` (or of ``episode_ids()``)."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        episode_ids: Callable[[], Iterable[str]] | None = None,
        approver_id: str | None = None,
        rows: int = 50,
        decided_rows: int = 10,
        interval: float = 0.1,
        poll_interval: float = 0.5,
        offer_resume: bool = True,
        key_guarded: bool = True,
        **kwargs: Any,
    ):
        approver_id = approver_id_from_env(approver_id)  # the caller's option before the root is looked at
        self.scan = PendingScan(root, episode_ids=episode_ids)
        self.approver_id, self.limit, self.poll_interval = approver_id, rows, poll_interval
        self.offer_resume = offer_resume  # False when something else continues decided runs (a batch does)
        self.rows: dict[str, Row] = {}  # pending, oldest first
        self.decided: deque[Row] = deque(maxlen=decided_rows)  # newest last
        self.decided_here = 0
        self.decided_total = 0  # rows ever moved to ``decided`` (it keeps the newest ``decided_rows``)
        self.redraws = 0
        self.displays: list[Any] = []
        self._done_keys: set[str] = set()
        self._resume_rows: dict[str, ResumeRow] = {}
        self._confirming: tuple[bool, list[str]] | None = None
        self._bulk = False  # deciding many rows: one refresh at the end
        self._rows_at_click: list[Row] = []  # the rows when a row's own decision came, in their order
        self.focus = CardFocus()  # where the keyboard focus goes after a click on a row
        self.pressed = PressedLine(self.focus)  # what a run's Resume did; the focus goes there after the press
        self._resuming: ResumeRow | None = None  # the row whose Resume was pressed, until its resume has ended
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Future[Any] | None = None
        self._coalescer = Coalescer(self.flush, lambda: self.loop, interval=interval)

        self.header = w.HTML()
        self.approve_selected = self._button("Approve selected…", "nnb-yes", "check", lambda: self.ask(True))
        self.reject_selected = self._button("Reject selected…", "nnb-no", "times", lambda: self.ask(False))
        self.select_all = self._button("Select all shown", "nnb-btn", "check-square-o", self.tick_all)
        self.reason = w.Text(
            description="reason for the selection",
            placeholder="reason (optional)",  # its name says what for; a long one was cut in a 320px view
            layout=w.Layout(width="260px"),
        )
        self.reason.add_class("nnb-named")  # its description names it for screen readers only
        # the question takes the room left and wraps; the buttons keep their labels whole and go under it when narrow
        self.question = w.HTML(layout=w.Layout(flex="1 1 240px", min_width="0"))
        self.confirm_button = self._button("Confirm", "nnb-go", "check", self.confirm)
        self.cancel_button = self._button("Cancel", "nnb-btn", "", self.cancel)
        for button in (self.confirm_button, self.cancel_button):
            button.layout.flex = "0 0 auto"
        self.confirm_box = w.HBox(
            [self.question, self.confirm_button, self.cancel_button],
            layout=w.Layout(display="none", align_items="center", flex_flow="row wrap"),
        )
        self.confirm_box.add_class("nnb-ib-confirm")
        self.message = w.HTML()
        self.problems = w.HTML()  # the files of followed runs that could not be read: a draft missing here is named
        self.pending_box = w.VBox([])
        self.more = w.HTML()
        self.resume_box = w.VBox([])
        self.decided_box = w.VBox([])
        self._decided_title = w.HTML('<div class="nnb-muted">decided, newest first</div>')
        # why the shared reason was refused, on a line of its own under it: the guard describes the box by it
        self.reason_refusal = w.HTML(layout=w.Layout(flex="1 1 100%", min_width="0"))
        self.toolbar = toolbar = w.HBox(
            [self.select_all, self.approve_selected, self.reject_selected, self.reason, self.reason_refusal],
            layout=w.Layout(flex_flow="row wrap"),
        )
        toolbar.add_class(REFUSAL_SCOPE_CLASS)
        stale = stale_inbox_html(self.scan.root) if episode_ids is None else ""  # a batch's says nothing of a root
        children = [css_widget(stale), self.header, self.problems, toolbar, self.confirm_box, self.pressed.line, self.message]
        children += [self.pending_box, self.more]
        children += [self.resume_box, self.decided_box]
        # Notebook 7's shortcuts kept out of the reason boxes (keyguard.py); a view holding the inbox (a batch's) has its own
        guard = key_guard() if key_guarded else None
        super().__init__(children if guard is None else [*children, guard], **kwargs)
        self.add_class(ROOT_CLASS)
        keep_saved(self)  # its rows are saved with a notebook executed headless (cellsync.py)
        self.add_class("noesis-nb-inbox")
        self.scan.poll()
        self.flush()
        self.follow()

    def _button(self, label: str, cls: str, icon: str, action: Callable[[], Any]) -> w.Button:
        button = w.Button(description=label, icon=icon, layout=w.Layout(width="auto"))
        button.add_class("nnb-btn")
        button.add_class(cls)
        button.on_click(lambda _b: action())
        return button

    # -- following the runs ---------------------------------------------------------------------
    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        loop = self._loop
        return loop if loop is not None and not loop.is_closed() else None

    def follow(self) -> bool:
        """Look at the runs every ``poll_interval`` from the running loop (idempotent); False without a loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        if self._task is None or self._task.done():
            self._loop = loop
            self._task = loop.create_task(self._follow(), name="noesis_nb:inbox")
        return True

    def stop_following(self) -> None:
        """Stop looking at the runs (e.g. a batch that has ended: nothing of it can wait any more)."""
        if self._task is not None:
            self._task.cancel()

    async def _follow(self) -> None:
        while not self.closed:
            await asyncio.sleep(self.poll_interval)
            if self.scan.poll():
                self.poke()

    def refresh(self) -> None:
        """Look at the runs now and redraw (what the polling does every half second)."""
        self.scan.poll()
        self.flush()

    def poke(self) -> None:
        """Ask for a redraw soon (coalesced: at most 10 a second). Safe from any thread."""
        self._coalescer.poke()

    @property
    def pending(self) -> list[InboxItem]:
        """What waits for a decision now (the runs are looked at first; oldest first)."""
        self.refresh()
        with self._lock:
            return [r.item for r in self.rows.values() if r.decision is None]

    # -- drawing -------------------------------------------------------------------------------
    def flush(self) -> None:
        if self._coalescer.closed:
            return
        with self._lock:
            items = self.scan.items
            live = {i.key for i in items}
            for item in items:
                if item.key not in self.rows and item.key not in self._done_keys:
                    self.rows[item.key] = make_row(
                        item,
                        approver_id=self.approver_id,
                        on_decided=functools.partial(self._row_decided, item.key),
                        on_click=self._row_decides,
                        on_clicked=self._row_clicked,
                    )
            for key, row in list(self.rows.items()):
                if row.decision is None and key not in live:
                    self._settle(row)
                if row.decision is not None or row.controls.layout.display == "none":
                    del self.rows[key]
                    self._done_keys.add(key)
                    self.decided.append(row)
                    self.decided_total += 1
            shown = list(self.rows.values())[: self.limit]
            if tuple(r.box for r in shown) != self.pending_box.children:
                self.pending_box.children = tuple(r.box for r in shown)
            hidden = len(self.rows) - len(shown)
            more = (
                f'<div class="nnb-muted">{hidden:,} more waiting, oldest first: decide these to see them</div>' if hidden else ""
            )
            if more != self.more.value:
                self.more.value = more
            self._sync_resume()
            boxes = tuple(r.box for r in reversed(self.decided))
            title = self._decided_title_html()
            if title != self._decided_title.value:
                self._decided_title.value = title
            if boxes:
                boxes = (self._decided_title, *boxes)
            if boxes != self.decided_box.children:
                self.decided_box.children = boxes
            header = self._header_html()
            if header != self.header.value:
                self.header.value = header
            problems = self._problems_html()
            if problems != self.problems.value:
                self.problems.value = problems
            self.sync_question()  # a row it asks about may have been decided meanwhile
            toolbar = None if self.rows else "none"  # selection tools only while something waits
            if self.toolbar.layout.display != toolbar:
                self.toolbar.layout.display = toolbar
            self.redraws += 1

    def _row_decided(self, key: str) -> None:
        """A row's button (or :meth:`_decide`) made a decision: count it and show what follows now; a row's own
        decision is the inbox's last action, so its line says it (a selection's says how many, once)."""
        self.decided_here += 1
        if not self._bulk:
            row = self.rows.get(key)
            if row is not None and row.decision is not None:  # not read out: the row's own line is (``role="status"``)
                self.message.value = f'<span class="nnb-muted">{esc(decided_words(row))}</span>'
            self.refresh()

    def _row_decides(self) -> None:
        """A row's own decision comes (its button): what the inbox said of an earlier action is no longer the last
        word, and the rows as they stand say which comes after it once it has left them (``_row_clicked``)."""
        if self.message.value:
            self.message.value = ""
        if self.pressed.line.layout.display != "none":  # what a confirmation or a Resume did, before this
            self.pressed.line.layout.display = "none"
            self.pressed.line.value = ""
        self._rows_at_click = list(self.rows.values())

    def _row_clicked(self, row: Row, approve: bool) -> None:
        """After a click on a row's button, as on the view's cards: the focus goes to the next row waiting, else to
        the row's outcome line, or back to the button pressed if the decision failed (never to the page's body)."""
        rows, self._rows_at_click = self._rows_at_click, []
        self.focus.clicked(rows if row in rows else list(self.rows.values()), row, approve)

    def _said_resume(self, html: str) -> None:
        """A Resume ended (here, or on the loop later): its line is the inbox's last word (``html`` is escaped)."""
        if html != self.message.value:
            self.message.value = html
        row, self._resuming = self._resuming, None
        if row is not None and not getattr(row.source, "resuming", False):  # the line with the focus says how it went
            self.pressed.say(_resume_ended_words(row))
        self.poke()

    def _resume_pressed(self, row: ResumeRow) -> None:
        """After a press of a run's Resume: the focus goes back to it if the resume was refused at once (the row
        stays; the line below says why), else to the line saying it resumes (the row leaves the list)."""
        if not row.button.disabled:
            self.pressed.pressed(row.button, None)
        elif getattr(row.source, "resuming", False):
            self._resuming = row
            self.pressed.pressed(row.button, f"resuming run {short(row.source.episode_id, 80, exact=True)}…")
        else:
            self.pressed.pressed(row.button, _resume_ended_words(row))

    def _settle(self, row: Row) -> None:
        """An item left the scan without a click here: show the decision made elsewhere, or that its run ended."""
        decision = decision_of(row.item)
        if decision is not None:
            row.mark_decided(decision)
        elif row.source.status in TERMINAL_STATUSES:  # said as its view says it ('rejected' for a rejected tool call)
            row.close_undecided(ending_word(row.source.status, getattr(row.source, "events", None) or ()))
        elif getattr(row.source, "gone", False):  # removed or moved away: the inbox's problems name the path
            row.close_undecided(FOLDER_GONE)

    def _sync_resume(self) -> None:
        ready = {s.episode_id: s for s in self.scan.resumable if not s.resuming} if self.offer_resume else {}
        for episode_id in list(self._resume_rows):
            if episode_id not in ready:
                self._resume_rows.pop(episode_id)
        for episode_id, source in ready.items():
            if episode_id not in self._resume_rows:
                self._resume_rows[episode_id] = ResumeRow(
                    source, on_done=self.refresh, on_said=self._said_resume, on_pressed=self._resume_pressed
                )
        boxes = tuple(r.box for r in list(self._resume_rows.values())[:20])
        if boxes != self.resume_box.children:
            self.resume_box.children = boxes

    def _header_html(self) -> str:
        rows = list(self.rows.values())
        runs = len({r.item.episode_id for r in rows})
        waiting = f"{count_words(rows)} waiting in {runs} run{'s' * (runs != 1)}" if rows else "nothing waits for a decision"
        waiting += self._missing_root_words(rows)
        # drafts decided here, then the runs (not drafts) whose decisions are all on disk: "3 decided here · 3 decided
        # on disk" counted the same three drafts twice
        here = f" · {self.decided_here} decided here" if self.decided_here else ""
        ready = len(self._resume_rows)
        extra = f" · {ready} run{'s' * (ready != 1)} decided, ready to resume" if ready else ""
        unread = f" · {_unread_words(self.scan.problems)}" if self.scan.problems else ""
        line = esc(waiting + here + extra + unread)
        return f'<div class="nnb-h"><b>Approvals inbox</b> <span class="nnb-muted">{line}</span></div>'

    def _missing_root_words(self, rows: list[Any]) -> str:
        """What the inbox says of a root that does not exist: a typo read as "nothing waits" (all done), in the view
        and in the line the magic prints alike."""
        if rows or self.scan._episode_ids is not None or os.path.isdir(self.scan.root):
            return ""
        if os.path.lexists(self.scan.root):  # made a file (or a link leading nowhere) since the inbox opened
            return f": {shown(str(self.scan.root))} is not a folder; pass the folder the runs are written to"
        return f": {shown(str(self.scan.root))} does not exist (yet); check the folder's name"

    def _decided_title_html(self) -> str:
        """The decided list's title, counting the earlier rows it no longer shows (it keeps the newest)."""
        earlier = self.decided_total - len(self.decided)
        more = f" · {earlier:,} earlier not shown" if earlier > 0 else ""
        return f'<div class="nnb-muted">decided, newest first{more}</div>'

    def _problems_html(self) -> str:
        """One line per file of a followed run that could not be read (a draft that is a FIFO is no row here)."""
        return "".join(f'<div class="nnb-msg nnb-muted">{esc(shown(p))}</div>' for p in self.scan.problems)

    # -- output ----------------------------------------------------------------------------------
    def text_summary(self) -> str:
        rows = list(self.rows.values())
        runs = len({r.item.episode_id for r in rows})
        waiting = f"{count_words(rows)} waiting in {runs} run{'s' * (runs != 1)}" if rows else "nothing waiting"
        waiting += self._missing_root_words(rows)
        unread = f", {_unread_words(self.scan.problems)}" if self.scan.problems else ""
        return f"InboxView: {waiting}, {self.decided_here} decided here{unread}"

    def snapshot_html(self) -> str:
        with self._lock:
            pending = [
                f'<div class="nnb-card nnb-ib-row">{item_html(r.item)}</div>' for r in list(self.rows.values())[: self.limit]
            ]
            decided = [
                f'<div class="nnb-card nnb-ib-row nnb-decided">{item_html(r.item, r.decision)}</div>'
                for r in reversed(self.decided)
                if r.decision is not None
            ]
            header = self._header_html() + self._problems_html()
        hint = '<i class="nnb-muted">decide in the live inbox, or with approve_draft / reject_draft</i>' if pending else ""
        title = self._decided_title_html() if decided else ""
        body = header + "".join(pending) + self.more.value + hint + title + "".join(decided)
        return f'<div class="{ROOT_CLASS} noesis-nb-inbox">{live_css()}{body}</div>'

    @property
    def closed(self) -> bool:
        return self._coalescer.closed

    def close(self) -> None:
        """Stop following the runs and close the inbox's widgets."""
        if "_coalescer" not in self.__dict__:  # __init__ stopped at bad input: no widget was made
            return
        self._coalescer.closed = True
        if self._task is not None:
            self._task.cancel()
        self.focus.release()
        for row in [*self.rows.values(), *self.decided]:
            row.box.close()
        super().close()


def _unread_words(problems: list[str]) -> str:
    return f"{len(problems)} problem{'s' * (len(problems) != 1)} reading the runs (named below)"


def inbox(
    root: str | os.PathLike[str] | None = None,
    *,
    runs_dir: str | os.PathLike[str] | None = None,
    approver_id: str | None = None,
) -> InboxView:
    """Show every pending draft and veto of every paused run under ``root`` (default: the runs dir, and the episodes
    live in this kernel wherever they write); returns the inbox. ``runs_dir=`` names the root as ``show``,
    ``list_runs`` and ``start`` take it."""
    if runs_dir is not None:
        if root is not None:
            raise InvalidOptionError(
                f"inbox: root={quoted(os.fspath(root), 80)} and runs_dir={quoted(os.fspath(runs_dir), 80)} both name "
                "the runs' folder; pass one of them"
            )
        root = runs_dir
    view = InboxView(root, approver_id=approver_id)
    view.display()
    return view


def _resume_ended_words(row: ResumeRow) -> str:
    """Plain words for the line holding the focus once a Resume has ended (the inbox's line below says the detail)."""
    run = short(row.source.episode_id, 80, exact=True)
    if getattr(row.source, "last_error", None):
        return f"could not resume run {run}: the line below says why"
    return f"resume of run {run} ended: it is {row.source.status} now"
