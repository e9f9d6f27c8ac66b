"""Blocking work off the event loop, on a thread of its own.

Sync adapters and sync tools each get a dedicated daemon thread instead of a slot in the
loop's shared default executor: a sync adapter blocks its thread until its tool finishes, so
if both came from one bounded pool, a handful of concurrent adapters would hold every worker
and their tools would wait forever.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["run_in_thread", "run_sync", "ThreadReader"]


async def run_in_thread(fn: Callable[..., Any], *args: Any, name: str = "noesis_nb-worker", **kwargs: Any) -> Any:
    """Await ``fn(*args, **kwargs)`` run on a new daemon thread, in a copy of the caller's context.

    Cancelling the await does not stop the thread (Python cannot); its late result is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(setter: Callable[[Any], None], value: Any) -> None:
        if not future.done():
            setter(value)

    def target() -> None:
        try:
            value = context.run(fn, *args, **kwargs)
        except BaseException as exc:  # handed to the awaiting coroutine
            outcome: tuple[Callable[[Any], None], Any] = (future.set_exception, exc)
        else:
            outcome = (future.set_result, value)
        try:
            loop.call_soon_threadsafe(deliver, *outcome)
        except RuntimeError:  # the loop closed meanwhile: nobody is waiting
            pass

    threading.Thread(target=target, name=name, daemon=True).start()
    return await future


class ThreadReader:
    """A blocking iterator read one item at a time on one daemon thread of its own, in a copy of the caller's
    context: ``await reader.next()`` leaves the event loop running while the source blocks (a sync SSE reader, a
    generator that sleeps). Nothing is read ahead: an item is read only when asked for. ``close()`` lets the thread
    end once its current read returns, closing the iterator there (a generator's ``finally`` runs off the loop);
    a read still blocked is left to its thread."""

    def __init__(self, items: Iterator[Any], default: Any, *, name: str = "noesis_nb-reader"):
        self._items, self._default, self._name = items, default, name
        self._context = contextvars.copy_context()
        self._asks: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    async def next(self) -> Any:
        """The next item, or ``default`` once the iterator is exhausted; its error is raised here."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
            self._thread.start()
        self._asks.put((loop, future))
        return await future

    def close(self) -> None:
        if self._thread is not None:
            self._asks.put(None)

    def _serve(self) -> None:
        while (ask := self._asks.get()) is not None:
            loop, future = ask
            try:
                value = self._context.run(next, self._items, self._default)
            except BaseException as exc:  # handed to the awaiting coroutine
                outcome: tuple[Callable[[Any], None], Any] = (future.set_exception, exc)
            else:
                outcome = (future.set_result, value)
            try:
                loop.call_soon_threadsafe(_deliver, future, *outcome)
            except RuntimeError:  # the loop closed meanwhile: nobody asks any more
                break
        close = getattr(self._items, "close", None)
        if callable(close):
            try:
                self._context.run(close)
            except Exception:
                pass


def _deliver(future: asyncio.Future[Any], setter: Callable[[Any], None], value: Any) -> None:
    if not future.done():  # the await was given up (a bounded wait timed out): the late item is dropped
        setter(value)


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
