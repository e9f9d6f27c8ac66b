"""``BatchView``: the live progress grid of a batch, with the batch's approvals inbox between its
header and its lines (the batch continues decided runs itself, so the inbox offers no Resume).

The header counts episodes by status and gives throughput, ETA, tokens and cost so far (priced as
the episode view's header prices them). A bounded number of row slots show the episodes that
matter most (waiting for a person, failed, running, latest finished — see ``batchgrid.pick``) plus
a "N more" line; a slot's ▸ opens that episode's own view in the output area below. Changes reach
the view through ``handle.on_change`` and are redrawn by a :class:`Coalescer` (at most 10 redraws
a second); a redraw sends only the slots and figures whose text changed, so a 5,000-episode batch
keeps the notebook responsive.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import ipywidgets as w

from ..errors import InvalidOptionError
from ..secrets import quoted, shown
from .batchgrid import GRID_HEAD, BatchFigures, entry_line, grid_table, header_line, key_of, pick
from .bundle import SnapshotOutput, css_widget, execution_count
from .cellsync import keep_saved
from .coalesce import Coalescer
from .controls import PressedLine
from .display import show
from .inboxview import InboxView
from .keyguard import key_guard
from .meter import CostMeter
from .render import esc, live_css, refusal_html, short
from .stale import stale_batch_html, stale_batch_key
from .theme import ROOT_CLASS
from .timeline import MESSAGE_OVERHEAD

__all__ = ["BatchView", "BatchPresenter", "batch_view"]

_ATTR = "_noesis_nb_batch_view"


def slot_name(entry: Any) -> str:
    """A grid row's ▸ name (its tooltip): which episode it opens, by its row (``#3``, adapter) and id, so queued ones
    that have no id yet are told apart too."""
    which = f"#{entry.index} ({short(entry.adapter, 80, exact=True)})"
    if entry.episode_id is None:
        return f"open episode {which} below (not started yet)"
    return f"open episode {which} {short(entry.episode_id, 200, exact=True)} below"


class _Slot:
    """One row of the grid: ▸ (opens the episode's view) and its line; reused for whichever entry it shows."""

    def __init__(self, view: BatchView):
        self.entry: Any = None
        layout = w.Layout(width="28px", min_width="28px", height="22px")
        self.button = w.Button(icon="caret-right", layout=layout)  # the stylesheet draws ▸; its tooltip (the episode) is its name
        self.button.add_class("nnb-btn")
        self.button.add_class("nnb-open")
        self.button.on_click(lambda _b: view.open_episode(self.entry))
        self.line = w.HTML()
        self.box = w.HBox([self.button, self.line], layout=w.Layout(align_items="center"))


class BatchView(SnapshotOutput, w.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """The progress grid of a ``BatchHandle`` (what displaying the handle shows)."""

    def __init__(self, handle: Any, *, rows: int = 20, approver_id: str | None = None, interval: float = 0.1, **kwargs: Any):
        self.handle = handle
        self.limit = rows
        self.redraws = 0
        self.sent = 0  # bytes of widget values sent by redraws (what the benchmark counts)
        self.displays: list[Any] = []
        self.figures = BatchFigures()
        self._dirty: dict[tuple[int, str], Any] = {}
        self._stale_key: tuple[Any, ...] | None = None  # what the lost-kernel notice last showed
        self._lock = threading.RLock()
        self._coalescer = Coalescer(self.flush, lambda: self.loop, interval=interval)
        self.header = w.HTML(layout=w.Layout(flex="1 1 300px", min_width="0"))  # Cancel goes under it when narrow
        self.more = w.HTML()
        self.message = w.HTML()
        self.stale = w.HTML()  # shown by the stylesheet only once the kernel is gone
        self.stale.add_class("nnb-css")  # no margins: it shows nothing while the kernel runs
        self.stop_button = w.Button(
            description="Cancel batch",
            icon="stop",
            tooltip="queued episodes never start; running ones end cancelled",
            layout=w.Layout(flex="0 0 auto", width="auto"),  # never narrower than its label (a squeezed one reads "Cancel …")
        )
        self.stop_button.add_class("nnb-btn")
        self.stop_button.on_click(lambda _b: self.cancel())
        self.pressed = PressedLine()  # what Cancel did; the keyboard focus goes there after the press
        self._slots = [_Slot(self) for _ in range(rows)]
        for slot in self._slots:
            slot.box.layout.display = "none"
        self.detail = w.Output()
        # the batch continues its decided runs itself (live ones at once, ones paused on disk by its follower)
        self.inbox = InboxView(
            handle.root,
            episode_ids=lambda: handle.episode_ids,
            approver_id=approver_id,
            offer_resume=False,
            key_guarded=False,  # the grid's guard below keeps the whole view, the inbox in it too
            rows=10,
            decided_rows=5,
        )
        grid = w.VBox([w.HTML(GRID_HEAD), *(s.box for s in self._slots), self.more])
        grid.add_class("nnb-grid")
        guard = key_guard()  # the grid's buttons keep their keys, never the notebook's shortcuts (keyguard.py), as a view's
        guarded = [] if guard is None else [guard]
        super().__init__(
            [
                css_widget(),
                w.HBox([self.header, self.stop_button], layout=w.Layout(flex_flow="row wrap")),
                self.stale,
                self.inbox,
                self.pressed.line,
                self.message,
                grid,
                self.detail,
                *guarded,
            ],
            **kwargs,
        )
        self.add_class(ROOT_CLASS)
        keep_saved(self)  # its rows are saved with a notebook executed headless (cellsync.py)
        self.add_class("noesis-nb-batch")
        self.figures.update(handle.entries)
        self._unsubscribe = handle.on_change(self._changed)
        self.flush()

    @property
    def loop(self) -> Any:
        loop = getattr(self.handle, "loop", None)
        return loop if loop is not None and not loop.is_closed() else None

    def _changed(self, entry: Any) -> None:
        self._dirty[key_of(entry)] = entry
        self._coalescer.poke()

    def poke(self) -> None:
        self._coalescer.poke()

    # -- drawing -------------------------------------------------------------------------------
    def flush(self) -> None:
        """Take in the entries that changed and redraw what reads differently (header, slots, the more line)."""
        if self._coalescer.closed:
            return
        with self._lock:
            dirty, self._dirty = self._dirty, {}
            if not self.figures.priced and CostMeter.ready():  # prices just loaded: cost every entry once
                self.figures.update(self.handle.entries)
            else:
                self.figures.update(dirty.values())
            now = time.time()
            counts = self.handle.counts()
            entries = self.handle.entries
            shown = pick(entries, self.limit)
            sent = self._set(self.header, header_line(self.handle, counts, self.figures, now))
            stale_key = stale_batch_key(self.handle, counts)
            if stale_key != self._stale_key:  # rebuilt only when a count it shows changed
                self._stale_key = stale_key
                sent += self._set(self.stale, stale_batch_html(self.handle, counts))
            for slot, entry in zip(self._slots, shown + [None] * (self.limit - len(shown)), strict=True):
                if entry is None:
                    if slot.entry is not None:
                        slot.entry, slot.box.layout.display = None, "none"
                    continue
                if slot.entry is not entry:
                    slot.entry = entry
                    slot.box.layout.display = None
                # the id arrives when it starts; a tooltip is shown as it is sent (redacted, nothing hidden)
                name = slot_name(entry)
                if slot.button.tooltip != name:
                    slot.button.tooltip = name
                sent += self._set(slot.line, entry_line(entry, self.figures, now))
            hidden = len(entries) - len(shown)
            more = f'<div class="nnb-muted">{hidden:,} more episodes not shown (most telling first)</div>' if hidden else ""
            sent += self._set(self.more, more)
            done = self.handle.done()
            self.stop_button.layout.display = "none" if done else None
            if done:
                self.pressed.ended(f"the batch ended {self.handle.status}")
            if done and not self.inbox.rows:
                self.inbox.stop_following()  # every episode has ended: nothing of this batch can wait any more
            self.redraws += 1
            self.sent += sent
            self._coalescer.spent(sent, len(dirty))
            if counts.get("running") or counts.get("queued"):
                self._coalescer.tick(1.0)  # durations and ETA move while nothing happens
            elif CostMeter.ready() is None:  # a batch that ended or paused before the prices loaded: its costs read
                self._coalescer.tick(0.5)  # "…" until they are there, then each row is priced (nothing else redraws)

    @staticmethod
    def _set(widget: Any, value: str) -> int:
        if widget.value == value:
            return 0
        widget.value = value
        return len(value) + MESSAGE_OVERHEAD

    # -- actions -------------------------------------------------------------------------------
    def open_episode(self, entry: Any) -> Any:
        """▸: show that episode's own view in the output area under the grid (its live handle, else its run)."""
        if entry is None or entry.episode_id is None:
            self.message.value = '<span class="nnb-muted">this episode has not started yet</span>'
            return None
        self.message.value = ""
        target = entry.handle if entry.handle is not None else (entry.run_dir or entry.episode_id)
        self.detail.clear_output()
        with self.detail:
            return show(target, runs_dir=self.handle.root)

    def cancel(self) -> None:
        """What "Cancel batch" does: ``handle.cancel()``; the focus goes to the line saying so, or back if it failed."""
        self.stop_button.disabled = True
        try:
            self.handle.cancel()
        except Exception as exc:
            self.message.value = refusal_html(f"could not cancel: {esc(shown(str(exc)))}")
            self.stop_button.disabled = False
            self.pressed.pressed(self.stop_button, None)
        else:
            self.pressed.pressed(self.stop_button, "cancel asked: queued episodes never start, running ones end cancelled")
        self.poke()

    # -- output ----------------------------------------------------------------------------------
    def text_summary(self) -> str:
        counts = self.handle.counts()
        parts = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        return f"BatchView: {len(self.handle.entries)} episodes, {self.handle.status} ({parts})"

    def snapshot_html(self) -> str:
        with self._lock:
            now = time.time()
            counts = self.handle.counts()
            table = grid_table(pick(self.handle.entries, self.limit), self.figures, now)
            body = header_line(self.handle, counts, self.figures, now) + table + self.more.value
        return f'<div class="{ROOT_CLASS} noesis-nb-batch">{live_css()}{body}{_inbox_part(self.inbox)}</div>'

    @property
    def closed(self) -> bool:
        return self._coalescer.closed

    def close(self) -> None:
        """Stop following the batch and close the grid's and its inbox's widgets."""
        if "_unsubscribe" not in self.__dict__:  # __init__ stopped before the grid was made
            return
        self._coalescer.closed = True
        self._unsubscribe()
        self.pressed.focus.release()
        self.inbox.close()
        super().close()


def _inbox_part(inbox: InboxView) -> str:
    """The inbox's snapshot without its own stylesheet (the grid's already carries it)."""
    return inbox.snapshot_html().replace(live_css(), "", 1) if inbox.rows or inbox.decided else ""


def batch_view(handle: Any, **options: Any) -> BatchView:
    """The one grid of a batch handle, created on first use and kept on the handle (as ``view_for`` does for episodes)."""
    if isinstance(handle, BatchView):
        return handle
    if not hasattr(handle, "entries") or not hasattr(handle, "batch_id"):
        raise InvalidOptionError(f"batch_view takes the handle noesis_nb.batch(tasks, using=…) returns, not {quoted(handle, 80)}")
    view = getattr(handle, _ATTR, None)
    if view is None or view.closed:
        view = BatchView(handle, **options)
        setattr(handle, _ATTR, view)
    return view


class BatchPresenter:
    """How a ``BatchHandle`` displays (registered with the runtime when the widgets load)."""

    def mimebundle(self, source: Any, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return batch_view(source)._repr_mimebundle_(include, exclude)

    def display(self, source: Any) -> None:
        batch_view(source)._ipython_display_()

    def refresh(self, source: Any) -> None:
        """``await batch``: redraw; once every episode has ended, re-send the bundle so a saved notebook keeps it.

        While some episode waits for a person the outputs are only redrawn: re-sending would re-render the
        inbox under the person's cursor."""
        view = batch_view(source)
        view.flush()
        view.inbox.refresh()
        if execution_count() is None:
            return
        if not view.displays:
            view.display()
        elif source.done():
            view.update_displays()
