"""Cutting off the processes a tool call started, from outside the thread that waits for them.

A sync tool handler runs on a thread of its own (``protocols``); a cancellation (an interrupt, Stop,
``handle.cancel()``) lands on the loop, and Python cannot stop that thread. Left alone, the tool's process would
finish its effect after its run was sealed ``cancelled`` with the tool's outcome unknown. So the dispatch opens a
:class:`Cutoff` around the call (a context variable: the thread runs in a copy of the caller's context),
``tethered`` holds a place in it while a process of the call starts and runs, and on a cancellation the dispatch
cuts it off: every process is killed with everything it started and waited for (bounded) before the cancellation
goes on, and none starts after.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["Cutoff", "cutoff_scope", "held_place"]

#: how long a cut waits for the killed processes to be reaped (the watchdog kills a whole tree in milliseconds)
CUT_WAIT_S = 3.0

_CURRENT: ContextVar[Cutoff | None] = ContextVar("noesis_nb_tool_cutoff", default=None)


class Place:
    """One process of the call: ``arm`` it with its kill once it started."""

    def __init__(self, cutoff: Cutoff | None) -> None:
        self._cutoff = cutoff
        self.kill: Callable[[], None] | None = None

    def arm(self, kill: Callable[[], None]) -> None:
        """The process started: ``kill`` (non-blocking, safe to call more than once) ends it and its descendants."""
        if self._cutoff is None:
            return
        with self._cutoff._lock:
            self.kill = kill
            if self._cutoff.cut_off:  # cut while it started: it dies at once
                kill()


#: the place of a process no cutoff watches
NO_PLACE = Place(None)


class Cutoff:
    """The processes one tool call has running; ``cut`` kills them all and waits until they are reaped."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._places: list[Place] = []
        self.cut_off = False

    def cut(self, wait_s: float = CUT_WAIT_S) -> bool:
        """Kill every process of the call (and refuse new ones); True once all were reaped within ``wait_s``."""
        deadline = time.monotonic() + wait_s
        with self._lock:
            self.cut_off = True
            for place in self._places:
                if place.kill is not None:
                    place.kill()
            while self._places:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def _enter(self, program: str) -> Place:
        with self._lock:
            if self.cut_off:
                raise OSError(errno.ECANCELED, "the tool call was cancelled before its process started", program)
            place = Place(self)
            self._places.append(place)
            return place

    def _leave(self, place: Place) -> None:
        with self._lock:
            self._places.remove(place)
            self._lock.notify_all()


@contextmanager
def cutoff_scope() -> Iterator[Cutoff]:
    """A cutoff for the tool calls made in the body (and in threads that copy its context)."""
    cutoff = Cutoff()
    token = _CURRENT.set(cutoff)
    try:
        yield cutoff
    finally:
        _CURRENT.reset(token)


@contextmanager
def held_place(program: str) -> Iterator[Place]:
    """A place for one process in the current cutoff, held until it was reaped; OSError when the call was cut off
    already. Outside any cutoff the place does nothing."""
    cutoff = _CURRENT.get()
    if cutoff is None:
        yield Place(None)
        return
    place = cutoff._enter(program)
    try:
        yield place
    finally:
        cutoff._leave(place)
