"""``EpisodeView``: header, controls, approval cards and the episode as a tree of steps (or its raw events).

Events reach the view from any thread and are redrawn in batches by a :class:`Coalescer`
(at most 10 redraws a second, fewer when redraws are large for the event rate). The view
holds no domain logic: Stop calls ``source.cancel()`` (or ``cancel(drain_s=…)``), Send calls
``source.steer(text)``, cards call ``source.approve/reject``, Resume calls ``source.resume()``, and a lost
run's "Settle lost run" does what ``resume_run`` does (``settle.py``);
the source is an ``EpisodeHandle`` or a run from disk (or a replay), and every view of a run
follows what happens to it anywhere (see ``runtime/diskrun.py``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as w

from .._envvars import approver_id_from_env
from ..errors import InvalidOptionError
from ..runtime.registry import live_handles
from ..runtime.source import RunSource
from ..secrets import quoted, shown
from .approvals import FOLDER_GONE, ApprovalsPanel
from .bundle import css_widget
from .cellsync import keep_saved
from .coalesce import Coalescer
from .controls import PressedLine, SteerInput, StopControls
from .facts import ToolFactsCache, veto_of
from .keyguard import key_guard
from .render import counts_html, esc, header_html, refusal_html, row_html, short
from .rerun import left_behind, left_behind_html
from .settle import SettleButton
from .stale import stale_notice_html, status_badge_html, written_here
from .state import TERMINAL, CostMeter, Tally, view_state
from .steplist import StepList
from .steps import Step
from .stepview import StepFacts
from .theme import ROOT_CLASS
from .timeline import MESSAGE_OVERHEAD, Timeline
from .viewout import ViewOutput

__all__ = ["EpisodeView"]


class EpisodeView(ViewOutput, w.VBox):  # type: ignore[misc]  # ipywidgets ships no type information: VBox is Any
    """The live view of an ``EpisodeHandle`` (or of a run read from disk, see ``noesis_nb.show``)."""

    def __init__(
        self,
        source: Any,
        *,
        rows: int = 50,
        block_rows: int = 10,
        steps: int = 30,
        approver_id: str | None = None,
        interval: float = 0.1,
        bytes_per_event: int = 50,
        bytes_per_second: int = 6_000,
        **kwargs: Any,
    ):
        approver_id = approver_id_from_env(approver_id)  # a bad $NOESIS_NB_APPROVER_ID is said here, not at a click
        if not hasattr(source, "run_dir") or not hasattr(source, "episode_id"):  # an id or a path: show() finds its run
            raise InvalidOptionError(
                f"EpisodeView takes an episode handle or a run read from disk, not {quoted(source, 80)}; "
                f"for an episode id or a run directory use noesis_nb.show({quoted(source, 80)})"
            )
        self.source = source
        self.redraws = 0
        self.displays: list[Any] = []  # IPython DisplayHandles to update with the final snapshot
        self._displayed_in: int | None = None  # execution count of the cell that displayed it
        self._coalescer = Coalescer(
            self.flush, lambda: self.loop, interval=interval, bytes_per_event=bytes_per_event, bytes_per_second=bytes_per_second
        )
        self._tally = Tally(keep=rows)
        self._meter = CostMeter()
        self._settled: str | None = None
        self._seen_ids: set[str] | None = None
        self._first_id: str | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self._flush_lock = threading.RLock()
        self._source_error: tuple[str | None, str] | None = None  # the source's notice (and a settle's) in ``message``
        self._changed: list[Step] = []  # steps changed since the last redraw
        self._veto_step: Step | None = None
        self._facts_key: tuple[Any, ...] = ()
        self._tools = ToolFactsCache(source.run_dir)

        self.css = css_widget()
        self.stale = w.HTML()  # what the view says once its kernel is gone, kept true at each redraw (stale.py)
        self.stale.add_class("nnb-css")  # no margins: it shows nothing while the kernel runs
        self._stale_key: tuple[Any, ...] = ()
        self._written_here = False
        self.header = w.HTML(layout=w.Layout(flex="1 1 300px", min_width="0"))  # the Stop column goes under it when narrow
        self.stopping = StopControls(lambda drain_s: self.stop(drain_s))
        self.stop_button, self.drain_button = self.stopping.stop_button, self.stopping.drain_button
        self.resume_button = w.Button(
            description="Resume",
            icon="play",
            tooltip="resume this run now that it is decided",
            layout=w.Layout(display="none"),
        )
        self.resume_button.on_click(lambda _b: self.resume())
        for button, cls in ((self.resume_button, "nnb-go"),):
            button.add_class("nnb-btn")
            button.add_class(cls)
        self.settling = SettleButton(after=self.poke)  # a lost run's "Settle lost run" (what resume_run does)
        self.settle_button = self.settling.button
        self.approvals = ApprovalsPanel(source, approver_id=approver_id, on_decided=self.poke)
        self.counts = w.HTML()
        self.pressed = PressedLine(self.approvals.focus)  # what Stop or Resume did; the focus goes there after a press
        self.message = w.HTML()
        self.earlier = w.HTML()  # what an earlier run of the cell showing this view left going (see rerun.py)
        self._earlier: list[Any] = []
        self.steering = SteerInput(source, sender=approver_id, say=self._say, after=self.poke, focus=self.approvals.focus)
        self.mode = w.ToggleButtons(
            options=[("steps", "steps"), ("raw events", "events")],
            value="steps",
            tooltips=["one line per step (click ▸ for its events)", "every event, newest first"],
            style={"button_width": "100px"},
            layout=w.Layout(flex="0 0 auto", width="auto"),
        )
        self.mode.observe(lambda _c: self._switch(), "value")
        self.steps = StepList(capacity=steps)
        self.timeline = Timeline(blocks=max(1, rows // block_rows), block_rows=block_rows)
        self.timeline.box.layout.display = "none"
        # as wide as its widest label ("Stop when calls finish (≤ 10 s)" was cut to "…"): the header wraps instead,
        # and on a narrow page the column goes under the header
        controls = w.VBox(
            [self.stop_button, self.drain_button, self.resume_button, self.settle_button],
            layout=w.Layout(min_width="110px", flex="0 0 auto"),
        )
        controls.add_class("nnb-stop-col")
        children = [
            self.css,
            self.stale,
            w.HBox([self.header, controls], layout=w.Layout(flex_flow="row wrap")),
            self.approvals.box,
            self.steering.box,
            self.pressed.line,
            self.message,
            self.earlier,
            w.HBox([self.mode, self.counts], layout=w.Layout(align_items="center", flex_flow="row wrap")),
            self.steps.box,
            self.timeline.box,
        ]
        guard = key_guard()  # Notebook 7's shortcuts kept out of the view's text boxes (keyguard.py)
        super().__init__(children if guard is None else [*children, guard], **kwargs)
        self.add_class("noesis-nb-episode-view")
        self.add_class(ROOT_CLASS)
        self._redraw_due = False
        self._wait_ticking = False
        self._attach(source, initial=True)
        keep_saved(self)  # its step rows are saved with a notebook executed headless (cellsync.py)

    @property
    def settled(self) -> str | None:
        """The final status this view last rendered (None while the run has not ended)."""
        return self._settled

    @property
    def events_seen(self) -> int:
        """How many events this view has taken in (the tree and the raw list keep only the latest)."""
        return self._tally.total

    # -- sources ----------------------------------------------------------------------------
    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        loop = self.source.loop
        return loop if loop is not None and not loop.is_closed() else None

    def _attach(self, source: Any, *, initial: bool) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        self.source = source
        self.approvals.rebind(source)
        self._unsubscribe.append(source.subscribe(self._coalescer.push))  # subscribe first, then read: duplicates dropped by id
        self._unsubscribe.append(source.on_change(self._source_changed))
        self._rewrites = getattr(source, "rewrites", 0)
        events = list(source.events)
        first = str(events[0].get("id")) if events else None
        if initial or first is None or first == self._first_id:  # the source holds the whole history
            self._tally = Tally(keep=self._tally.recent.maxlen or 50)
            self._meter = CostMeter()
            self.timeline.clear()
            self.steps.clear()
            self._veto_step = None
            self._first_id = first
            fresh = events
        else:  # a source holding only the new events (e.g. a resumed run's handle)
            known = {str(e.get("id")) for e in self._tally.recent}
            fresh = [e for e in events if str(e.get("id")) not in known]
        self._seen_ids = {str(e["id"]) for e in events if e.get("id")}
        self._ingest(fresh)
        self._settled = None
        self.flush()

    def attach(self, source: Any) -> None:
        """Follow another source (e.g. the live handle of a run resumed from this view)."""
        self._attach(source, initial=False)

    def reset(self, source: Any) -> None:
        """Show ``source`` from scratch: every figure recomputed from its events (a replay's next moment)."""
        self._attach(source, initial=True)

    def extend(self, source: Any, events: Sequence[Mapping[str, Any]]) -> None:
        """Show ``source``, which holds what is shown plus ``events``: only those are taken in, as live (a replay moving on)."""
        with self._flush_lock, self.steps.lock:
            self.source = source
            self.approvals.rebind(source)
            self._ingest(list(events))
        self._settled = None
        self.flush()

    def poke(self) -> None:
        """Ask for a redraw soon (coalesced). Safe from any thread."""
        self._coalescer.poke()

    def _source_changed(self, source: Any) -> None:
        """The source read its run again: a log rewritten in place is drawn again whole at the next redraw."""
        if getattr(source, "rewrites", 0) != self._rewrites:
            self._redraw_due = True
        self.poke()

    # -- drawing (the loop's thread) ----------------------------------------------------------
    def _ingest(self, events: list[Mapping[str, Any]]) -> int:
        """Count and group new events; the raw list is drawn now (when shown), steps at the redraw."""
        if not events:
            return 0
        self._tally.extend(events)
        changed = self.steps.book.add(events)
        for step in changed:
            if step.kind == "governance" and step.pause_events:
                self._veto_step = step
        self._changed.extend(changed)
        if self.mode.value == "events":
            return self.timeline.push([row_html(e) for e in events[-self.timeline.capacity :]])
        return 0

    def _drain(self) -> list[Mapping[str, Any]]:
        new = []
        for event in self._coalescer.drain():
            if self._seen_ids is not None:  # skip events already read from source.events at attach time
                if str(event.get("id")) in self._seen_ids:
                    continue
                self._seen_ids = None
            new.append(event)
        return new

    def _facts(self, state: Mapping[str, Any], veto: Any) -> StepFacts:
        self._tools.note_pending(state["pending"])
        return StepFacts(
            decisions={str(d.get("draft_id")): d for d in state["decisions"]},
            tools=lambda draft, finished: self._tools.get(draft, finished=finished),
            price=CostMeter.price_of,
            veto=veto[1] if veto else None,
            pauses=tuple(self._tally.clock.spans),
            ended=state["status"] in TERMINAL,
        )

    def flush(self) -> None:
        """Drain new events and redraw once (header, cards, counts, steps or raw events)."""
        if self._coalescer.closed:
            return
        if self._redraw_due:  # the source's log was rewritten: every figure again from its events
            self._redraw_due = False
            self._coalescer.drain()  # what it pushed before is in its events
            self._attach(self.source, initial=True)
            return
        with self._flush_lock, self.steps.lock:
            new = self._drain()
            sent = self._ingest(new) if new else 0
            state = view_state(self.source, self._tally, meter=self._meter)
            status = state["status"]
            veto = veto_of(self._veto_step, self.source.run_dir) if self._veto_step is not None else None
            facts = self._facts(state, veto)
            key = (len(state["decisions"]), veto is not None and veto[1] is not None, CostMeter.ready(), status)
            if self.mode.value == "steps":
                if key != self._facts_key:  # decisions, prices or the status changed: summaries may read differently
                    sent += self.steps.push(list(self.steps.book.steps), facts) + self.steps.redraw(facts)
                else:
                    sent += self.steps.push(self._changed, facts)
            self._facts_key = key
            self._changed = []
            here = self._sync_stale(
                status, state["pending"], vetoed=veto is not None and veto[1] is None, shown=state["header"]["status"]
            )
            header = header_html(state["header"], status_badge_html(state["header"]["status"], lost_when_stale=here))
            kept = len(self.steps.book.steps)
            counts = counts_html(self._tally.total, kept, state["counts"], state["flags"], mode=self.mode.value)
            if self.steps.book.total > kept and self.mode.value == "steps":
                counts = counts.replace("</div>", f" · the {self.steps.book.total - kept:,} earlier steps are not shown</div>")
            sent += sum(
                len(v) + MESSAGE_OVERHEAD for v, old in ((header, self.header.value), (counts, self.counts.value)) if v != old
            )
            # the cards and buttons first, the badge last: a badge that reads how the run ended is never drawn
            # beside a button that could still act on it (each widget is drawn as its own message arrives)
            ended = (
                state["header"]["status"]
                if status in TERMINAL
                else (FOLDER_GONE if getattr(self.source, "gone", False) else None)
            )
            self.approvals.sync(state["pending"], state["decisions"], ended=ended, veto=veto)
            self._sync_controls(status)
            self.header.value = header
            self.counts.value = counts
            if self._earlier:
                self._earlier = [s for s in self._earlier if s.episode_id in live_handles()]
                self.earlier.value = left_behind_html(self._earlier)
            notice = (_notice(self.source), self.settling.note)
            if notice != self._source_error:  # shown while the source reports it, cleared once it does not
                self._source_error = notice
                said, settled = notice
                self.message.value = settled + (_notice_html(said, self.source) if said else "")
            self.redraws += 1
            self._coalescer.spent(sent, len(new))
            if status != self._settled and status in TERMINAL:
                # only at the end: re-sending the bundle re-renders the output, which must not
                # happen while a human may be clicking (a paused episode). Only for a live episode:
                # its view is where the notebook shows how it ends; a run shown from disk keeps, in
                # each output's static snapshot, the state it had when that cell showed it (a later
                # show of it is a later snapshot), while the live widget of every output follows it.
                self._settled = status
                if self.source.summary_kind == "EpisodeHandle":
                    self.update_displays(wait_prices=False)  # a background redraw must not block the loop
            if status == "running" or state["header"]["cost"] == "…":
                self._coalescer.tick(1.0)  # keep the running time (and a loading cost) current
            elif status == "paused":
                self._count_the_wait()

    def _count_the_wait(self) -> None:
        """While the run is paused for a person, redraw the header alone once a second so its wait counts on with no
        event arriving (a timer on the loop, stopped once the run is not paused, the pause is not a person's, or the
        view is closed); without a running loop nothing ticks."""
        loop = self.loop
        if self._wait_ticking or loop is None or self.closed or self._tally.clock.paused_since is None:
            return
        self._wait_ticking = True

        def fire() -> None:
            self._wait_ticking = False
            self._redraw_header()

        try:
            loop.call_soon_threadsafe(loop.call_later, 1.0, fire)
        except RuntimeError:  # the loop closed meanwhile
            self._wait_ticking = False

    def _redraw_header(self) -> None:
        """The header as of now (the running time stays at the pause, the wait grows); nothing else is drawn."""
        if self.closed:
            return
        with self._flush_lock:
            state = view_state(self.source, self._tally, meter=self._meter)
            if state["status"] != "paused":  # resumed or ended: the event that says so redraws the whole view
                return
            header = header_html(
                state["header"], status_badge_html(state["header"]["status"], lost_when_stale=self._written_here)
            )
            if header != self.header.value:
                self.header.value = header
        self._count_the_wait()

    def _sync_stale(self, status: str, pending: list[Any], *, vetoed: bool, shown: str) -> bool:
        """Keep the notice shown once the kernel is gone true to the run as drawn now; True when this kernel writes it."""
        drafts = tuple(str(getattr(p, "draft_id", p)) for p in pending)
        key = (status, shown, drafts, vetoed, self.source.summary_kind, self.source.run_dir)
        if key != self._stale_key:
            self._stale_key = key
            self._written_here = written_here(self.source) if status == "running" else False
            self.stale.value = stale_notice_html(
                self.source, status, pending, here=self._written_here, vetoed=vetoed, shown=shown
            )
        return self._written_here

    def _switch(self) -> None:
        """Steps or raw events: show one, hide the other, and draw it from what the view kept."""
        with self._flush_lock, self.steps.lock:
            raw = self.mode.value == "events"
            self.steps.box.layout.display = "none" if raw else None
            self.timeline.box.layout.display = None if raw else "none"
            if raw:
                self.timeline.clear()
                self.timeline.push([row_html(e) for e in self._tally.recent])
            else:
                self._facts_key = ()  # redraw every kept step
        self.flush()

    def _sync_controls(self, status: str) -> None:
        self.stopping.sync(self.source, status in TERMINAL)
        self.steering.sync(self.source)
        if self.steering.said and not getattr(self.source, "can_steer", False):
            # "type a message … then press Send" (or "could not send") outlived the box and button it spoke of
            if self.message.value == self.steering.said:
                self.message.value = ""
            self.steering.said = ""
        self.resume_button.layout.display = None if self.source.can_resume else "none"
        self.resume_button.disabled = self.source.resuming
        self.settling.sync(self.source)
        if not self.source.resuming:
            self.pressed.finished(failed=bool(self.source.last_error))
        if status in TERMINAL:
            self.steering.handed_on(self.pressed, f"the run ended {status}")  # a steer ended it: the focus goes on
            self.pressed.ended(f"the run ended {status}")

    def _shown_here(self) -> None:
        """Displayed by the running cell: name what an earlier run of this cell left going, and follow it until it ends."""
        left = left_behind(self.source)
        with self._flush_lock:  # a flush on the coalescer's thread replaces the list as its episodes end
            left = [s for s in left if s not in self._earlier]
            if left:
                self._earlier = [*self._earlier, *left]
                self._unsubscribe.extend(s.on_change(lambda _h: self.poke()) for s in left)
                self.earlier.value = left_behind_html(self._earlier)

    # -- buttons ------------------------------------------------------------------------------
    def _say(self, html: str) -> None:
        self.message.value = html

    def stop(self, drain_s: float | None = None) -> None:
        """What Stop does: ``source.cancel()``, or ``source.cancel(drain_s=…)`` for "Stop when calls finish".

        The run ends ``cancelled`` and sealed; during a drain, Stop (now "Stop now") ends it at once."""
        pressed = self.stop_button if drain_s is None else self.drain_button
        self.stop_button.disabled = drain_s is None
        self.drain_button.layout.display = "none"
        try:
            self.source.cancel(drain_s) if drain_s is not None else self.source.cancel()
        except Exception as exc:
            self.message.value = refusal_html(f"could not stop: {esc(shown(str(exc)))}")
            self.stop_button.disabled = False
            self.drain_button.layout.display = None if drain_s is not None else self.drain_button.layout.display
            self.pressed.pressed(pressed, None)
        else:
            self.pressed.pressed(pressed, _STOP_SAID if drain_s is None else _DRAIN_SAID.format(drain_s))
        self.poke()

    def resume(self) -> Any:
        """What Resume does for a paused run from disk: resume it and follow the live handle.

        The button stays disabled while the resume runs (a second click resumes nothing)."""
        if self.source.resuming:
            return None
        self.resume_button.disabled = True
        try:
            handle = self.source.resume()
        except Exception as exc:
            self.message.value = refusal_html(f"could not resume: {esc(shown(str(exc)))}")
            self.resume_button.disabled = False
            self.pressed.pressed(self.resume_button, None)
            return None
        if not self.source.resuming and handle is None and self.source.status != "running":
            # the view was behind: someone else resumed or sealed the run meanwhile
            now = short(self.source.status, 60, exact=True)  # a status another program wrote is any text
            self.message.value = f'<span class="nnb-muted">nothing to resume: the run is {esc(now)} now</span>'
            self.pressed.pressed(self.resume_button, f"nothing to resume: the run is {now} now")
        else:
            if not self.source.last_error:
                self.message.value = ""
            if self.source.resuming:  # on the loop: the redraw after its task says how it went
                self.pressed.pressed(self.resume_button, "resuming…", then="resumed: the run continues")
            else:
                self.pressed.pressed(self.resume_button, "resumed: the run continues")
        self.resume_button.disabled = self.source.resuming
        if handle is not None and handle is not self.source:
            self.attach(handle)
        return handle

    def settle(self) -> asyncio.Task[None] | None:
        """What "Settle lost run" does for a lost run: ``resume_run`` of it, as a task on the running loop (await it to
        wait for the outcome, which the view then shows); None when the run is not lost or is being settled already."""
        return self.settling.click()

    @property
    def closed(self) -> bool:
        return self._coalescer.closed

    def close(self) -> None:
        """Stop following the source and close every widget of the view (frees them in the kernel)."""
        if "_coalescer" not in self.__dict__:  # refused in __init__ (a wrong approver_id): nothing was made to close
            return
        self._coalescer.closed = True
        self.approvals.focus.release()  # the Stop and Resume presses' keeper too
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        closed: set[int] = set()
        stack: list[Any] = [self, *(card.box for card in self.approvals.cards.values()), *self.steps.widgets()]
        while stack:
            widget = stack.pop()
            if not isinstance(widget, w.Widget) or id(widget) in closed:
                continue
            closed.add(id(widget))
            stack.extend(getattr(widget, "children", ()))
            stack.extend(getattr(widget, name, None) for name in ("layout", "style"))
            if widget is self:
                super().close()
            else:
                widget.close()


_STOP_SAID = "stop asked: the run ends cancelled"
_DRAIN_SAID = "stop asked: calls running may finish (≤ {:g} s), then the run ends cancelled"


def _notice(source: RunSource) -> str | None:
    """What the view says under its header: an error, who continues a run this view follows, a hint, or a problem."""
    if source.last_error:
        return source.last_error
    if source.following:
        return f"following: {source.following}"
    hint = getattr(source, "hint", None)
    if hint:
        return str(hint)
    return source.problems[-1] if source.problems else None


def _notice_html(notice: str, source: RunSource) -> str:
    hue = "red" if notice == source.last_error else "muted"
    cls = "nnb-c-red" if hue == "red" else "nnb-muted"
    return f'<div class="nnb-msg {cls}">{esc(shown(notice))}</div>'
