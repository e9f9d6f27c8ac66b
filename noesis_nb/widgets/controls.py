"""The view's controls for a running episode: a text box with Send (a steer), and Stop with its drain option.

They hold no logic: Send (or Enter in the box) calls ``source.steer(text, sender=…)``, "Stop when calls finish" calls
``source.cancel(drain_s=…)`` and "Stop now" ``source.cancel()``. Both rows show only while the
source can take them (a running episode; a run from disk or a replay has neither).
After a press of Stop or Resume (a view's, a batch's Cancel, an inbox's Resume) the keyboard focus goes to the
line saying what the press did (``PressedLine``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from ..secrets import shown
from .focus import FocusKeeper
from .render import as_label, esc, refusal_html

__all__ = ["SteerInput", "StopControls", "PressedLine", "DRAIN_S"]

DRAIN_S = 10.0  # what the view's "Stop when calls finish" gives the calls already running
SUBMIT_SETTLE_S = 0.5  # Enter in the steer box sends once no update of the box has come for this long


class SteerInput:
    """``[ tell the agent… ] [Send]``: one steer per click on Send or Enter in the box, sent as ``sender``.

    Enter: the box's front end (ipywidgets 8's TextView) sends a ``submit`` message; a blur sends none, so leaving
    the box half typed sends nothing. The value is synced as typed, but the front end holds a keystroke's update back
    while the one before waits for the kernel, and sends the submit at once: the last letters can reach the kernel
    after it. So the send waits until no update of the box has come for ``SUBMIT_SETTLE_S`` (one round trip to the
    page is enough). Enters within that time make one send, which clears the box.

    ``focus``: the view's keeper; a send takes it on the box (Enter) or Send (a click), where the focus is, so that a
    run the steer ends (the redraw hides this row, and the focus fell to the page's body) hands it on to the view's
    line saying how the run ended (:meth:`handed_on`), as a decision does to its card's outcome line."""

    def __init__(
        self,
        source: Any,
        *,
        sender: str,
        say: Callable[[str], None],
        after: Callable[[], None],
        focus: FocusKeeper | None = None,
    ):
        self.source = source
        self.sender = sender
        self._say_to_view, self._after = say, after
        self.said = ""  # what this row last put in the view's message line (a hint, a refusal): gone with the row
        self.focus = focus
        self.text = w.Text(
            description="message to the agent",  # for screen readers only (the stylesheet hides it)
            placeholder="tell the agent… (Enter sends; it hears it at its next step)",
            layout=w.Layout(flex="1 1 auto", width="auto"),
        )
        self.text.add_class("nnb-steer-text")
        self.text.add_class("nnb-named")
        self.text.on_msg(self._on_msg)  # Enter (not on_submit: deprecated, it warns in the user's cell)
        self.text.observe(self._typed, names="value")
        self._submitted: asyncio.TimerHandle | None = None  # an Enter waiting for the box's last update
        self.send_button = w.Button(description="Send", icon="paper-plane", tooltip="send this to the running agent")
        self.send_button.add_class("nnb-btn")
        self.send_button.add_class("nnb-go")
        self.send_button.on_click(lambda _b: self.send(self.send_button))
        self.box = w.HBox([self.text, self.send_button], layout=w.Layout(display="none", width="100%"))
        self.box.add_class("nnb-steer")

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("event") == "submit":
            self._settle()

    def _typed(self, _change: Any) -> None:
        if self._submitted is not None:  # a letter typed before the Enter, arriving after it
            self._settle()

    def _settle(self) -> None:
        if self._submitted is not None:
            self._submitted.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop to wait on (not in a kernel): at once
            self._submitted = None
            self.send()
            return
        self._submitted = loop.call_later(SUBMIT_SETTLE_S, self._submit)

    def _submit(self) -> None:
        self._submitted = None
        self.send()

    def sync(self, source: Any) -> None:
        self.source = source
        self.box.layout.display = None if getattr(source, "can_steer", False) else "none"

    def _say(self, html: str) -> None:
        self.said = html
        self._say_to_view(html)

    def send(self, via: Any = None) -> Any:
        """What Send does: steer the source with the box's text, then clear the box; ``via``: what sent it (Send, or
        the box by default), where the focus is kept."""
        if self._submitted is not None:  # a click on Send after an Enter: one send
            self._submitted.cancel()
            self._submitted = None
        text = self.text.value
        if not text.strip():  # nothing to send: said, as a click that does nothing reads as broken
            self._say('<span class="nnb-muted">type a message for the agent in the box first, then press Enter or Send</span>')
            return None
        try:
            steer = self.source.steer(text, sender=self.sender)
        except Exception as exc:
            self._say(refusal_html(f"could not send: {esc(shown(str(exc)))}"))
            self.text.focus()  # a click on Send left the focus there: back to the text, to correct it
            return None
        self.text.value = ""
        self._say("")
        if self.focus is not None:
            self.focus.move(via if via is not None else self.text)
        self._after()
        return steer

    def handed_on(self, line: PressedLine, said: str) -> None:
        """The run ended: if the focus was kept on this row (a steer was sent from it), ``line`` says ``said`` and
        takes the focus (only soon after the send: :meth:`FocusKeeper.follow`), as the row is hidden."""
        if self.focus is not None and self.focus.target in (self.text, self.send_button):
            line.say(said)
            self.focus.follow(line.line)


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


class PressedLine:
    """The view's line saying what a press of Stop or Resume did, where the keyboard focus goes after the press.

    The press hides the button or re-renders the view's whole output (the run's end), which dropped the focus to the
    page's body. The line is focusable from the kernel only (not by Tab) and read by a screen reader; a
    :class:`FocusKeeper` focuses it again in an output re-rendered soon after the press, never later. ``focus``: the
    view's one keeper (its cards' too), so the last press or click alone says where the focus goes."""

    def __init__(self, focus: FocusKeeper | None = None) -> None:
        self.line = w.Label(tabbable=False, layout=w.Layout(display="none"))  # a Label: an HTML's focus() goes to its content
        self.line.add_class("nnb-pressed")
        self.focus = focus if focus is not None else FocusKeeper()
        self._running: tuple[Any, str] | None = None  # a button whose action runs on (a resume), what its success says

    def pressed(self, button: Any, said: str | None, *, then: str | None = None) -> None:
        """After a press of ``button``: the focus goes back to it if the action failed (``said`` None; the view says
        why), else to this line, which says ``said``. ``then``: the action runs on; :meth:`finished` says how it went."""
        self._running = (button, then) if said is not None and then is not None else None
        if said is None:
            self.focus.move(button)
            return
        self.say(said)
        self.focus.move(self.line)

    def finished(self, failed: bool) -> None:
        """The action pressed has ended: if it failed, the focus goes back to its button (if shown, and only soon after
        the press, see :meth:`FocusKeeper.follow`); else the line says what its success is."""
        if self._running is None:
            return
        (button, then), self._running = self._running, None
        if not failed:
            self.say(then or "")
        elif button.layout.display != "none" and not button.disabled:
            self.say("it failed: the message below says why")
            self.focus.follow(button)

    def say(self, text: str) -> None:
        self.line.value = as_label(text)
        self.line.layout.display = None

    def ended(self, text: str) -> None:
        """The run ended: a line shown after a press says how (``text``), before the output is re-rendered with it."""
        if self.line.layout.display != "none" and self._running is None:
            self.say(text)
