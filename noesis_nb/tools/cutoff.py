"""Cutting off the processes a tool call started, from outside the thread that waits for them.

A sync tool handler runs on a thread of its own (``protocols``), as does a sync ``python`` tool's function
(``python_tool``); a cancellation (an interrupt, Stop, ``handle.cancel()``) lands on the loop, and Python cannot stop
that thread. Left alone, the tool's processes would finish their effect after its run was sealed ``cancelled`` with
the tool's outcome unknown. So the dispatch opens a :class:`Cutoff` around the call (a context variable: the thread
runs in a copy of the caller's context). ``tethered`` holds a place in it while a process of the call starts and
runs; a ``python`` tool's thread holds one for the processes it starts itself (``held_thread``: the children of that
thread, which Linux lists per thread). On a cancellation the dispatch awaits ``cut``: every process is killed with
everything it started, and the loop goes on serving other cells and episodes while a thread waits (bounded) until
they are dead; only then does the cancellation go on to record the outcome and seal the run. None starts after.
"""

from __future__ import annotations

import asyncio
import errno
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from noesis_nb._threads import run_in_thread

from . import thread_tree

__all__ = ["Cutoff", "cutoff_scope", "held_place", "held_thread"]

#: how long a cut waits for the killed processes to be reaped (the watchdog kills a whole tree in milliseconds)
CUT_WAIT_S = 3.0

_CURRENT: ContextVar[Cutoff | None] = ContextVar("noesis_nb_tool_cutoff", default=None)


class Place:
    """One process of the call: ``arm`` it with its kill once it started. A thread's place (``tid``) stands for the
    processes that thread starts: a cut kills them and waits until they are dead, not until the thread ends."""

    def __init__(self, cutoff: Cutoff | None, tid: int | None = None) -> None:
        self._cutoff = cutoff
        self.kill: Callable[[], None] | None = None
        self.tid = tid

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

    async def cut(self, wait_s: float = CUT_WAIT_S) -> bool:
        """Kill every process of the call (and refuse new ones); True once all were reaped within ``wait_s``.

        The wait runs on a thread of its own: the loop (other cells' views, other episodes) goes on meanwhile. A
        further cancellation (a second interrupt) does not cut the wait short: it is raised once the wait is over."""
        waiting = asyncio.ensure_future(run_in_thread(self.cut_blocking, wait_s, name="noesis_nb-tool-cutoff"))
        cancelled = False
        while not waiting.done():
            try:
                await asyncio.shield(waiting)
            except asyncio.CancelledError:
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError("cancelled while a cut-off tool's processes were reaped")
        return bool(waiting.result())

    def cut_blocking(self, wait_s: float = CUT_WAIT_S) -> bool:
        """``cut`` on the calling thread (never the loop's): kill, then block until reaped or ``wait_s`` passed."""
        deadline = time.monotonic() + wait_s
        with self._lock:
            self.cut_off = True
            for place in self._places:
                if place.kill is not None:
                    place.kill()
            threads = [place.tid for place in self._places if place.tid is not None]
        dead = all([thread_tree.kill_started_by(tid, deadline) for tid in threads])  # every thread's, even after one fails
        with self._lock:
            while any(place.tid is None for place in self._places):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return dead

    def _enter(self, program: str, tid: int | None = None) -> Place:
        with self._lock:
            if self.cut_off:
                raise OSError(errno.ECANCELED, "the tool call was cancelled before its process started", program)
            place = Place(self, tid)
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


@contextmanager
def held_thread(what: str) -> Iterator[None]:
    """While the body runs on this thread, the processes it starts belong to the current cutoff: a cut kills them
    (and all they started) and no new one starts (OSError). Where Linux lists no thread's children, nothing is held."""
    cutoff = _CURRENT.get()
    if cutoff is None or not thread_tree.listed():
        yield
        return
    _refuse_spawns_once()
    place = cutoff._enter(what, threading.get_native_id())
    try:
        yield
    finally:
        cutoff._leave(place)


_SPAWNS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.exec"})
_hooked = threading.Lock()
_hook_added = False


def _refuse_spawns_once() -> None:
    """Add (once per process: audit hooks stay) the hook refusing a process start in a thread whose call was cut."""
    global _hook_added
    with _hooked:
        if not _hook_added:
            sys.addaudithook(_refuse_when_cut)
            _hook_added = True


def _refuse_when_cut(event: str, args: tuple[Any, ...]) -> None:
    if event in _SPAWNS:
        cutoff = _CURRENT.get()
        if cutoff is not None and cutoff.cut_off:
            raise OSError(errno.ECANCELED, "the tool call was cancelled: it starts no more processes", event)
