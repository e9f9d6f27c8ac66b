"""Where the keyboard focus goes after a click in a view, sent from the kernel (ipywidgets' ``focus()``).

A decided card hides its buttons and a run's end re-renders the view's whole output (``update_displays``); either
dropped the focus to the page's body, so a keyboard or screen-reader user had to Tab through the notebook again.
A :class:`FocusKeeper` focuses the widget chosen for it and focuses it again when the page shows it anew: the
page counts its views (``_view_count``, which the frontend raises as it displays one), and a higher count is a
re-rendered output. It lets go once a cell runs (the person is elsewhere), after one such re-render, or when the
re-render comes later than ``RESTORE_WITHIN_S`` after the decision: the kernel cannot see where the page's focus
is, and by then a person who clicked with the mouse may be typing in another cell, which the focus must not leave.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["RESTORE_WITHIN_S", "FocusKeeper"]

RESTORE_WITHIN_S = 5.0  # a re-render this soon after the decision is the run's end, not the person's next task


class FocusKeeper:
    """Holds the keyboard focus on one widget of a view, across a re-render of its output, until a cell runs."""

    holding: FocusKeeper | None = None  # the kernel's last keeper to move the focus: one page has one focus

    def __init__(self) -> None:
        self.target: Any = None
        self._shell: Any = None
        self._moved_at = 0.0

    def move(self, widget: Any) -> None:
        """Focus ``widget`` now, and once more when a re-rendered output shows it (until a cell runs)."""
        other = FocusKeeper.holding
        if other is not None and other is not self:  # another view's keeper must not take it back at its re-render
            other.release()
        if widget is not self.target:
            self.release()
            self.target = widget
            widget.observe(self._shown, "_view_count")
            widget._view_count = 0  # the frontend counts the views it displays of it from now on
            self._listen()
        FocusKeeper.holding = self
        self._moved_at = time.monotonic()
        widget.focus()

    def follow(self, widget: Any) -> None:
        """Move the focus on to ``widget`` if the last move was within ``RESTORE_WITHIN_S``, else let go: a draft
        decided elsewhere long after the click must not pull the focus from where the person has gone since."""
        if self.target is not None and time.monotonic() - self._moved_at <= RESTORE_WITHIN_S:
            self.move(widget)
        else:
            self.release()

    def release(self) -> None:
        """Stop keeping the focus (the widget keeps it, if the page has not moved it)."""
        target, self.target = self.target, None
        if FocusKeeper.holding is self:
            FocusKeeper.holding = None
        if target is not None:
            target.unobserve(self._shown, "_view_count")
            if getattr(target, "comm", None) is not None:  # closed widgets send nothing
                target._view_count = None
        if self._shell is not None:
            try:
                self._shell.events.unregister("pre_run_cell", self._cell_runs)
            except ValueError:  # already gone
                pass
            self._shell = None

    def _shown(self, change: dict[str, Any]) -> None:
        """The page displayed a new view of the target (its output was re-rendered): focus it there, once."""
        if change["owner"] is self.target and (change["new"] or 0) > (change["old"] or 0):
            target = self.target
            self.release()
            if time.monotonic() - self._moved_at <= RESTORE_WITHIN_S:
                target.focus()

    def _listen(self) -> None:
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None and self._shell is None:
            shell.events.register("pre_run_cell", self._cell_runs)
            self._shell = shell

    def _cell_runs(self, info: Any = None) -> None:
        self.release()
