"""What a view puts in a notebook: its bundle (widget, stable ``text/plain``, escaped ``text/html``
snapshot) and the outputs that show it, updated in place by display id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .facts import veto_of
from .snapshot import snapshot_html, text_summary
from .state import TERMINAL, CostMeter, Tally, view_state

__all__ = ["ViewOutput", "execution_count"]

_MIME_WIDGET = "application/vnd.jupyter.widget-view+json"


class ViewOutput:
    """The static side of ``EpisodeView`` (a mixin: it uses the view's source, tally, steps and locks)."""

    # provided by EpisodeView
    source: Any
    displays: list[Any]
    _displayed_in: int | None
    model_id: str
    steps: Any
    _flush_lock: Any
    _tally: Tally
    _meter: CostMeter
    _veto_step: Any
    flush: Callable[[], None]
    _facts: Callable[..., Any]

    # -- static output ------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What the snapshot shows: the header, cards, the kept steps with what their summaries need."""
        with self._flush_lock, self.steps.lock:
            state = view_state(self.source, self._tally, meter=self._meter)
            veto = veto_of(self._veto_step, self.source.run_dir) if self._veto_step is not None else None
            book = self.steps.book
            state.update(
                steps=list(book.steps), hidden_steps=book.total - len(book.steps), facts=self._facts(state, veto), veto=veto
            )
            return state

    def text_summary(self) -> str:
        kind = self.source.summary_kind
        status = self.source.status
        pending = [] if status in TERMINAL else self.source.pending
        return text_summary(kind, status, self._tally.total, len(pending))

    def snapshot_html(self) -> str:
        return snapshot_html(self.state())

    def mimebundle(
        self, include: Any = None, exclude: Any = None, *, widget: bool = True, wait_prices: bool = True
    ) -> dict[str, Any]:
        """``widget-view+json`` (unless ``widget=False``), stable ``text/plain``, escaped ``text/html`` snapshot.

        ``wait_prices``: block (up to 10 s) until the price source has loaded, so the snapshot has a
        cost. Only cell-driven calls may wait; a background redraw on the kernel loop passes False."""
        if wait_prices and self.source.usage_calls:
            CostMeter.wait()
        self.flush()
        data: dict[str, Any] = {"text/plain": self.text_summary(), "text/html": self.snapshot_html()}
        if widget:
            data[_MIME_WIDGET] = {"version_major": 2, "version_minor": 0, "model_id": self.model_id}
        if include:
            data = {k: v for k, v in data.items() if k in include}
        if exclude:
            data = {k: v for k, v in data.items() if k not in exclude}
        return data

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        """The bundle; only the ``text/plain`` line if this cell already displayed the view (no double view)."""
        count = execution_count()
        if count is not None and self._displayed_in == count:
            self.flush()
            return {"text/plain": self.text_summary()}
        return self.mimebundle(include, exclude)

    def _ipython_display_(self) -> None:
        """Display once per cell, with a display id, so ``refresh_display`` later updates this very output."""
        count = execution_count()
        if count is not None and self._displayed_in == count:
            return
        self.display()

    def display(self) -> Any:
        """Display this view with a display id (IPython) and remember it; returns the ``DisplayHandle``."""
        from IPython.display import display

        # IPython's display() has no annotations
        display_id = display(self.mimebundle(), raw=True, display_id=True)  # type: ignore[no-untyped-call]
        if display_id is not None:  # None outside IPython: nothing to update later
            self.displays.append(display_id)
        self._displayed_in = execution_count()
        return display_id

    def update_displays(self, *, wait_prices: bool = True) -> None:
        """Re-send the bundle to every display of this view (so a saved notebook holds the final snapshot)."""
        if not self.displays:
            return
        bundle = self.mimebundle(wait_prices=wait_prices)
        for handle in self.displays:
            handle.update(bundle, raw=True)


def execution_count() -> int | None:
    """The running cell's execution count (None outside IPython)."""
    from IPython import get_ipython

    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None
