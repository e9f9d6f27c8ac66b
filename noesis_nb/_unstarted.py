"""The coroutine of an awaited entry point (``solve_async``…), saying how to run it when a cell shows it un-awaited.

``noesis_nb.solve_async(...)`` without ``await`` runs nothing; the cell would show
``<coroutine object solve_async at 0x…>``. This shows ``<noesis_nb.solve_async(…): not started; write
`await noesis_nb.solve_async(…)`>`` and, if it is dropped unstarted, warns once in those words instead
of Python's own warning. It is a ``collections.abc.Coroutine``: ``await``, ``asyncio.run`` and tasks take it.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import warnings
from collections.abc import Callable, Coroutine, Generator
from typing import Any, ParamSpec, TypeVar

from .errors import InvalidOptionError
from .secrets.quoted import quoted

__all__ = ["Unstarted", "awaited_entry", "mark_coroutine_function", "plain_callback", "to_await"]

P = ParamSpec("P")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def to_await(value: Any) -> bool:
    """Whether a value a user's callable returned is awaited by the package: any awaitable but a ``str``. The id
    ``solve`` returns is a ``str`` that answers ``await`` (for a user's own ``await noesis_nb.solve(...)``); a plain
    function returning it (a sync adapter, tool or scorer running an episode of its own) returned the id, which is
    kept as it is: awaiting it would warn of an ``await`` the user never wrote."""
    return not isinstance(value, str) and inspect.isawaitable(value)


class Unstarted(Coroutine[Any, Any, T]):
    """``coro`` under the name of the call that made it (``call``)."""

    __slots__ = ("_coro", "_call", "_taken")

    def __init__(self, coro: Coroutine[Any, Any, T], call: str):
        self._coro, self._call, self._taken = coro, call, False

    def _unstarted(self) -> bool:  # ``await`` drops this object before the coroutine's first step: _taken says it was
        return not self._taken and inspect.getcoroutinestate(self._coro) == inspect.CORO_CREATED

    def __await__(self) -> Generator[Any, None, T]:
        self._taken = True
        return self._coro.__await__()

    def send(self, value: Any) -> Any:
        self._taken = True
        return self._coro.send(value)

    def throw(self, *args: Any) -> Any:
        self._taken = True
        return self._coro.throw(*args)

    def close(self) -> None:
        self._taken = True
        self._coro.close()

    def __repr__(self) -> str:
        if self._unstarted():
            return f"<{self._call}: not started; write `await {self._call}` (a coroutine runs only when awaited)>"
        return repr(self._coro)

    def __del__(self) -> None:
        try:
            if self._unstarted():
                self._coro.close()  # closed unstarted: Python's own warning, which names no fix, is not said too
                warnings.warn(
                    f"{self._call} was never awaited, so nothing ran: write `await {self._call}`", RuntimeWarning, stacklevel=2
                )
        except Exception:  # at interpreter exit, or a half-made object
            pass


def awaited_entry(call: str) -> Callable[[Callable[P, Coroutine[Any, Any, T]]], Callable[P, Coroutine[Any, Any, T]]]:
    """Make an ``async def`` entry point return its coroutine as an :class:`Unstarted` named ``call``."""

    def wrap(fn: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
        @functools.wraps(fn)
        def entry(*args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, T]:
            return Unstarted(fn(*args, **kwargs), call)

        return mark_coroutine_function(entry)

    return wrap


def mark_coroutine_function(fn: F) -> F:
    """``fn`` (a plain function returning a coroutine) read as a coroutine function, so code that decides whether
    to await by asking (``inspect``/``asyncio.iscoroutinefunction``) awaits it: Python ≥ 3.12's marker, and on
    older versions asyncio's (``inspect`` there reads only the code's flags)."""
    if hasattr(inspect, "markcoroutinefunction"):
        return inspect.markcoroutinefunction(fn)  # type: ignore[no-any-return]
    fn._is_coroutine = asyncio.coroutines._is_coroutine  # type: ignore[attr-defined]
    return fn


def plain_callback(callback: Any, call: str) -> Any:
    """``callback`` when it is a plain callable: the handle calls it and uses no return value, so an ``async def``
    there would make a coroutine per call that nobody awaits (nothing would run, and nothing would say so)."""
    if not callable(callback):
        raise InvalidOptionError(f"{call}({quoted(callback, 60)}): pass a function")
    if inspect.iscoroutinefunction(callback) or inspect.isasyncgenfunction(callback):
        name = getattr(callback, "__qualname__", None) or repr(callback)
        raise InvalidOptionError(
            f"{call}({name}): an async def is called and never awaited here, so it would run nothing; pass a plain "
            "def (to run async code from it, schedule it: loop.call_soon_threadsafe(asyncio.ensure_future, coro))"
        )
    return callback
