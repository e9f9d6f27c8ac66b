"""Live OTLP export: a running episode's spans sent as they finish (``export_otel(handle, live=True)``).

A thread of its own looks every ``interval`` seconds; when events arrived since its last look it
builds the run's spans from the events in memory (``run_spans``, the same function a later export
uses, so ids and attributes are the same) and sends the finished ones not sent yet: a model call or
a timed step at once, a tool request once its chain has ended (an outcome or a refusal), the root span (with
the episode's status and its other events) and the seal's span when the episode ends. Each span is sent once. A
collector that refuses or is down is noted in ``errors`` and tried again at the next look; one that
is down or failing (no answer, 5xx, 429) is tried again less and less often while the episode runs (the wait doubles
after each refusal, up to ``BACKOFF_CAP_S``; said once in ``errors``), at once when the episode ends; an answer's
``Retry-After`` is waited for (up to ``BACKOFF_CAP_S``), at the end too. One that refuses the request itself (a
redirect, a 4xx other than 408 and 429: a wrong URL, credentials, a body too large) would refuse it again at every
look, for ever: the live export stops sending to it, says so once in ``errors`` (status, endpoint, fix), and only
writes ``path``, if given, at the end (building no spans until then). So does a failure the same request meets
again (a TLS certificate not trusted here, an https:// URL to a plain HTTP collector).
A tool record that cannot be read is noted there once.
The thread is a daemon; at interpreter exit it takes one last look, within a bounded time (``otel_exit``).
The episode itself is never slowed or stopped by its exporter (a look that took long spaces the next ones
out, so the exporter stays under a tenth of one core; time spent waiting on the collector is not counted: it costs no processor).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._jsonio import atomic_write_bytes
from ..errors import EpisodeStateError
from ..secrets import keys_hidden, shown
from ..secrets.quoted import quoted
from ..store.vocab import (
    TERMINAL_EXECUTION_EVENTS,
    TOOL_AUTHN_FAILED,
    TOOL_AUTHZ_DENIED,
    TOOL_EXECUTION_OUTCOME_UNKNOWN,
    TOOL_PRECONDITION_FAILED,
    TOOL_REJECTED_GOVERNANCE,
    TOOL_REJECTED_INVALID,
)
from .otel_exit import follow, left_words, unfollow

if TYPE_CHECKING:
    from .otel import OtlpSender

__all__ = ["LiveExport", "MAX_ERRORS"]

SpanSpec = dict[str, Any]

MAX_ERRORS = 50  # lines kept in ``LiveExport.errors``: the first ones, and one counting the rest
_MAX_DROPPED_SEEN = 100_000  # problems left out that are remembered, so one met again is not counted again
_RETRIES_AFTER_END = 3  # looks after the episode ended, while spans are still unsent (a collector briefly down)
_AWAIT_POLL_S = 0.05  # how often ``await live`` looks whether the export's thread has ended
BACKOFF_CAP_S = 60.0  # the longest wait between tries at a collector that is down (or ``interval``, when longer)


class LiveExport:
    """The export following one episode: ``sent`` spans so far, ``errors`` met, ``wait()`` for the end, ``stop()``."""

    def __init__(
        self,
        handle: Any,
        sender: OtlpSender,
        interval: float,
        path: Any = None,
        *,
        spans: Callable[..., list[SpanSpec]],
        to_json: Callable[[list[SpanSpec], str], dict[str, Any]],
    ):
        self.handle = handle
        self._spans = spans  # ``otel.run_spans``: what a later export of the run gives
        self._to_json = to_json  # ``otel.otlp_json``
        self.interval = interval
        self.path = Path(path) if path is not None else None
        self.errors: list[str] = []
        self._dropped = 0  # errors met past MAX_ERRORS, counted in the last line of ``errors``
        self._dropped_seen: set[int] = set()  # those left out, each counted once
        self.sent = 0
        self._sender = sender
        self.timeout = sender.timeout
        self._sent_ids: set[int] = set()
        self._lock = threading.Lock()  # ``_sent_ids`` read at exit while the thread may still add to it
        self._written = False  # ``path`` written by a last look (the episode's end, ``stop()``, the exit)
        self._last_problem: str | None = None
        self._unsent = False
        self._backing_off = False  # said once in ``errors``
        # what stopped the sending for good (see the docstring): an answer's status, or a failure's kind
        self.refused: int | str | None = None
        self._stop = threading.Event()
        self._exiting = threading.Event()  # the interpreter exits: one last look (``otel_exit``)
        self._wake = threading.Event()  # ends the pause between two looks (``stop()``, the exit)
        self._thread = threading.Thread(target=self._run, name=f"noesis_nb-otel-{handle.episode_id}", daemon=True)
        follow(self)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> LiveExport:
        """Block until the episode has ended and its last spans are sent (or ``timeout`` seconds passed).

        On a thread that runs an event loop (a notebook cell) while the episode still runs, it is refused: the
        episode needs that loop, so neither would ever end. ``await live`` waits there without blocking."""
        if self.running and not self.handle.done() and _on_loop_thread():
            raise EpisodeStateError(
                "live.wait() here would block this thread's event loop, which runs the episode: neither would ever end "
                "(an episode waiting for a click too). Use `await live`, which waits without blocking it, or call "
                "live.wait() once the episode has ended (`await handle` first)"
            )
        self._thread.join(timeout)
        self._seen_ended()
        return self

    def __await__(self) -> Generator[Any, None, LiveExport]:
        """``await live``: until the episode has ended and its last spans are sent, the loop going on meanwhile."""
        return self._ended().__await__()

    async def _ended(self) -> LiveExport:
        while self.running:
            await asyncio.sleep(_AWAIT_POLL_S)
        self._seen_ended()
        return self

    def stop(self, timeout: float | None = 10.0) -> LiveExport:
        """Send what there is now (the root span with the episode's current status) and stop following it."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
        self._seen_ended()
        return self

    def _seen_ended(self) -> None:
        """The caller waited for the end and can read ``errors``: the exit says nothing more of this export."""
        if not self.running:
            unfollow(self)

    # -- at interpreter exit (``otel_exit``) ------------------------------------------------
    def look_at_exit(self) -> None:
        """Take one last look now: what is final is sent, ``path`` written as far as the episode got."""
        self._exiting.set()
        self._wake.set()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self.running

    def left_at_exit(self, waited: float) -> str | None:
        """What the exit leaves undone (final spans unsent, ``path`` unwritten, the episode running), in words."""
        ended = self.handle.done()
        try:
            specs = self._spans(self.handle.run_dir, self.handle.events, problems=[])
        except Exception:  # said in ``errors`` by the looks already
            specs = []
        with self._lock:
            sent = set(self._sent_ids)
        final = [s for s in specs[1:] if ended or _finished(s)] + (specs[:1] if ended else [])
        return left_words(
            self.handle.episode_id,
            self._sender.url,
            unsent=sum(s["span_id"] not in sent for s in final),
            why=f"not done within {waited:g} s" if self.running else self._last_problem,
            path=self.path if self.path is not None and not self._written else None,
            unfinished=None if ended else max(len(specs) - len(final), 1),
            run_dir=self.handle.run_dir,
        )

    def __repr__(self) -> str:
        state = "following" if self.running else "done"
        sent = f"{self.sent} spans sent, {len(self.errors)} errors"
        return f"<LiveExport {self.handle.episode_id} → {shown(self._sender.url)}: {state}, {sent}>"

    # -- the thread --------------------------------------------------------------------------
    def _run(self) -> None:
        seen = -1
        retries = _RETRIES_AFTER_END
        refusals = 0  # tries in a row the collector refused at once (down, failing): the next waits longer
        next_try = 0.0  # the monotonic time before which a collector refusing at once is not asked again
        held = 0.0  # the monotonic time before which the collector asked not to be asked again (Retry-After)
        try:
            while True:
                exiting = self._exiting.is_set()  # read first: at exit, the root span only if the episode ended
                ended = self.handle.done()
                stopping = self._stop.is_set() and not exiting
                count = self.handle.event_count
                spent = 0.0
                now = time.monotonic()
                # the exit's look is the last one: it neither waits for a backoff nor for Retry-After
                due = stopping or exiting or (now >= held and (ended or now >= next_try))
                looked = due and (count != seen or ended or stopping or exiting or self._unsent)
                if self.refused is not None and not (ended or stopping or exiting):  # stopped for good: only the file is left
                    looked = False
                if looked:
                    seen = count
                    # this thread's processor time, not the clock's: a collector that hangs until the timeout costs
                    # no processor, and spacing the looks by its wait held the episode's last spans (and ``wait()``)
                    # back ten times that long after each try, minutes for a collector that never answers
                    started = time.thread_time()
                    self._look(final=ended or stopping, write=ended or stopping or exiting)
                    spent = time.thread_time() - started
                    refusals = refusals + 1 if self._unsent and self._sender.refused_at_once() else 0
                    next_try = time.monotonic() + self._backoff(refusals) if refusals else 0.0
                    held = time.monotonic() + self._asked_to_wait() if self._unsent else 0.0
                if stopping or exiting or (self.refused is not None and self.path is None):
                    break
                if ended and (not self._unsent or retries <= 0):
                    break
                if ended and looked:
                    retries -= 1
                pause = max(self.interval, 10.0 * spent)
                if ended and held > time.monotonic():  # the last tries wait what the collector asked for, no more
                    pause = held - time.monotonic()
                self._wake.wait(pause)
        finally:
            self._finish()

    def _backoff(self, refusals: int) -> float:
        """How long to leave a collector alone after ``refusals`` refusals in a row: ``interval`` doubled each time,
        up to ``BACKOFF_CAP_S`` (said once in ``errors``, the first time it is waited for)."""
        cap = max(self.interval, BACKOFF_CAP_S)
        if refusals == 2 and not self._backing_off:
            self._backing_off = True
            self._note(
                f"the collector at {quoted(shown(self._sender.url))} refused again at once: the live export asks it "
                f"less and less often while the episode runs (the wait doubles, up to {cap:g} s), and at its end"
            )
        return float(min(self.interval * 2.0 ** min(refusals, 60), cap))

    def _asked_to_wait(self) -> float:
        """The seconds the collector's last answer asked to be left alone (``Retry-After``), up to the backoff's cap."""
        asked = self._sender.retry_after()
        return 0.0 if asked is None else min(asked, max(self.interval, BACKOFF_CAP_S))

    def _look(self, *, final: bool, write: bool) -> None:
        unread: list[str] = []  # a tool record that cannot be read: named once in errors, never a warning per look
        try:
            specs = self._spans(self.handle.run_dir, self.handle.events, problems=unread)
        except Exception as exc:  # a shape nobody foresaw: noted, never raised into anything
            self._note(f"could not build the spans: {quoted(exc, 300)}")
            return
        finally:
            for problem in unread:
                self._note(problem)
        if not specs:
            return
        if write and self.path is not None:  # the file holds the whole trace, whether the collector took it or not
            try:
                atomic_write_bytes(self.path, json.dumps(self._to_json(specs, self._sender.service), allow_nan=False).encode())
                self._written = True
            except (OSError, ValueError) as exc:
                self._note(f"could not write {quoted(str(self.path))}: {keys_hidden(str(exc))}")
        self._unsent = False
        if self.refused is not None:  # the collector refused the request itself: nothing is sent to it again
            return
        root, rest = specs[0], specs[1:]
        ready = [s for s in rest if s["span_id"] not in self._sent_ids and (final or _finished(s))]
        if final and root["span_id"] not in self._sent_ids:
            ready.append(root)
        if not ready:
            return
        try:
            rejected = self._sender.send(ready, self._delivered)  # a batch taken before a failure is not sent again
        except Exception as exc:
            self.refused = self._sender.refused_for_good()
            if self.refused is None:
                self._unsent = True
                self._note(str(exc))
            else:
                met = f"it answered {self.refused}" if isinstance(self.refused, int) else f"it failed ({self.refused})"
                self._note(
                    f"{exc}. The live export stopped sending to it: {met}, which asking again does not change. Once "
                    "that is fixed, send the whole run with "
                    "noesis_nb.export_otel(run_dir, endpoint=...) (the same spans, the same ids)"
                    + (f"; {quoted(str(self.path))} is still written when the episode ends" if self.path else "")
                )
            return
        if rejected is not None:  # the others were taken; these are not sent again (the OTLP spec forbids it)
            self._note(rejected)

    def _delivered(self, batch: list[SpanSpec]) -> None:
        with self._lock:
            self._sent_ids.update(s["span_id"] for s in batch)
        self.sent += len(batch)

    def _note(self, problem: str) -> None:
        """Keep ``problem`` once; past ``MAX_ERRORS`` kept, the last line counts the ones left out (a collector whose
        answer differs at every look, a long episode's growing span count, grew the list by one a look)."""
        self._last_problem = problem
        if problem in self.errors:
            return
        if len(self.errors) < MAX_ERRORS - 1:
            self.errors.append(problem)
            return
        key = hash(problem)
        if key in self._dropped_seen:  # a problem left out already, met again: counted once
            return
        if len(self._dropped_seen) < _MAX_DROPPED_SEEN:  # bounded: past it, every new report counts
            self._dropped_seen.add(key)
        self._dropped += 1
        more = f"… and {self._dropped} more error(s) not kept (the first {MAX_ERRORS - 1} are above)"
        self.errors[MAX_ERRORS - 1 :] = [more]

    def _finish(self) -> None:
        if not self._unsent and self.refused is None:  # else the exit names what was left unsent (unless waited for)
            unfollow(self)
        try:
            self._sender.close()
        except Exception:
            pass


def _on_loop_thread() -> bool:
    """Whether an event loop runs in this thread (a notebook cell, a coroutine)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _finished(span: SpanSpec) -> bool:
    """Whether a span is final: every model call and timed step is; a tool request once its chain has ended
    (an execution outcome, or a refusal); anything less certain (the seal's span) waits for the episode's end."""
    if span.get("awaits_end"):
        return False
    if not span["name"].startswith("execute_tool "):
        return True
    return any(name in _TOOL_ENDINGS for name, _at, _attrs in span["events"])


_TOOL_ENDINGS = frozenset(
    {
        *TERMINAL_EXECUTION_EVENTS,
        TOOL_EXECUTION_OUTCOME_UNKNOWN,
        TOOL_REJECTED_INVALID,
        TOOL_AUTHN_FAILED,
        TOOL_AUTHZ_DENIED,
        TOOL_REJECTED_GOVERNANCE,
        TOOL_PRECONDITION_FAILED,
    }
)
