"""``replay(run)``: a finished or paused run in the same view as it was live, with a scrubber and play/pause.

The view shows a :class:`~noesis_nb.runtime.moment.RunMoment` — the run after its first ``k``
events — so the step tree, header tokens and cost, and the cards at every ``k`` are what the live
view showed when it had seen those ``k`` events (the same reducers: ``Tally``, ``StepBook``, the
header's ``view_state``). Moving forward the view takes in only the next events, as the live view
did; moving back it is rebuilt from the first ``k``. Play moves ``k`` forward in the run's own time (1×, 10×) or as fast as the
view redraws, never slower than 10× (max, replayspeed.py); a gap longer than ``MAX_GAP_S`` (a pause waiting for a person)
is shortened to it.
The static ``text/html`` snapshot is the state shown when it is displayed: the final one.
"""

from __future__ import annotations

import asyncio
import numbers
import os
from typing import Any

import ipywidgets as w

from ..errors import InvalidOptionError
from ..runtime.diskrun import DiskRun
from ..runtime.moment import RunMoment, epoch_of
from ..secrets.quoted import quoted
from ..store.instants import epoch_seconds
from .bundle import execution_count
from .keyguard import count_unit
from .render import esc, refusal_html, short
from .replayspeed import MAX_GAP_S, REDRAW_S, SPEEDS, next_frame, paced_frame, run_clock, speed_named
from .theme import ROOT_CLASS
from .view import EpisodeView

__all__ = ["ReplayView", "SPEEDS", "MAX_GAP_S"]

_WIDGET = "application/vnd.jupyter.widget-view+json"


