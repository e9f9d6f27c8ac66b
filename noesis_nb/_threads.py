"""Blocking work off the event loop, on a thread of its own.

Sync adapters and sync tools each get a dedicated daemon thread instead of a slot in the
loop's shared default executor: a sync adapter blocks its thread until its tool finishes, so
if both came from one bounded pool, a handful of concurrent adapters would hold every worker
and their tools would wait forever.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
import weakref
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

from ._safetext import error_text, safe_repr

T = TypeVar("T")

__all__ = ["run_in_thread", "run_sync", "ThreadReader", "one_call_at_a_time", "thread_bound_hint", "awaitable_error", "to_thread"]


async def run_in_thread(
    fn: Callable[..., Any], *args: Any, name: str = "noesis_nb-worker", lock: threading.Lock | None = None, **kwargs: Any
) -> Any:
    """Await ``fn(*args, **kwargs)`` run on a new daemon thread, in a copy of the caller's context.

    With ``lock``, the thread holds it around the call alone (calls sharing it never overlap; the loop never waits for
    it, so a call that waits for something on the loop cannot deadlock it). A call made from inside a call holding
    ``lock`` (a sync approver that runs an episode asking the same approver) does not wait for ``lock``, which the call
    it is nested in holds while it waits for it: it takes that call's own inner lock instead, so the calls nested in one
    call never overlap each other either (two drafts its episode asks at once are decided one at a time), and a call
    nested in one of those takes that one's, deeper. Cancelling the await does not stop a call that started (Python
    cannot); its late result is dropped; a call still waiting for its lock is not made.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(setter: Callable[[Any], None], value: Any) -> None:
        if not future.done():
            setter(value)
            if future.done() and not future.cancelled():
                # the await reads the error; when the awaiting task is dropped before it wakes (Ctrl-C landing under a
                # loop nest_asyncio patched) the error is dropped with it, as a late result is: marked read, so the
                # collector, finalising the call's objects in any order, never logs it as "never retrieved"
                future.exception()

    def call() -> Any:
        if lock is None:
            return context.run(fn, *args, **kwargs)
        # the innermost call holding ``lock`` this one is nested in (its episode asks the same approver): its inner lock
        holder = next((held for held in reversed(context.run(_HELD.get)) if held.lock is lock and held.inside), None)
        with lock if holder is None else holder.inner:
            if future.done():  # cancelled while it waited for its turn: nobody wants its answer
                raise asyncio.CancelledError
            held = _Held(lock)
            try:
                return context.run(_holding, held, fn, args, kwargs)
            finally:
                held.inside = False  # what it started and outlives it waits for the lock again

    def target() -> None:
        try:
            value = call()
        except BaseException as exc:  # handed to the awaiting coroutine
            outcome: tuple[Callable[[Any], None], Any] = (future.set_exception, awaitable_error(exc))
        else:
            outcome = (future.set_result, value)
        try:
            loop.call_soon_threadsafe(deliver, *outcome)
        except RuntimeError:  # the loop closed meanwhile: nobody is waiting
            pass

    threading.Thread(target=target, name=name, daemon=True).start()
    try:
        return await future
    except BaseException:
        # not the call's own ending when ``future`` is still pending: a KeyboardInterrupt landing on the loop thread
        # (a loop nest_asyncio patched has no handler of asyncio.run's to make Ctrl-C a cancellation). The call's late
        # result is dropped, as after a cancel, never left unretrieved
        future.cancel()
        raise


def awaitable_error(exc: BaseException) -> BaseException:
    """``exc`` as a Future can hold it and a coroutine raise it: a ``StopIteration`` user code raised (``next()`` on
    an empty iterator) is refused by both (``set_exception`` raises TypeError in the loop's callback, and the Future is
    never done: its awaiter hangs), so it becomes the ``RuntimeError`` naming it, as PEP 479 makes of one leaving a
    generator; it is the cause. Any other error is itself."""
    if not isinstance(exc, StopIteration):
        return exc
    said = f" {safe_repr(exc.value, 200)}" if exc.args else ""
    error = RuntimeError(
        f"{type(exc).__name__}{said} raised by a function run on a worker thread (next() on an empty iterator?); "
        "it cannot reach the event loop as itself, so it comes as this RuntimeError"
    )
    error.__cause__ = exc
    return error


