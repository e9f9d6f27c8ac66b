"""The live timeline: a fixed pool of HTML blocks, newest first, so the DOM and the traffic stay bounded.

Rows go into the newest ("tail") block; a full tail is sealed and the oldest block is reused
as the new tail. Only changed blocks are re-sent, sealed rows keep their expanded state, and
at most ``blocks * block_rows`` rows exist in the page whatever the episode's length.
"""

from __future__ import annotations

from collections import deque

import ipywidgets as w
from ipywidgets.widgets.widget_string import HTMLStyle

from .render import block_html

__all__ = ["Timeline", "MESSAGE_OVERHEAD"]

MESSAGE_OVERHEAD = 700  # bytes of header, parent header and metadata around each comm message


class Timeline:
    def __init__(self, *, blocks: int = 5, block_rows: int = 10, max_height: str = "420px"):
        self.block_rows = block_rows
        layout = w.Layout(width="100%", flex="0 0 auto")  # never squeezed by the scroll box
        style = HTMLStyle()
        self._slots: deque[tuple[w.HTML, list[str]]] = deque((w.HTML(layout=layout, style=style), []) for _ in range(blocks))
        self.box = w.VBox([s[0] for s in self._slots], layout=w.Layout(max_height=max_height, overflow="auto", width="100%"))

    @property
    def capacity(self) -> int:
        return len(self._slots) * self.block_rows

    @property
    def shown(self) -> int:
        return sum(len(rows) for _, rows in self._slots)

    def push(self, rows: list[str]) -> int:
        """Append rendered rows (oldest first); re-send only the blocks that changed.

        Returns the approximate bytes this puts on the wire (values plus ~700 bytes of message headers each).
        """
        if not rows:
            return 0
        rows = rows[-self.capacity :]
        dirty: dict[int, tuple[w.HTML, list[str]]] = {}
        rotated = False
        for row in rows:
            if len(self._slots[0][1]) >= self.block_rows:
                widget, old = self._slots.pop()
                old.clear()
                self._slots.appendleft((widget, old))
                rotated = True
            widget, tail = self._slots[0]
            tail.append(row)
            dirty[id(widget)] = (widget, tail)
        sent = 0
        for widget, rows_ in dirty.values():
            widget.value = block_html(reversed(rows_))
            sent += len(widget.value) + MESSAGE_OVERHEAD
        if rotated:
            self.box.children = tuple(s[0] for s in self._slots)
        return sent

    def clear(self) -> None:
        for widget, rows in self._slots:
            rows.clear()
            widget.value = ""

    def widgets(self) -> list[w.Widget]:
        return [s[0] for s in self._slots]
