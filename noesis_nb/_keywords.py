"""A misspelt keyword argument to a public analysis function, said as one ``InvalidOptionError`` naming the one
meant (Python 3.11's ``TypeError`` names neither it nor the options there are)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from .errors import InvalidOptionError, guessed
from .secrets.quoted import quoted

__all__ = ["keywords_named"]

P = ParamSpec("P")
R = TypeVar("R")

# keywords other noesis_nb functions take, said with where the value goes here instead
_ELSEWHERE = {"runs_dir": "source", "run_dir": "source", "root": "source", "path": "source"}


def keywords_named(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` whose call with an unknown keyword raises ``InvalidOptionError`` (a ``TypeError`` still)."""

    @functools.wraps(fn)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except TypeError as exc:
            if not _refused_here(exc, wrapped) or "unexpected keyword argument" not in str(exc):
                raise
            raise _unknown(fn, kwargs) from None

    return wrapped


def _refused_here(exc: BaseException, wrapped: Callable[..., Any]) -> bool:
    """Whether ``exc`` came from binding the arguments (its last frame is the wrapper's), not from inside ``fn``."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code is getattr(wrapped, "__code__", None)


def _unknown(fn: Callable[..., Any], kwargs: dict[str, Any]) -> InvalidOptionError:
    params = inspect.signature(fn).parameters
    takes = [n for n, p in params.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    unknown = [n for n in kwargs if n not in params]
    moved = [n for n in unknown if _ELSEWHERE.get(n) in params]
    name = fn.__name__
    if moved:
        there = _ELSEWHERE[moved[0]]
        return InvalidOptionError(
            f"{name}() takes no {moved[0]}=; pass it as {there}, the first argument: {name}({quoted(kwargs[moved[0]], 80)})"
        )
    return InvalidOptionError(f"{name}() has no option {guessed(unknown, takes)}; it takes {', '.join(takes)}")
