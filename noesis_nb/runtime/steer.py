"""Steers: what a person tells a running agent, queued until its adapter takes them.

``EpisodeHandle.steer`` (the view's Send box, ``%noesis steer``) queues one and writes
``steer.sent``; the adapter takes steers at points it chooses — ``ctx.steers()`` without waiting,
``ctx.next_steer(timeout)`` / ``await ctx.next_steer_async(timeout)`` waiting — and each steer taken
writes ``steer.applied``, caused by its ``steer.sent``: the run shows what the agent was told and
when it heard it. A ``next-item`` steer is taken at the adapter's next item (any point it asks at);
a ``between-rounds`` steer only where the adapter asks with ``at="between-rounds"``.
"""

from __future__ import annotations

import asyncio
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._safetext import MAX_FREE_TEXT, NAME_JOINERS, unseen_character, unseen_escaped, unseen_said
from ..errors import EpisodeStateError, InvalidOptionError
from ..secrets import shown_repr
from ..secrets.quoted import quoted
from ..store.phases import STEER_PHASE
from ..store.vocab import STEER_APPLIED, STEER_MODES, STEER_SENT, STEER_UNHEARD

if TYPE_CHECKING:
    from .recorder import Recorder

__all__ = ["Steer", "SteerBox", "check_free_text", "free_text_made_safe", "check_mode", "check_sender", "check_steer"]

MAX_TEXT = MAX_FREE_TEXT
MAX_SENDER = 200


#: bidi embeddings, overrides and isolates: the text after one shows in another order than it was written
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


_KEPT = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x85"  # TAB and the control characters str.splitlines reads as line ends


def check_free_text(text: str, what: str) -> None:
    """The rule of text a person writes into a run (a steer's text, a decision's reason): at most ``MAX_TEXT``
    characters, and no control character but TAB and line ends (a NUL, an ESC that starts a terminal sequence) nor
    a bidi control. It is written to the run's files and shown in every view, frame and terminal line.
    InvalidOptionError naming ``what``, the length or the character and its place; the text itself is not quoted."""
    if len(text) > MAX_TEXT:
        raise InvalidOptionError(f"{what} is {len(text):,} characters; keep it to at most {MAX_TEXT:,}")
    bad = next((ch for ch in text if _unseen(ch)), None)
    if bad is not None:
        raise InvalidOptionError(
            f"{what} {unseen_said(bad, text.index(bad))}: write it as plain text (line ends and tabs are kept)"
        )


def free_text_made_safe(text: str) -> str:
    """``text`` that code, not a person, writes into a run (an approver policy's reason) kept to the rule
    ``check_free_text`` holds a person's to, without refusing it (that would fail the episode over a reason): each
    character it refuses is written as its escape (``\\u202e``, ``\\x07``), and a text longer than ``MAX_TEXT``
    characters is cut to fit with a ``… [cut: N characters]`` marker (N its length as given). Only its first
    ``MAX_TEXT`` characters are looked at: a 100 MB reason costs a slice."""
    head = text[:MAX_TEXT]
    if any(_unseen(ch) for ch in head):
        head = "".join(ascii(ch)[1:-1] if _unseen(ch) else ch for ch in head)
    if len(text) <= MAX_TEXT and len(head) <= MAX_TEXT:
        return head
    marker = f"… [cut: {len(text):,} characters]"
    return head[: MAX_TEXT - len(marker)] + marker


def _unseen(ch: str) -> bool:
    """A character free text may not hold: a bidi control, or a control character but TAB and line ends."""
    return ch in _BIDI or (unicodedata.category(ch) == "Cc" and ch not in _KEPT)


