"""``EpisodeHandle``: the notebook's grip on a running episode.

``await handle`` returns once the episode has finished **or is paused waiting for a human**:
a widget click is not processed while any cell runs, so awaiting a click would deadlock.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._envvars import approver_id_from_env
from .._unstarted import awaited_entry, plain_callback
from ..errors import DraftNotFoundError, EpisodeCancelled, EpisodeStateError, InvalidOptionError, UnsupportedFeatureError
from ..secrets import redact_exception, shown_cut
from ..secrets.quoted import quoted
from ..store.vocab import TERMINAL_STATUSES, failed
from .drain import DrainReport
from .gate import Decision, PendingApproval, check_decision_options, tell_if_overruled
from .interrupt import interrupted, watch_interrupts
from .presenter import presenter
from .resume_paths import Stopped, check_live_seal_targets
from .steer import Steer, check_sender, check_steer

if TYPE_CHECKING:
    from .episode import Episode

__all__ = ["EpisodeHandle", "drain_seconds"]

TERMINAL = TERMINAL_STATUSES


def drain_seconds(drain_s: object) -> float | None:
    """``drain_s`` as seconds, or one clear error: nan and inf waited on the calls however long (and were recorded
    as null), and an int too large for a float (10**400) escaped as an OverflowError."""
    if drain_s is None:
        return None
    seconds = math.nan
    if isinstance(drain_s, (int, float)) and not isinstance(drain_s, bool):
        try:
            seconds = float(drain_s)
        except (OverflowError, ValueError, TypeError):
            pass
    if not 0 <= seconds < math.inf:
        given = _shown_number(drain_s)
        raise InvalidOptionError(
            f"drain_s={given}: give the seconds running calls may take to finish (a finite number ≥ 0), or None"
        )
    return seconds


def _shown_number(value: object) -> str:
    """``value`` for an error message, cut and redacted; an int past Python's digit limit cannot be repr()'d."""
    if isinstance(value, str):
        return quoted(value, 60)
    try:
        text = repr(value)
    except ValueError:
        return f"<an int of {value.bit_length():,} bits>" if isinstance(value, int) else f"<a {type(value).__name__}>"
    return text if len(text) <= 60 else f"{shown_cut(text, 59)}… ({len(text):,} characters)"


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
        self._shown_error: tuple[BaseException, BaseException] | None = None  # (the error, as it is shown)
        self._shown_lock = threading.Lock()  # two threads reading ``error`` at once get the same object

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
    def score_error(self) -> str | None:
        """Why ``score=`` gave no score (it raised, returned no number, or took longer than ``score_timeout_s``)."""
        return self._episode.score_error

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._episode.loop

    @property
    def pending(self) -> list[PendingApproval]:
        """Tool drafts waiting for a human decision."""
        return self._episode.gate.pending

    @property
    def ended_paused(self) -> bool:
        """True when the episode has ended with its run paused on disk (its adapter went on without the decision it
        asked for): a decision is still written (``approve``, ``reject``), and ``resume_run`` continues the run."""
        return self._episode.ended_paused

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
    def event_count(self) -> int:
        """How many events so far (no copy: cheap to poll)."""
        return len(self._episode.recorder.events)

    @property
    def usage(self) -> dict[str, Any]:
        """``model_calls`` and the token totals so far: each an int when every call reported it (0 before the first
        call), None when any did not, as in the summary's ``x-noesis_nb.usage``."""
        return dict(self._episode.recorder.usage)

    @property
    def usage_calls(self) -> list[dict[str, Any]]:
        """One row per model call so far, each a copy (the recorder's rows feed the summary it will write)."""
        return [dict(row) for row in self._episode.recorder.usage_calls]

    # -- watching -------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback(event)`` for each new event (from any thread: keep it cheap). Returns an unsubscribe."""
        reported = _reporting(plain_callback(callback, "handle.subscribe"), "handle.subscribe", self._episode)
        reported._noesis_nb_subscribed = callback  # type: ignore[attr-defined]  # one unsubscribe removes it however often given
        return self._episode.recorder.subscribe(reported)

    def on_change(self, callback: Callable[[EpisodeHandle], None]) -> Callable[[], None]:
        """Call ``callback(handle)`` when status or pending approvals change. Returns an unsubscribe."""
        plain = plain_callback(callback, "handle.on_change")
        listener = _reporting(plain, "handle.on_change", self._episode, given=self)
        self._episode.listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._episode.listeners:
                self._episode.listeners.remove(listener)

        return unsubscribe

    # -- deciding -------------------------------------------------------------------------
    def approve(self, draft_id: str | None = None, *, approver_id: str | None = None, reason: str | None = None) -> Decision:
        """Approve a pending draft (the only one when ``draft_id`` is None); persisted before the episode continues.

        With no draft pending but a governance veto paused, approving overrides the veto. ``approver_id``: who
        decides; by default ``$NOESIS_NB_APPROVER_ID``, else ``"human"`` (as ``approve_draft`` and the buttons).
        """
        return tell_if_overruled(self._decide(draft_id, True, approver_id, reason), True, stacklevel=2)

    def reject(self, draft_id: str | None = None, *, reason: str | None = None, approver_id: str | None = None) -> Decision:
        """Reject a pending draft; the adapter sees ``ToolRejected`` with the reason (or uphold a paused veto).
        ``approver_id`` defaults as ``approve``'s does."""
        return tell_if_overruled(self._decide(draft_id, False, approver_id, reason), False, stacklevel=2)

    def _decide(self, draft_id: str | None, approve: bool, approver_id: str | None, reason: str | None) -> Decision:
        episode = self._episode
        approver_id = approver_id_from_env(approver_id)
        check_decision_options(draft_id, approver_id, reason)  # the caller's options first, as approve_draft does
        episode.recorder.check_owner("handle.approve()" if approve else "handle.reject()")
        verb = "approve" if approve else "reject"
        # a run removed or moved away (RunGoneError), or a link planted where its seal writes while it waited, is
        # named now, before the decision sets the tool going, not after its effect by a seal that cannot be written
        check_live_seal_targets(episode.recorder, Stopped(f"handle.{verb}()", f"decide again (handle.{verb}() or its button)"))
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
            try:
                decision = episode.gate.decide(draft_id, approve=approve, approver_id=approver_id, reason=reason)
            except DraftNotFoundError as exc:
                if draft_id is not None or episode.gate.pending:
                    raise
                now = (
                    f"episode {self.episode_id} has ended ({self.status})"
                    if self.done()
                    else f"episode {self.episode_id} is {self.status}: decide once it pauses for a tool (status "
                    "'paused'); `await` the handle to wait for that, or click in its view"
                )
                raise DraftNotFoundError(f"{exc}; {now}") from None
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

    # -- steering -------------------------------------------------------------------------
    @property
    def can_steer(self) -> bool:
        """True while the episode runs and is not stopping, and its adapter takes steers: a steer would reach it."""
        return (
            self.status == "running" and self._episode.drain is None and self._task is not None and self._steer_refusal() is None
        )

    def _steer_refusal(self) -> str | None:
        """Why the episode's adapter takes no steers at all (its ``steer_refusal``), or None when it may take them."""
        refusal = getattr(getattr(self._episode.adapter, "target", None), "steer_refusal", None)
        return refusal if isinstance(refusal, str) and refusal else None

    def steer(self, text: str, *, mode: str = "next-item", sender: str | None = None) -> Steer:
        """Tell the running agent ``text``; its adapter takes it with ``ctx.steers()`` / ``ctx.next_steer``.

        ``mode``: ``next-item`` (at the adapter's next item of work) or ``between-rounds`` (only at a round
        boundary). Recorded ``steer.sent`` now (``sender``: who says it, as approvals name the approver;
        default ``human``) and ``steer.applied`` when the adapter takes it, or ``steer.unheard`` (and a line in
        ``problems``) when the run ends first. An adapter that can take none (Noeta; a LangGraph graph without a
        state key for them) raises ``UnsupportedFeatureError`` saying what to do instead. Safe from any thread.
        """
        check_steer(text, mode, "human" if sender is None else sender)  # the caller's options first
        self._episode.recorder.check_owner("handle.steer()")
        status = self.status
        if status != "running" or self._task is None:
            raise EpisodeStateError(
                f"episode {self.episode_id} is {status}, not running: a steer reaches only a running episode"
                + ("; decide its pending approval first" if status == "paused" else "")
            )
        if self._episode.drain is not None:
            raise EpisodeStateError(f"episode {self.episode_id} is stopping (draining): it takes no more steers")
        refusal = self._steer_refusal()
        if refusal is not None:
            raise UnsupportedFeatureError(
                f"episode {self.episode_id} runs {self._episode.label}, which takes no steers: {refusal}"
            )
        return self._episode.steers.send(text, mode=mode, sender="human" if sender is None else sender)

    # -- stopping -------------------------------------------------------------------------
    def cancel(self, drain_s: float | None = None, *, sender: str = "human") -> bool:
        """Stop the episode: it ends ``cancelled`` and sealed. Safe from any thread.

        ``drain_s``: stop gracefully — nothing new starts, the tool and model calls in flight get up to
        ``drain_s`` seconds to finish and be recorded, then the episode is cancelled; the outcome is
        ``handle.drain_report`` (and a ``drain.report`` event). A second stop during a drain stops at once.
        """
        seconds = drain_seconds(drain_s)
        check_sender(sender)  # recorded with a drain: the steer's rule
        self._episode.recorder.check_owner("handle.cancel()")
        if self.done() or self._task is None:
            return False
        episode = self._episode
        loop = episode.loop
        if loop is None or loop.is_closed():
            return False
        episode.cancel_requested = True
        if episode.drain is not None:  # a second stop during the drain
            episode.drain.stop_now()
        elif seconds is not None:
            episode.begin_drain(seconds, sender, self._task)
        else:
            loop.call_soon_threadsafe(self._task.cancel)
        return True

    @property
    def stop_requested(self) -> bool:
        """True once ``cancel()`` was asked: the episode is ending ``cancelled`` (or already has)."""
        return bool(self._episode.cancel_requested)

    @property
    def draining(self) -> bool:
        """True from a graceful stop until the episode has ended."""
        return self._episode.drain is not None and not self.done()

    @property
    def drain_report(self) -> DrainReport | None:
        """How the graceful stop ended (None before it has): reason, duration, calls finished and cut off."""
        drain = self._episode.drain
        return drain.report if drain is not None else None

    @awaited_entry("handle.stop(…)")  # not awaited: nothing stops, and the cell says so
    async def stop(self, drain_s: float | None = None) -> DrainReport | None:
        """``cancel(drain_s)`` and wait until the episode has ended; returns the drain report (None without a drain).

        While a drain is under way it only waits (``cancel()`` is the second stop that ends a drain at once)."""
        drain_seconds(drain_s)  # the caller's option first, even while a drain (which ignores it) is under way
        self._episode.recorder.check_owner("handle.stop()")
        if not self.draining:
            self.cancel(drain_s)
        if self._task is not None and not self.done():
            await asyncio.wait({self._task})
        return self.drain_report

    # -- outcome --------------------------------------------------------------------------
    def done(self) -> bool:
        return self.status in TERMINAL

    @property
    def error(self) -> BaseException | None:
        """The error the episode ended with (None while it runs, and when it ended without one)."""
        error = self._episode.error if self.done() else None
        return self._shown(error) if error is not None else None

    def _shown(self, error: BaseException) -> BaseException:
        """``redact_exception(error)``, once per error: every read gives the same object (maybe a redacted copy)."""
        with self._shown_lock:
            if self._shown_error is None or self._shown_error[0] is not error:
                self._shown_error = (error, redact_exception(error))
            return self._shown_error[1]

    def result(self) -> Any:
        """The adapter's output; raises the adapter's error, ``NoesisVeto``, or ``CancelledError`` instead."""
        status = self.status
        if status == "ok":
            return self._episode.result
        error = self._episode.error
        if status == "cancelled" and type(error) is asyncio.CancelledError:  # stopped: say so, in one line
            raise EpisodeCancelled(
                f"episode {self.episode_id} was stopped and has no result (its run is sealed cancelled); "
                "handle.status says how it ended, handle.drain_report what a graceful stop let finish",
                episode_id=self.episode_id,
            )
        if failed(status) and error is not None:
            raise self._shown(error)  # its type kept for `except`; the notebook shows no secret
        if status == "paused":
            waiting = ", ".join(p.draft_id for p in self.pending) or "a governance veto"
            raise EpisodeStateError(
                f"episode {self.episode_id} is paused waiting for a human ({waiting}); approve or reject first"
            )
        raise EpisodeStateError(f"episode {self.episode_id} is still {status}; `await handle` or check handle.done()")

    def __await__(self) -> Generator[Any, None, EpisodeHandle]:
        return self._settle().__await__()

    async def _settle(self) -> EpisodeHandle:
        with watch_interrupts() as watch:
            try:
                await self.settled()
            except asyncio.CancelledError:
                if watch.seen:
                    raise await self._interrupted() from None
                raise
        self.refresh_display()
        return self

    @awaited_entry("handle.settled()")
    async def settled(self) -> EpisodeHandle:
        """Wait until finished or paused for a human, as ``await handle`` does, but without drawing any view
        (for code that runs many episodes: a batch must not create a view per episode)."""
        if self._episode.status == "paused":
            # a decision made on another thread flips the status on this loop (call_soon_threadsafe): let it land,
            # or ``await handle`` right after it would return 'paused' with nothing pending
            await asyncio.sleep(0)
        if self._episode.status == "paused" and self._episode.cancel_requested and self._task is not None:
            # stopped while it waited for a human: it ends (cancelled, sealed) at its next step, which is what to wait
            # for; returning 'paused' with its drafts still pending would say a decision is awaited
            await asyncio.wait({self._task})
        if self._episode.status == "running":
            await asyncio.shield(self._episode.settled.wait())
        return self

    @awaited_entry("handle.wait()")
    async def wait(self) -> EpisodeHandle:
        """Wait until finished (not merely paused), or ended paused (its adapter ended while its run waited for a
        person: ``resume_run`` continues it). Never use this in a notebook cell while a human must click.

        The kernel's interrupt stops a running episode (sealed ``cancelled``) but only the wait on a paused
        one, which stays paused for its decision; either way ``EpisodeInterrupted`` says which.
        """
        with watch_interrupts() as watch:
            try:
                while not self.done() and not self._episode.ended_paused:  # ended paused: resume_run continues it
                    await asyncio.shield(self._episode.settled.wait())
                    if not self.done() and not self._episode.ended_paused:
                        await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                if watch.seen:
                    raise await self._interrupted() from None
                raise
        return self

    async def _interrupted(self, settle_s: float = 5.0) -> BaseException:
        """The interrupt landed while a cell awaited this episode: stop it unless it is paused (nothing runs
        then, and its decision is still wanted); wait up to ``settle_s`` for it to seal; say what became of it."""
        if self.status == "running" and self.cancel() and self._task is not None:
            await asyncio.wait({self._task}, timeout=settle_s)
        return interrupted(self._episode)

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


_ITEM: Any = object()  # ``_reporting``: the callback gets the item it is called with


def _reporting(callback: Callable[[Any], Any], call: str, episode: Episode, given: Any = _ITEM) -> Callable[[Any], None]:
    """``callback`` whose first error is reported on the handle (``problems``, the view), not swallowed unsaid:
    the episode goes on either way (a broken watcher must never break it). ``given``: what it is called with in
    place of the item (the handle, for ``on_change``). Saying the failure calls the other listeners, never this
    one again for the same change."""
    said = False

    def reported(item: Any) -> None:
        nonlocal said
        try:
            callback(item if given is _ITEM else given)
        except Exception as exc:
            if not said:
                said = True
                name = getattr(callback, "__qualname__", None) or type(callback).__name__
                try:
                    text = str(exc)
                except Exception:  # a message that cannot be built
                    text = "?"
                said_text = f"{call}({name}) raised {type(exc).__name__}: {text} (said once; it is still called)"
                episode.report(shown_cut(said_text, 300), skip=reported)
            raise

    return reported
