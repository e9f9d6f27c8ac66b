"""What a widget of noesis_nb puts in a notebook (episode view, inbox, batch grid): the widget, a stable
``text/plain`` line and an escaped ``text/html`` snapshot, displayed once per cell with a display id
(updated in place later)."""

from __future__ import annotations

from typing import Any

__all__ = ["SnapshotOutput", "css_widget", "execution_count"]

_MIME_WIDGET = "application/vnd.jupyter.widget-view+json"


def css_widget(extra_html: str = "") -> Any:
    """The view's stylesheet as its first widget (plus ``extra_html``, hidden until its rule shows it): no margins, so
    it leaves no gap above the view's first line."""
    import ipywidgets as w

    from .render import live_css

    widget = w.HTML(live_css() + extra_html)
    widget.add_class("nnb-css")
    return widget


class SnapshotOutput:
    """A mixin for an ipywidgets box with ``flush()``, ``text_summary()`` and ``snapshot_html()``."""

    model_id: str
    displays: list[Any]
    _displayed_in: int | None = None

    def flush(self) -> None:
        raise NotImplementedError

    def _shown_here(self) -> None:
        """Called as the running cell displays this widget (before its bundle is made)."""

    def text_summary(self) -> str:
        raise NotImplementedError

    def snapshot_html(self) -> str:
        raise NotImplementedError

    def mimebundle(self, include: Any = None, exclude: Any = None, *, widget: bool = True) -> dict[str, Any]:
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
        """The bundle; only the ``text/plain`` line if this cell already displayed it (never shown twice)."""
        count = execution_count()
        if count is not None and self._displayed_in == count:
            self.flush()
            return {"text/plain": self.text_summary()}
        self._shown_here()
        return self.mimebundle(include, exclude)

    def _ipython_display_(self) -> None:
        count = execution_count()
        if count is not None and self._displayed_in == count:
            return
        self.display()

    def display(self) -> Any:
        """Display with a display id (IPython) and remember it; returns the ``DisplayHandle``."""
        from IPython.core.interactiveshell import InteractiveShell
        from IPython.display import display

        if not InteractiveShell.initialized():  # a script: IPython's display would print the raw bundle (a dict)
            print(self.text_summary())
            return None
        self._shown_here()
        display_id = display(self.mimebundle(), raw=True, display_id=True)  # type: ignore[no-untyped-call]
        if display_id is not None:
            self.displays.append(display_id)
        self._displayed_in = execution_count()
        return display_id

    def update_displays(self, **options: Any) -> None:
        """Re-send the bundle to every display (so a saved notebook keeps the state at this cell's end);
        ``options`` go to ``mimebundle``."""
        if not self.displays:
            return
        bundle = self.mimebundle(**options)
        for handle in self.displays:
            handle.update(bundle, raw=True)


def execution_count() -> int | None:
    """The running cell's execution count (None outside IPython)."""
    from IPython import get_ipython

    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None