async def to_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``asyncio.to_thread(fn, *args, **kwargs)`` for user code (an integration's client or graph): a StopIteration it
    raises comes as ``awaitable_error`` makes it, where asyncio's Future would refuse it and never be done."""
    return await asyncio.to_thread(_awaitable_call, fn, *args, **kwargs)


def _awaitable_call(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    try:
        return fn(*args, **kwargs)
    except StopIteration as exc:
        raise awaitable_error(exc) from exc


class _Held:
    """A lock held by a call ``run_in_thread`` is making, while ``inside`` that call, and the ``inner`` lock the calls
    nested in it that share ``lock`` take instead (one at a time, as ``lock`` makes calls outside it)."""

    __slots__ = ("lock", "inside", "inner")

    def __init__(self, lock: threading.Lock):
        self.lock, self.inside, self.inner = lock, True, threading.Lock()


#: the locks the calls this context is inside of hold: what it runs on other threads and loops (an episode the call
#: runs, its approver asked on a thread of its own) inherits it, so a call nested in one holding a lock takes its inner
_HELD: contextvars.ContextVar[tuple[_Held, ...]] = contextvars.ContextVar("noesis_nb_held_locks", default=())


def _holding(held: _Held, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    _HELD.set((*_HELD.get(), held))
    return fn(*args, **kwargs)


_locks: weakref.WeakKeyDictionary[Any, threading.Lock] = weakref.WeakKeyDictionary()
_kept_locks: dict[int, tuple[Any, threading.Lock]] = {}  # callables that take no weak reference: kept alive
_locks_guard = threading.Lock()


def one_call_at_a_time(fn: Any) -> threading.Lock:
    """The lock that makes calls of one user callable never overlap (one per object; a bound method's is its
    object's, since its methods share its state)."""
    owner = getattr(fn, "__self__", None) if inspect.ismethod(fn) else fn
    with _locks_guard:
        try:
            lock = _locks.get(owner)
            if lock is None:
                lock = _locks[owner] = threading.Lock()
            return lock
        except TypeError:  # unhashable or no weak reference
            kept = _kept_locks.get(id(owner))
            if kept is None or kept[0] is not owner:
                kept = _kept_locks[id(owner)] = (owner, threading.Lock())
            return kept[1]


def thread_bound_hint(exc: BaseException, what: str) -> BaseException | None:
    """For an error a callable run on a worker thread raised because it needs the notebook's thread or loop (an
    sqlite3 connection made in the notebook, ``asyncio.get_running_loop()``), the same error naming the fix."""
    # sqlite3 named, not imported: ``import noesis_nb`` and running an episode stay without it
    sqlite = _is_sqlite_programming_error(exc)
    if not (sqlite or isinstance(exc, RuntimeError)):
        return None  # (never its text: a user's exception whose __str__ raises stays itself)
    text = error_text(exc)
    thread_bound = sqlite and "same thread" in text
    loop_bound = isinstance(exc, RuntimeError) and "event loop" in text and ("no running" in text or "no current" in text)
    if not (thread_bound or loop_bound):
        return None
    needs = "an object bound to the notebook's thread" if thread_bound else "the running loop"
    try:
        hinted = type(exc)(
            f"{text} — {what} is a plain function, so it runs on a worker thread, one call at a time; to use {needs}, "
            "write it as `async def`: it then runs on the notebook's loop"
        )
    except Exception:
        return None
    return hinted


def _is_sqlite_programming_error(exc: BaseException) -> bool:
    return any(c.__module__ == "sqlite3" and c.__name__ == "ProgrammingError" for c in type(exc).__mro__)


class ThreadReader:
    """A blocking iterator read on one daemon thread of its own, in a copy of the caller's context: ``await
    reader.next()`` leaves the event loop running while the source blocks (a sync SSE reader, a generator that
    waits). The thread reads an item only once it is asked for (a generator acting per step, or one waiting on a
    decision taken between two of its items, never runs ahead of its reader); an item read for a caller that
    stopped waiting is kept for the next ask. ``close()`` stops the reading once the current read returns and closes
    the iterator on that thread (a generator's ``finally`` runs off the loop); a read still blocked is left to its
    thread."""

    def __init__(self, items: Iterator[Any], default: Any, *, name: str = "noesis_nb-reader"):
        self._items, self._default, self._name = items, default, name
        self._context = contextvars.copy_context()
        self._lock = threading.Condition()
        self._ready: tuple[bool, Any] | None = None  # (read, the item) or (raised, the error), not yet taken
        self._asked = False  # an item is asked for and not read yet
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None
        self._ended = self._closed = False
        self._thread: threading.Thread | None = None

    async def next(self) -> Any:
        """The next item, or ``default`` once the iterator is exhausted; an error it raised is raised here."""
        while True:
            with self._lock:
                if self._ready is not None:
                    (read, value), self._ready = self._ready, None
                    break
                if self._ended:
                    return self._default
                if not self._asked:
                    self._asked = True
                    if self._thread is None:
                        self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                        self._thread.start()
                    else:
                        self._lock.notify()
                loop = asyncio.get_running_loop()
                woken: asyncio.Future[None] = loop.create_future()
                self._waiter = (loop, woken)
            await woken  # cancelled, nothing is lost: the item is kept in ``_ready``
        if read:
            return value
        raise value

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._ready = None
            self._lock.notify()

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._asked and not self._closed:
                    self._lock.wait()
                if self._closed:
                    break
            try:
                value = self._context.run(next, self._items, self._default)
            except BaseException as exc:  # raised to whoever asks for this item
                entry, end = (False, exc), True
            else:
                entry, end = (True, value), value is self._default
            with self._lock:
                self._asked = False
                if not self._closed:
                    self._ready = entry
                self._ended = end
                waiter, self._waiter = self._waiter, None
            if waiter is not None:
                try:
                    waiter[0].call_soon_threadsafe(_wake, waiter[1])
                except RuntimeError:  # the loop closed meanwhile: nobody asks any more
                    break
            if end:
                break
        close = getattr(self._items, "close", None)
        if callable(close):
            try:
                self._context.run(close)
            except Exception:
                pass


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def run_sync(coro: Coroutine[Any, Any, T], *, settle_s: float = 10.0) -> T:
    """The one sync-over-async bridge: ``asyncio.run`` outside a loop; inside one (a notebook cell), a
    worker thread with its own loop, in a copy of the caller's context, while this thread waits.

    An interrupt (KeyboardInterrupt) while this thread waits cancels the work on the worker's loop,
    as ``asyncio.run`` does, and waits up to ``settle_s`` for it to wind up (an episode seals its run
    ``cancelled``) before it propagates; a second interrupt stops that wait.
    Never patches the running loop (nest_asyncio or not, the caller's loop is left alone).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}
    context = contextvars.copy_context()  # the caller's context vars (supplied secrets…) reach the worker
    started, finished = threading.Event(), threading.Event()

    def worker() -> None:
        loop = asyncio.new_event_loop()
        try:
            task = context.run(loop.create_task, coro)
            box["cancel"] = lambda: loop.call_soon_threadsafe(task.cancel)
            started.set()
            box["value"] = loop.run_until_complete(task)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc
        finally:
            started.set()
            loop.close()
            finished.set()

    threading.Thread(target=worker, name="noesis_nb-sync", daemon=True).start()
    try:  # not Thread.join: interrupted, it marks a running thread stopped (bpo-45274) and never waits again
        finished.wait()
    except KeyboardInterrupt:
        started.wait()
        if not finished.is_set():
            try:
                box["cancel"]()
            except RuntimeError:  # the loop closed meanwhile: the work is over
                pass
            finished.wait(settle_s)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