class ReplayView(w.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """A run replayed: ``seek(k)`` shows it after ``k`` events; ``play(speed)`` moves forward in its own time."""

    def __init__(self, target: Any, *, runs_dir: str | os.PathLike[str] | None = None, title: str | None = None, **kwargs: Any):
        if not isinstance(target, (str, os.PathLike, DiskRun)) and hasattr(target, "run_dir"):
            target = target.run_dir  # a live handle (or a view's source): its run as written so far
        self.run = target if isinstance(target, DiskRun) else DiskRun(target, runs_dir=runs_dir)
        self.total = len(self.run.events)
        self.times = [epoch_of(e) for e in self.run.events]
        self.view = EpisodeView(RunMoment(self.run, self.total), **kwargs)
        self.slider = w.IntSlider(
            value=self.total,
            min=0,
            max=self.total,
            description="events",
            # the label's hover text: ipywidgets 8 sets the label's title from ``tooltip``, which None showed as "null"
            tooltip="how many of the run's events the view shows: drag, or arrow keys on the handle",
            continuous_update=self.total <= 5_000,  # a long run is redrawn where the slider is let go
            layout=w.Layout(flex="1 1 auto", width="auto", min_width="160px"),
        )
        count_unit(self.slider, "event")  # said as the clock line writes it: "event 3 of 12"
        self.play_button = w.ToggleButton(
            value=False,
            description="Play",
            icon="play",
            tooltip="play the run in its own time",
            layout=w.Layout(width="84px", flex="0 0 auto"),
        )
        self.play_button.add_class("nnb-btn")
        self.speed = w.ToggleButtons(
            options=list(SPEEDS),
            value="10×",
            description="speed",  # the group's visible name (ipywidgets links no label to its buttons)
            tooltip="how fast Play moves through the run",  # the label's hover text ("null" without one)
            style={"button_width": "58px", "description_width": "initial"},
            layout=w.Layout(width="auto", flex="0 0 auto"),
            tooltips=["the run's own time", "ten times faster", "as fast as the view redraws"],
        )
        self.clock = w.HTML()
        self.slider.observe(lambda change: self._show(change["new"]), "value")
        self.play_button.observe(lambda change: self._toggle(change["new"]), "value")
        self._task: asyncio.Task[None] | None = None
        self._shown = self.total  # the event count the view shows
        heading = [w.HTML(f'<div class="nnb-muted">{esc(title)}</div>')] if title else []
        # a narrow view (half of a comparison) puts the slider on its own line, rather than squeezing Play to its
        # icon and the slider's count past the edge
        bar = w.HBox(
            [self.play_button, self.speed, self.slider], layout=w.Layout(align_items="center", width="100%", flex_flow="row wrap")
        )
        super().__init__([*heading, bar, self.clock, self.view])
        self.add_class(ROOT_CLASS)
        self.add_class("noesis-nb-replay")
        self._show(self.total)

    @property
    def k(self) -> int:
        return int(self.slider.value)

    def seek(self, k: int) -> ReplayView:
        """Show the run after its first ``k`` events (clamped to the run); returns the view."""
        self.slider.value = max(0, min(self.total, count_arg(k, "seek")))
        return self

    def state(self) -> dict[str, Any]:
        """What the view shows now (its header, cards and kept steps), as ``EpisodeView.state``."""
        return self.view.state()

    def _show(self, k: int) -> None:
        moment, shown = RunMoment(self.run, k), self._shown
        if 0 < shown <= k:  # forward: the view takes in the next events as the live view did
            self.view.extend(moment, moment.events[shown:])
        else:  # backward: rebuilt from the first k events
            self.view.reset(moment)
            self.view.flush()
        self._shown = k
        self._read_only()
        when = self._offset(k)
        into = f" · +{when:.1f} s into the run" if when else ""
        self.clock.value = f'<div class="nnb-muted">event {k:,} of {self.total:,}{into}</div>'

    def _read_only(self) -> None:
        """A card waiting at this moment shows what it asked, without buttons: a replay decides nothing."""
        for card in self.view.approvals.cards.values():
            if card.decision is None and card.controls.layout.display != "none":
                card.controls.layout.display = "none"
                card.status.value = '<span class="nnb-muted">waiting for a decision at this moment (a replay)</span>'

    def _offset(self, k: int) -> float | None:
        """Seconds from the run's start (its ``started_at``, where ``summary.duration_sec`` counts from; else its
        first event) to its ``k``-th event."""
        start = epoch_seconds(self.run.started_at)
        start = self.times[0] if start is None and self.times else start
        if k <= 0 or start is None or self.times[k - 1] is None:
            return None
        return float(self.times[k - 1]) - float(start)  # type: ignore[arg-type]

    # -- playing -------------------------------------------------------------------------------------
    def play(self, speed: str | None = None) -> asyncio.Task[None]:
        """Play from here (from the start when at the end) on the running loop; returns the task (awaitable)."""
        if speed is not None:
            self.speed.value = speed_named(speed)  # '10x', 10 and 'MAX' too (replayspeed.py)
        self.pause()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise InvalidOptionError("play() runs on the notebook's event loop; call it from a cell (or use seek(k))") from None
        if self.k >= self.total:
            self.seek(0)
        self._task = loop.create_task(self._play())
        if not self.play_button.value:
            self.play_button.value = True
        return self._task

    def pause(self) -> None:
        """Stop playing where it is."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
        if self.play_button.value:
            self.play_button.value = False

    def _toggle(self, on: bool) -> None:
        self.play_button.description = "Pause" if on else "Play"
        self.play_button.icon = "pause" if on else "play"
        if on and (self._task is None or self._task.done()):
            try:
                self.play()
            except InvalidOptionError as exc:
                self.clock.value = refusal_html(esc(str(exc)))
                self.play_button.value = False
        elif not on:
            self.pause()

    async def _play(self) -> None:
        loop, clock = asyncio.get_running_loop(), run_clock(self.times)
        speed, start, began, last = "", 0, 0.0, -1
        while self.k < self.total:
            if self.speed.value != speed or self.k != last:  # (re)started, a new speed, or moved: played from here
                speed, start, began = self.speed.value, self.k, loop.time()
            if speed == "max":  # short frames, and never behind where 10× would be
                step, delay = next_frame(self.times, self.k, "max")
                await asyncio.sleep(delay)
                ten, _ = paced_frame(clock, start, "10×", loop.time() - began)
                self.seek(max(self.k + step, ten))
            else:
                shown, delay = paced_frame(clock, start, speed, loop.time() - began)
                if shown > self.k:
                    self.seek(shown)
                    delay = max(delay, REDRAW_S)  # every event due is shown; redraws stay at most 10 a second
                await asyncio.sleep(delay)
            last = self.k
        self._task = None
        if self.play_button.value:
            self.play_button.value = False

    # -- output ----------------------------------------------------------------------------------------
    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        """The widget, a stable ``text/plain`` line and the escaped ``text/html`` snapshot of the moment shown."""
        data = self.view.mimebundle(widget=False, wait_prices=execution_count() is not None)
        data[_WIDGET] = {"version_major": 2, "version_minor": 0, "model_id": self.model_id}
        status = short(self.view.source.status, 60, exact=True)  # a status another program wrote is any text
        data["text/plain"] = f"ReplayView(status={status!r}, event={self.k}, events={self.total})"
        return data


def count_arg(value: Any, method: str) -> int:
    """A whole number of events or steps for ``seek``/``seek_step`` (a text or a fraction is refused, not rounded)."""
    if type(value) is bool or not isinstance(value, numbers.Integral):
        raise InvalidOptionError(
            f"{method}({quoted(value)}): pass a whole number (how many events or steps to show), e.g. {method}(3)"
        )
    return int(value)
