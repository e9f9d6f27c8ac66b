"""Blocking work off the event loop, on a thread of its own.

Sync adapters and sync tools each get a dedicated daemon thread instead of a slot in the
loop's shared default executor: a sync adapter blocks its thread until its tool finishes, so
if both came from one bounded pool, a handful of concurrent adapters would hold every worker
and their tools would wait forever.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any, Callable

__all__ = ["run_in_thread"]


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
