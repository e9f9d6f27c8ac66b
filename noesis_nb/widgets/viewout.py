"""What a view puts in a notebook: its bundle (widget, stable ``text/plain``, escaped ``text/html``
snapshot) and the outputs that show it, updated in place by display id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .bundle import SnapshotOutput
from .facts import veto_of
from .snapshot import snapshot_html, text_summary
from .state import TERMINAL, CostMeter, Tally, view_state

__all__ = ["ViewOutput"]


class ViewOutput(SnapshotOutput):
    """The static side of ``EpisodeView`` (a mixin: it uses the view's source, tally, steps and locks)."""

    # provided by EpisodeView
    source: Any
    steps: Any
    _flush_lock: Any
    _tally: Tally
    _meter: CostMeter
    _veto_step: Any
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
        return super().mimebundle(include, exclude, widget=widget)
