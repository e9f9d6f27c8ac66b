"""The view's controls for a running episode: a text box with Send (a steer), and Stop with its drain option.

They hold no logic: Send calls ``source.steer(text, sender=…)``, "Stop when calls finish" calls
``source.cancel(drain_s=…)`` and "Stop now" ``source.cancel()``. Both rows show only while the
source can take them (a running episode; a run from disk or a replay has neither).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as w

from ..secrets import shown
from .render import esc

__all__ = ["SteerInput", "StopControls", "DRAIN_S"]

DRAIN_S = 10.0  # what the view's "Stop when calls finish" gives the calls already running


class SteerInput:
    """``[ tell the agent… ] [Send]``: one steer per click, sent as ``sender``."""

    def __init__(self, source: Any, *, sender: str, say: Callable[[str], None], after: Callable[[], None]):
        self.source = source
        self.sender = sender
        self._say, self._after = say, after
        self.text = w.Text(
            description="message to the agent",  # for screen readers only (the stylesheet hides it)
            placeholder="tell the agent… (it hears it at its next step)",
            layout=w.Layout(flex="1 1 auto", width="auto"),
        )
        self.text.add_class("nnb-steer-text")
        self.text.add_class("nnb-named")
        self.send_button = w.Button(description="Send", icon="paper-plane", tooltip="send this to the running agent")
        self.send_button.add_class("nnb-btn")
        self.send_button.add_class("nnb-go")
        self.send_button.on_click(lambda _b: self.send())
        self.box = w.HBox([self.text, self.send_button], layout=w.Layout(display="none", width="100%"))
        self.box.add_class("nnb-steer")

    def sync(self, source: Any) -> None:
        self.source = source
        self.box.layout.display = None if getattr(source, "can_steer", False) else "none"

    def send(self) -> Any:
        """What Send does: steer the source with the box's text, then clear the box."""
        text = self.text.value
        if not text.strip():  # nothing to send: said, as a click that does nothing reads as broken
            self._say('<span class="nnb-muted">type a message for the agent in the box first, then Send</span>')
            return None
        try:
            steer = self.source.steer(text, sender=self.sender)
        except Exception as exc:
            self._say(f'<span class="nnb-c-red">could not send: {esc(shown(str(exc)))}</span>')
            return None
        self.text.value = ""
        self._say("")
        self._after()
        return steer


class StopControls:
    """Stop (now) and "Stop when calls finish (≤ N s)"; while a drain runs, only "Stop now" is left."""

    def __init__(self, stop: Callable[[float | None], None], drain_s: float = DRAIN_S):
        self.drain_s = drain_s
        self.stop_button = w.Button(description="Stop", icon="stop", tooltip="cancel now (it ends 'cancelled', sealed)")
        self.stop_button.on_click(lambda _b: stop(None))
        self.drain_button = w.Button(
            description=f"Stop when calls finish (≤ {drain_s:g} s)",
            icon="hourglass-half",
            tooltip="nothing new starts; calls already running may finish and are recorded; then it ends 'cancelled'",
            layout=w.Layout(width="auto"),
        )
        self.drain_button.on_click(lambda _b: stop(drain_s))
        for button in (self.stop_button, self.drain_button):
            button.add_class("nnb-btn")

    def sync(self, source: Any, ended: bool) -> None:
        cancellable = bool(source.can_cancel) and not ended
        draining = bool(getattr(source, "draining", False))
        self.stop_button.disabled = not cancellable
        self.stop_button.layout.display = None if cancellable else "none"
        self.stop_button.description = "Stop now" if draining else "Stop"
        self.drain_button.layout.display = None if cancellable and not draining and hasattr(source, "draining") else "none"
