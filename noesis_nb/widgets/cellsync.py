"""A notebook executed headless (nbconvert --execute, papermill, nbval) saves every widget its views refer to.

nbclient records a widget only from the messages sent under the cell it is running, and ipykernel sends a message
under the cell whose context sent it. A running episode belongs to the cell that started it, so the step rows it
adds while a later cell runs (``await handle``) went out under the earlier cell and were not saved, while the step
grid, redrawn from the later cell, listed them: the saved view named models the file did not hold, and JupyterLab
drew "widget model not found" in place of the view. At the end of each cell, every widget of a live view that was
not yet re-sent is sent whole, under that cell, once: what the saved grid lists is saved.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

import ipywidgets as w

__all__ = ["keep_saved", "widgets_under"]

_roots: weakref.WeakSet[Any] = weakref.WeakSet()
_sent: set[str] = set()  # model ids already sent whole from a cell (a widget's id is never reused)
_shell: Any = None


def keep_saved(root: Any) -> None:
    """Re-send, at the end of each cell, the widgets of ``root`` not yet sent from a cell (in IPython; else nothing)."""
    global _shell
    _roots.add(root)
    if _shell is None:
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None:
            shell.events.register("post_run_cell", _cell_ran)
            _shell = shell


def widgets_under(root: Any) -> Iterator[Any]:
    """``root`` and every widget its synced traits hold (children, layout, style, ...), each once."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        widget = todo.pop()
        if id(widget) in seen:
            continue
        seen.add(id(widget))
        yield widget
        for name in widget.keys:
            value = getattr(widget, name, None)
            for item in value if isinstance(value, list | tuple) else (value,):
                if isinstance(item, w.Widget):
                    todo.append(item)


def _whole_state(widget: Any) -> list[str]:
    """The keys to send: all but an Output's capture (``msg_id``, ``outputs``), which the page (and nbclient) keeps."""
    if isinstance(widget, w.Output):
        return [key for key in widget.keys if key not in ("msg_id", "outputs")]
    return list(widget.keys)


def _cell_ran(result: Any = None) -> None:
    """The cell's end: send whole, under this cell, each open widget of a live view that was not yet sent."""
    live: set[str] = set()
    for root in list(_roots):
        if getattr(root, "comm", None) is None:  # closed: nothing of it is shown
            _roots.discard(root)
            continue
        for widget in widgets_under(root):
            model_id = widget.model_id if getattr(widget, "comm", None) is not None else None
            if model_id is None:
                continue
            live.add(model_id)
            if model_id not in _sent:
                widget.send_state(_whole_state(widget))
                _sent.add(model_id)
    _sent.intersection_update(live)  # closed widgets are forgotten
