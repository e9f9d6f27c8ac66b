"""The live step tree: one row per step, newest last, a bounded pool of rows reused as the episode grows.

Each row is a toggle and an HTML line, side by side in one two-column grid (no box per row: a
row costs two widgets, and creating them is most of what a row costs). A step someone expanded
keeps its row while newer steps take the others. The toggle's state lives in the kernel, so an expanded
step stays expanded whatever arrives (its own events, other steps); only rows whose text changed
are re-sent, and at most ``capacity`` rows exist in the page whatever the episode's length.
Expanding shows the step's raw events, each of which expands to the whole event.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

import ipywidgets as w
from ipywidgets.widgets.widget_bool import ToggleButtonStyle
from ipywidgets.widgets.widget_string import HTMLStyle

from .keyguard import EXPAND_CLASS
from .steps import Step, StepBook
from .stepview import StepFacts, body_html, step_class, step_title, summary_html
from .timeline import MESSAGE_OVERHEAD

__all__ = ["StepList"]

_SHOW, _HIDE = "show this step's events", "hide this step's events"  # the name of a toggle showing no step yet


def toggle_name(step: Step, expanded: bool) -> str:
    """The toggle's name (its tooltip, which a screen reader reads): what a press does, to which step, e.g.
    ``show the events of step 3 (tool fs.write_file)``; each step's own, so a list of them is not one name repeated."""
    return f"{'hide' if expanded else 'show'} the events of step {step.index + 1} ({step_title(step)})"


class _Row:
    def __init__(self, owner: StepList):
        self.owner = owner
        self.step: Step | None = None
        self.sent = ""
        # no label, an empty icon the stylesheet draws as ▸ (hidden from screen readers): they read the tooltip as its name
        self.toggle = w.ToggleButton(icon="caret-right", tooltip=_SHOW, layout=owner.toggle_layout, style=owner.toggle_style)
        self.toggle.add_class(EXPAND_CLASS)  # the guard says its state as aria-expanded, not aria-pressed
        self.html = w.HTML(layout=owner.html_layout, style=owner.html_style)
        self.toggle.observe(self._toggled, "value")

    def _toggled(self, change: dict[str, object]) -> None:
        step = self.step
        if step is None:
            return
        self.toggle.tooltip = toggle_name(step, bool(change["new"]))
        if change["new"]:
            self.owner.expanded.add(step.index)
        else:
            self.owner.expanded.discard(step.index)
        with self.owner.lock:
            self.owner.draw(self)

    def show(self, step: Step) -> None:
        if self.step is not step:
            self.step = step
            expanded = step.index in self.owner.expanded
            if self.toggle.value != expanded:
                self.toggle.unobserve(self._toggled, "value")
                self.toggle.value = expanded
                self.toggle.observe(self._toggled, "value")
        self.name()

    def name(self) -> None:
        """Name the toggle after the step it shows now (a step's title may grow: its model arrives with its events)."""
        if self.step is not None:
            name = toggle_name(self.step, self.toggle.value)
            if self.toggle.tooltip != name:
                self.toggle.tooltip = name


class StepList:
    """Rows for the newest ``capacity`` steps of a :class:`StepBook`, oldest first."""

    def __init__(self, *, capacity: int = 40, max_height: str = "460px", facts: Callable[[], StepFacts] | None = None):
        self.capacity = capacity
        self.book = StepBook(keep=capacity)
        self.expanded: set[int] = set()
        self.lock = threading.RLock()
        self.facts = facts or StepFacts
        self._facts: StepFacts | None = None
        self.toggle_layout = w.Layout(width="24px", min_width="24px")
        self.html_layout = w.Layout(width="auto", min_width="0")
        self.toggle_style = ToggleButtonStyle()  # shared: one model for every row, not one each
        self.html_style = HTMLStyle()
        self._rows: deque[_Row] = deque()
        self._free: list[_Row] = []  # rows taken off the page by clear(), reused before new ones are made
        self._by_step: dict[int, _Row] = {}
        self.box = w.GridBox(
            [],
            layout=w.Layout(
                grid_template_columns="24px minmax(0, 1fr)",
                align_items="flex-start",
                max_height=max_height,
                overflow="auto",
                width="100%",
            ),
        )
        self.box.add_class("nnb-steps")

    @property
    def shown(self) -> int:
        return len(self._by_step)

    def rows(self) -> list[_Row]:
        return list(self._rows)

    def clear(self) -> None:
        """Forget every step; the rows leave the page and wait, blank, to be reused (a replay's next moment)."""
        self.book = StepBook(keep=self.capacity)
        self.expanded.clear()
        self._by_step.clear()
        for row in self._rows:
            row.step = None
            row.sent = row.html.value = ""
            if row.toggle.value:
                row.toggle.value = False
        self._free.extend(self._rows)
        self._rows.clear()
        if self.box.children:
            self.box.children = ()

    def draw(self, row: _Row, facts: StepFacts | None = None) -> int:
        """Render one row (summary, and the body when expanded); returns the bytes sent (0 when unchanged)."""
        step = row.step
        if step is None:
            value = ""
        else:
            facts = facts or self._facts or self.facts()
            inner = summary_html(step, facts) + (body_html(step) if step.index in self.expanded else "")
            value = f'<div class="{step_class(step, facts)}">{inner}</div>'
        if value == row.sent:
            return 0
        row.name()
        row.sent = row.html.value = value
        return len(value) + MESSAGE_OVERHEAD

    def push(self, changed: list[Step], facts: StepFacts | None = None) -> int:
        """Show these changed steps (from ``book.add``); returns the bytes this put on the wire."""
        if not changed:
            return 0
        self._facts = facts
        low = self.book.steps[0].index if self.book.steps else 0
        sent, reordered = 0, False
        for step in changed:
            row = self._by_step.get(step.index)
            if row is None and step.index < low:  # no longer kept and not on show (an expanded step stays on show)
                continue
            if row is None:
                row, moved = self._row_for(step)
                reordered = reordered or moved
            sent += self.draw(row, facts)
        if reordered:
            self.box.children = tuple(widget for r in self._rows for widget in (r.toggle, r.html))
            sent += MESSAGE_OVERHEAD + 40 * len(self._rows)
        return sent

    def redraw(self, facts: StepFacts | None = None) -> int:
        """Re-render every kept step (e.g. decisions or prices arrived)."""
        with self.lock:
            self._facts = facts or self._facts
            return sum(self.draw(row, facts) for row in self._rows)

    def _row_for(self, step: Step) -> tuple[_Row, bool]:
        if len(self._rows) < self.capacity:
            row = self._free.pop() if self._free else _Row(self)
            self._rows.append(row)
        else:  # the oldest row not expanded shows the newest step now: an expanded step stays on show
            row = next((r for r in self._rows if r.step is None or r.step.index not in self.expanded), self._rows[0])
            self._rows.remove(row)
            if row.step is not None:
                self._by_step.pop(row.step.index, None)
                self.expanded.discard(row.step.index)
            self._rows.append(row)
        row.show(step)
        self._by_step[step.index] = row
        return row, True

    def widgets(self) -> list[w.Widget]:
        """Every row widget, on the page or waiting to be reused."""
        return [widget for r in (*self._rows, *self._free) for widget in (r.toggle, r.html)]
