"""A misspelt keyword argument to a public analysis function, said as one ``InvalidOptionError`` naming the one
meant (Python 3.11's ``TypeError`` names neither it nor the options there are); and a yes/no option given something
other than True or False (``cache="false"``, which ``bool()`` reads as true), refused naming the value."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from .errors import InvalidOptionError, guessed
from .secrets.quoted import quoted

__all__ = ["keywords_named", "check_yes_no"]

P = ParamSpec("P")
R = TypeVar("R")

# what True and False mean for the yes/no options the analysis functions share (any other: "True or False")
_MEANING = {
    "strict": "True (raise on the first problem) or False (list them)",
    "cache": "True (reuse what was read and kept before) or False (read every run again)",
    "progress": "True (show a progress bar), False (none) or None (a bar for loads of many runs)",
}

# keywords other noesis_nb functions take, said with where the value goes here instead
_ELSEWHERE = {"runs_dir": "source", "run_dir": "source", "root": "source", "path": "source"}


def keywords_named(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` whose call with an unknown keyword raises ``InvalidOptionError`` (a ``TypeError`` still)."""

    @functools.wraps(fn)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        for name, optional in _yes_no(fn).items():
            if name in kwargs:
                kwargs[name] = check_yes_no(name, kwargs[name], optional=optional)
        try:
            return fn(*args, **kwargs)
        except TypeError as exc:
            if not _refused_here(exc, wrapped) or "unexpected keyword argument" not in str(exc):
                raise
            raise _unknown(fn, kwargs) from None

    return wrapped


def check_yes_no(name: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` as a plain bool (numpy's ``bool_``, from ``df.any()``, is one), or None where ``optional``; refuse any
    other: ``"no"``, ``0`` or ``"false"`` would be read as true or false without a word."""
    if isinstance(value, bool) or (optional and value is None):
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):  # numpy 2, numpy 1
        return bool(value)
    fix = _MEANING.get(name) or ("True, False or None" if optional else "True or False")
    raise InvalidOptionError(f"{name}={quoted(value, 40)}: pass {fix}")


@functools.cache
def _yes_no(fn: Callable[..., Any]) -> dict[str, bool]:
    """``fn``'s keyword options annotated ``bool`` (False) or ``bool | None`` (True)."""
    kinds = {"bool": False, "bool | None": True, "None | bool": True}
    params = inspect.signature(fn).parameters.values()
    return {p.name: kinds[str(p.annotation)] for p in params if p.kind == p.KEYWORD_ONLY and str(p.annotation) in kinds}


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
