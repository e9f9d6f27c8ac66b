"""``EpisodeHandle``: the notebook's grip on a running episode.

``await handle`` returns once the episode has finished **or is paused waiting for a human**:
a widget click is not processed while any cell runs, so awaiting a click would deadlock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EpisodeStateError
from ..store.vocab import TERMINAL_STATUSES, failed
from .gate import Decision, PendingApproval
from .presenter import presenter

if TYPE_CHECKING:
    from .episode import Episode

__all__ = ["EpisodeHandle"]

TERMINAL = TERMINAL_STATUSES


class EpisodeHandle:
    """A running or finished episode: status, pending approvals, decisions, result, events (a ``RunSource``)."""

    summary_kind = "EpisodeHandle"
    last_error: str | None = None  # a live episode reports through its status, result() and problems
    following: str | None = None
    hint: str | None = None  # a live episode needs nothing from a person beyond its cards
    can_resume = False  # a live episode continues by itself once decided
    resuming = False

    def __init__(self, episode: Episode, task: asyncio.Future[Any] | None = None):
        self._episode = episode
        self._task = task

    # -- what it is -----------------------------------------------------------------------
    @property
    def episode_id(self) -> str:
        return self._episode.recorder.episode_id

    @property
    def run_dir(self) -> Path:
        return self._episode.recorder.run_dir

    @property
    def task(self) -> str:
        return self._episode.options.task

    @property
    def using(self) -> str:
        return self._episode.adapter.label if self._episode.adapter else "core.minimal"

    @property
    def status(self) -> str:
        """``running``, ``paused``, ``ok``, ``error``, ``vetoed`` or ``cancelled``."""
        return self._episode.status

    @property
    def started_at(self) -> float:
        return self._episode.started_at

    @property
    def ended_at(self) -> float | None:
        return self._episode.ended_at

    @property
    def score(self) -> float | bool | None:
        """What ``score=`` said of the result (also ``summary.metrics.score``); None when unscored."""
        return self._episode.score

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._episode.loop

    @property
    def pending(self) -> list[PendingApproval]:
        """Tool drafts waiting for a human decision."""
        return self._episode.gate.pending

    @property
    def paused_on_veto(self) -> bool:
        return self._episode._veto_future is not None

    @property
    def problems(self) -> list[str]:
        """What went wrong around the episode without ending it (e.g. a malformed decision file another program wrote)."""
        return list(self._episode.problems)

    @property
    def decisions(self) -> list[dict[str, Any]]:
        return list(self._episode.gate.decisions)

    @property
    def events(self) -> list[dict[str, Any]]:
        """The events so far (a copy)."""
        return list(self._episode.recorder.events)

    @property
    def usage(self) -> dict[str, int]:
        return dict(self._episode.recorder.usage)

    @property
    def usage_calls(self) -> list[dict[str, Any]]:
        return list(self._episode.recorder.usage_calls)

    # -- watching -------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback(event)`` for each new event (from any thread: keep it cheap). Returns an unsubscribe."""
        return self._episode.recorder.subscribe(callback)

    def on_change(self, callback: Callable[[EpisodeHandle], None]) -> Callable[[], None]:
        """Call ``callback(handle)`` when status or pending approvals change. Returns an unsubscribe."""

        def listener(_episode: Any) -> None:
            callback(self)

        self._episode.listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._episode.listeners:
                self._episode.listeners.remove(listener)

        return unsubscribe

    # -- deciding -------------------------------------------------------------------------
    def approve(self, draft_id: str | None = None, *, approver_id: str = "human", reason: str | None = None) -> Decision:
        """Approve a pending draft (the only one when ``draft_id`` is None); persisted before the episode continues.

        With no draft pending but a governance veto paused, approving overrides the veto.
        """
        return self._decide(draft_id, True, approver_id, reason)

    def reject(self, draft_id: str | None = None, *, reason: str | None = None, approver_id: str = "human") -> Decision:
        """Reject a pending draft; the adapter sees ``ToolRejected`` with the reason (or uphold a paused veto)."""
        return self._decide(draft_id, False, approver_id, reason)

    def _decide(self, draft_id: str | None, approve: bool, approver_id: str, reason: str | None) -> Decision:
        episode = self._episode
        if not episode.gate.pending and episode.decide_veto(approve, approver_id, reason):
            decision = Decision(
                draft_id="",
                status="approved" if approve else "rejected",
                approver_id=approver_id,
                reason=reason,
                decided_at=None,
                created=True,
            )
        else:
            decision = episode.gate.decide(draft_id, approve=approve, approver_id=approver_id, reason=reason)
        if decision.created:
            episode.continue_after_decision()
        episode.notify()
        return decision

    @property
    def can_cancel(self) -> bool:
        return self._task is not None and not self.done()

    def resume(self) -> None:
        """A live episode resumes by itself once its draft is decided: nothing to do (``RunSource``)."""
        return None

    def cancel(self) -> bool:
        """Stop the episode: it ends ``cancelled`` and sealed. Safe from any thread."""
        if self.done() or self._task is None:
            return False
        self._episode.cancel_requested = True
        loop = self._episode.loop
        if loop is None or loop.is_closed():
            return False
        loop.call_soon_threadsafe(self._task.cancel)
        return True

    # -- outcome --------------------------------------------------------------------------
    def done(self) -> bool:
        return self.status in TERMINAL

    def result(self) -> Any:
        """The adapter's output; raises the adapter's error, ``NoesisVeto``, or ``CancelledError`` instead."""
        status = self.status
        if status == "ok":
            return self._episode.result
        if failed(status) and self._episode.error is not None:
            raise self._episode.error
        if status == "paused":
            waiting = ", ".join(p.draft_id for p in self.pending) or "a governance veto"
            raise EpisodeStateError(
                f"episode {self.episode_id} is paused waiting for a human ({waiting}); approve or reject first"
            )
        raise EpisodeStateError(f"episode {self.episode_id} is still {status}; `await handle` or check handle.done()")

    def __await__(self) -> Generator[Any, None, EpisodeHandle]:
        return self._settle().__await__()

    async def _settle(self) -> EpisodeHandle:
        await self.settled()
        self.refresh_display()
        return self

    async def settled(self) -> EpisodeHandle:
        """Wait until finished or paused for a human, as ``await handle`` does, but without drawing any view
        (for code that runs many episodes: a batch must not create a view per episode)."""
        if self._episode.status == "running":
            await asyncio.shield(self._episode.settled.wait())
        return self

    async def wait(self) -> EpisodeHandle:
        """Wait until finished (not merely paused). Never use this in a notebook cell while a human must click."""
        while not self.done():
            await asyncio.shield(self._episode.settled.wait())
            if not self.done():
                await asyncio.sleep(0.05)
        return self

    # -- display ----------------------------------------------------------------------------
    def refresh_display(self) -> None:
        """Re-render the displayed view so a saved notebook keeps the final state (nbclient/nbval)."""
        shown = presenter(load=False)  # a view never shown needs no refresh (and no widgets imported)
        if shown is not None:
            shown.refresh(self)

    def _ipython_display_(self) -> None:
        """In IPython, show the live view with a display id, so ``await handle`` updates it in place."""
        shown = presenter()
        if shown is None:
            print(repr(self))
        else:
            shown.display(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        shown = presenter()
        return shown.mimebundle(self, include, exclude) if shown is not None else {"text/plain": repr(self)}

    def __repr__(self) -> str:
        events = len(self._episode.recorder.events)
        return (
            f"EpisodeHandle(episode_id={self.episode_id!r}, status={self.status!r}, events={events}, pending={len(self.pending)})"
        )