def check_steer(text: object, mode: object, sender: object) -> None:
    """A steer's options (text, mode, sender): checked before anything about the episode is looked at."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidOptionError(f"steer text must be a non-empty string, got {quoted(text)}")
    check_free_text(text, "steer text")
    check_mode(mode)
    check_sender(sender)


@dataclass(frozen=True)
class Steer:
    """One message to the agent: its text, when it applies (``mode``), who sent it, its ``steer.sent`` event."""

    steer_id: str
    text: str
    mode: str
    sender: str
    event_id: str
    sent_at: float  # time.monotonic() when sent

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:  # the adapter reads ``text``; what a cell prints of it is redacted
        return shown_repr(self)


def check_mode(value: object, what: str = "mode") -> str:
    if value not in STEER_MODES:
        raise InvalidOptionError(f"{what}={quoted(value)}: use one of {list(STEER_MODES)}")
    return str(value)


def check_sender(sender: object) -> str:
    """Who sends a steer or a stop, as the run records it (``agent_id`` ``human:<sender>``) and views show it: one
    line of text, at most ``MAX_SENDER`` characters; anything else is one error naming it."""
    if not isinstance(sender, str) or not sender.strip():
        raise InvalidOptionError(f"sender={quoted(sender, 60)}: name who sends it, e.g. 'human' or 'user:ana'")
    if len(sender) > MAX_SENDER:
        raise InvalidOptionError(
            f"sender={quoted(sender, 60)} is {len(sender):,} characters: name who sends it in at most {MAX_SENDER}, "
            "e.g. 'user:ana'"
        )
    bad = unseen_character(sender, allowed=NAME_JOINERS)  # the rule of every name typed
    if bad is not None:
        raise InvalidOptionError(
            f"sender={unseen_escaped(quoted(sender, 60))} {unseen_said(bad, sender.index(bad))}: name who sends it in "
            "one line of text, e.g. 'user:ana'"
        )
    return sender


class SteerBox:
    """The queue of one episode's steers (thread-safe: sent from the kernel, taken on the loop or a worker thread)."""

    def __init__(self, recorder: Recorder, before_first: Callable[[], None] | None = None):
        """``before_first``: called before a steer is written (the episode writes its ``start`` first, once: a
        steer sent right after ``start()`` returned would otherwise be the run's first line)."""
        self._rec = recorder
        self._before_first = before_first
        self._queue: list[Steer] = []
        self._cond = threading.Condition()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self.closed = False
        self.ending = False  # the run is being sealed: a steer sent now could never be heard (``unheard``)

    @property
    def queued(self) -> list[Steer]:
        with self._cond:
            return list(self._queue)

    def send(self, text: str, *, mode: str, sender: str) -> Steer:
        """Queue ``text`` and write ``steer.sent``; returns the steer."""
        check_steer(text, mode, sender)
        steer_id = f"steer_{uuid.uuid4().hex[:12]}"
        if self._before_first is not None:
            self._before_first()
        with self._cond:  # queue order is the order of the sent events
            if self.ending:
                raise EpisodeStateError("the episode is ending (its adapter returned): it takes no more steers")
            event = self._rec.emit(
                STEER_PHASE,
                {"event_name": STEER_SENT, "steer_id": steer_id, "text": text, "mode": mode, "sender": sender},
                agent_id=f"human:{sender}",
            )
            steer = Steer(steer_id, text, mode, sender, str(event["id"]), time.monotonic())
            self._queue.append(steer)
            self._cond.notify_all()
            waiters, self._waiters = self._waiters, []
        _wake(waiters)
        return steer

    def take(self, at: str = "next-item", limit: int | None = None) -> list[Steer]:
        """The queued steers that apply ``at`` this point (oldest first, up to ``limit``); each writes ``steer.applied``."""
        check_mode(at, "at")
        with self._cond:
            taken = [s for s in self._queue if at == "between-rounds" or s.mode == "next-item"][:limit]
            if taken:
                ids = {s.steer_id for s in taken}
                self._queue = [s for s in self._queue if s.steer_id not in ids]
        for steer in taken:
            self._rec.emit(
                STEER_PHASE,
                {
                    "event_name": STEER_APPLIED,
                    "steer_id": steer.steer_id,
                    "mode": steer.mode,
                    "sender": steer.sender,
                    "at": at,
                    "waited_ms": round((time.monotonic() - steer.sent_at) * 1000.0, 3),
                },
                agent_id="adapter",
                caused_by=steer.event_id,
            )
        return taken

    def _ready(self, at: str) -> bool:
        return any(at == "between-rounds" or s.mode == "next-item" for s in self._queue)

    def wait(self, timeout: float | None, at: str = "next-item") -> Steer | None:
        """Block (a worker thread) until a steer applies ``at`` this point; None after ``timeout`` or when the episode ends."""
        check_mode(at, "at")
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._ready(at) and not self.closed:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
        taken = self.take(at, limit=1)
        return taken[0] if taken else None

    async def wait_async(self, timeout: float | None, at: str = "next-item") -> Steer | None:
        """Await a steer that applies ``at`` this point; None after ``timeout`` or when the episode ends."""
        check_mode(at, "at")
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            with self._cond:
                if self.closed:
                    return None
                ready = self._ready(at)
                if not ready:
                    future: asyncio.Future[None] = loop.create_future()
                    self._waiters.append((loop, future))
            if ready:
                taken = self.take(at, limit=1)
                if taken:
                    return taken[0]
                continue
            remaining = None if deadline is None else deadline - loop.time()
            try:
                if remaining is not None and remaining <= 0:
                    return None
                await asyncio.wait_for(future, remaining)
            except TimeoutError:
                return None
            finally:  # no steer came (a timeout, a cancel): its waiter goes, or an adapter polling in a loop keeps them all
                self._forget(loop, future)

    def _forget(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> None:
        with self._cond:
            if (loop, future) in self._waiters:
                self._waiters.remove((loop, future))

    def unheard(self) -> list[Steer]:
        """The adapter returned: no more steers are taken, and each still queued is written ``steer.unheard``
        (caused by its ``steer.sent``) before the run is sealed, so the run says it never reached the agent."""
        with self._cond:
            self.ending = True
            left, self._queue = self._queue, []
        for steer in left:
            self._rec.emit(
                STEER_PHASE,
                {
                    "event_name": STEER_UNHEARD,
                    "steer_id": steer.steer_id,
                    "mode": steer.mode,
                    "sender": steer.sender,
                    "waited_ms": round((time.monotonic() - steer.sent_at) * 1000.0, 3),
                },
                agent_id="runtime",
                caused_by=steer.event_id,
            )
        return left

    def close(self) -> None:
        """The episode ended: waiters return None; steers still queued were never applied."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()
            waiters, self._waiters = self._waiters, []
        _wake(waiters)


def _wake(waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]) -> None:
    for loop, future in waiters:
        try:
            loop.call_soon_threadsafe(_settle, future)
        except RuntimeError:  # that loop closed: nobody waits there any more
            pass


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
