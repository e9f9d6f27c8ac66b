"""Pausing an episode: ``EpisodePaused`` unwinds it when nobody waits here; ``PauseTurns`` keeps one pause at a time.

Noēsis resumes only a paused run and reads one ``pending_approval`` draft in it, so the run pauses on one tool draft
at a time: parallel tool calls (``asyncio.gather`` of ``ctx.tool_async``) that need approval take turns. A draft
asked while a pause is open is written held (``tools.awaiting``) and waits for its turn; it may be decided meanwhile
(its decision file is written at once), and when its turn comes it pauses on its own, the decision maybe on disk
already. Policy-decided approvals take turns too: their pause is written whole between two others. A paused draft
whose call the adapter gives up (``asyncio.wait_for``, ``task.cancel()``) is recorded abandoned and its pause resumed,
saying so: the next draft held behind it pauses then (``runtime.context``).
"""

from __future__ import annotations

import asyncio
from collections import deque

__all__ = ["EpisodePaused", "PauseTurns"]


class EpisodePaused(BaseException):
    """Unwinds the adapter when the episode pauses and nobody waits in this process (``solve``).

    A ``BaseException`` so that an adapter's ``except Exception`` does not swallow it.
    """


class PauseTurns:
    """The order in which an episode's tool drafts pause, one at a time (used on the episode's loop only)."""

    def __init__(self) -> None:
        self._holder: asyncio.Future[None] | None = None
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._kept: asyncio.Future[None] | None = None

    def reserve(self, loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
        """A turn: done at once when no pause is open or waiting (the draft pauses now), else done when its turn comes
        (the draft is held until then). Give it back with ``release``."""
        turn: asyncio.Future[None] = loop.create_future()
        if self._holder is None and not self._waiting:
            self._holder = turn
            turn.set_result(None)
        else:
            self._waiting.append(turn)
        return turn

    def keep(self, turn: asyncio.Future[None]) -> None:
        """The call of ``turn`` (the holder) was cancelled with the episode (its loop going away, a stop) while its
        pause is open on disk and undecided: the run stays paused on its draft (for resume_run), and the drafts waiting
        stay held behind it (decidable) instead of pausing on top."""
        if turn is self._holder:
            self._kept = turn

    def kept(self, turn: asyncio.Future[None]) -> bool:
        """Whether ``turn``'s pause stays open on disk after its call gave up (``keep``)."""
        return turn is self._kept

    def release(self, turn: asyncio.Future[None]) -> None:
        """The pause of ``turn`` resumed (or its draft gave up): the next draft waiting, if any, pauses now."""
        if turn is self._kept:  # its pause is still open on disk: nothing pauses on top of it
            return
        if turn is not self._holder:
            if turn in self._waiting:
                self._waiting.remove(turn)
            if not turn.done():
                turn.cancel()
            return
        self._holder = None
        while self._waiting:
            nxt = self._waiting.popleft()
            if not nxt.done():  # a waiter cancelled meanwhile is skipped
                self._holder = nxt
                nxt.set_result(None)
                return

    def cancel_waiting(self) -> None:
        """The episode ended paused: every draft still waiting for its turn stays held on disk, its call cancelled."""
        while self._waiting:
            nxt = self._waiting.popleft()
            if not nxt.done():
                nxt.cancel()

    def unwind(self) -> None:
        """``solve`` unwinds to a pause just written: every draft still waiting for its turn wakes (and, seeing the
        pause on disk, stays held for resume_run)."""
        while self._waiting:
            nxt = self._waiting.popleft()
            if not nxt.done():
                nxt.set_result(None)
