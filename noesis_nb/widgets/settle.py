"""The view's "Settle lost run" button: what ``noesis_nb.resume_run('<id>')`` does for a run whose process died.

A lost run (its files say running, nobody holds its lock) is settled by resuming it from its directory: a run
stopped at a tool draft it can continue goes on from there (a decided draft runs once and the run is sealed; a
pause cut short is completed and waits for its decision); any other is sealed ``error`` (``process_lost``). The
click starts that as a task on the kernel's running loop and returns at once (a click handler that waited would
block every other click and redraw); the button is disabled until the task ends, the outcome or the refusal is
one line under the header, and the run is read again so the view shows the state it was left in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w

from .._safetext import error_text, type_name
from ..runtime.resume import resume_from_disk
from ..secrets import quoted
from .render import esc, short

__all__ = ["SettleButton"]

LABEL = "Settle lost run"


class SettleButton:
    """Shown while the source reads ``lost``; one click resumes the run from disk as ``resume_run`` does."""

    def __init__(self, *, after: Callable[[], None]):
        self._after = after
        self.source: Any = None
        self.task: asyncio.Task[None] | None = None  # kept: the loop holds tasks only weakly
        self.note = ""  # the last outcome, as one line of HTML (the view shows it under the header)
        self.button = w.Button(description=LABEL, icon="wrench", layout=w.Layout(display="none"))
        self.button.add_class("nnb-btn")
        self.button.add_class("nnb-go")
        self.button.on_click(lambda _b: self.click())

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def sync(self, source: Any) -> None:
        """Show the button while ``source`` is lost (or being settled here), disabled while it is."""
        self.source = source
        # a run whose folder is gone reads lost too, but nothing is left there to settle (its hint says so)
        lost = str(getattr(source, "status", "")) == "lost" and not getattr(source, "gone", False)
        self.button.layout.display = None if lost or self.running else "none"
        self.button.disabled = self.running
        if lost:
            self.button.tooltip = (
                f"does what noesis_nb.resume_run({quoted(source.episode_id)}) does: continues the run from the tool "
                "draft it stopped at if it can, else seals it error (process_lost)"
            )

    def click(self) -> asyncio.Task[None] | None:
        """Start settling the run (a task on the running loop); without a running loop (a script), settle it now."""
        source = self.source
        if self.running or source is None or str(getattr(source, "status", "")) != "lost" or getattr(source, "gone", False):
            return None
        self.button.disabled = True
        self.note = f'<div class="nnb-msg nnb-muted">settling run {esc(short(source.episode_id, 80))}…</div>'
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self._settle(source))
            return None
        self.task = loop.create_task(self._settle(source), name=f"noesis_nb:settle:{source.episode_id}")
        self._after()
        return self.task

    async def _settle(self, source: Any) -> None:
        try:
            report = await resume_from_disk(Path(source.run_dir), using=getattr(source, "adapter", None))
        except Exception as exc:  # a refusal (a draft to decide, an outcome to check): one line, never a traceback
            said = short(f"could not settle run {source.episode_id}: {type_name(exc)}: {error_text(exc, 600)}", 600)
            self.note = f'<div class="nnb-msg nnb-c-red">{esc(said)}</div>'
        else:
            said = report.message or f"run {source.episode_id} continued from where it stopped, as resume_run does"
            self.note = f'<div class="nnb-msg nnb-muted">{esc(short(said, 600))}</div>'
        finally:
            self.button.disabled = False
            refresh = getattr(source, "refresh", None)
            if callable(refresh):
                refresh()  # the view follows the run to the state it was left in
            self._after()
