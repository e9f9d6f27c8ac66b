"""What ``solve`` returns: the episode's id, a ``str`` that also answers ``await``.

``solve`` is the synchronous entry: it returns once the episode has ended. A newcomer in a notebook
often writes ``await noesis_nb.solve(...)``; Python's answer, "object str can't be used in 'await'
expression", comes after the episode ran and names neither the id nor the fix. Here the await hands
the id back, with one warning line saying the episode had already ended and what returns at once.
"""

from __future__ import annotations

import warnings
from collections.abc import Generator
from typing import Any

__all__ = ["SolvedId", "SolveAwaited"]


class SolveAwaited(UserWarning):
    """``await noesis_nb.solve(...)``: the episode had ended before the await, which only handed back its id."""


class SolvedId(str):
    """The id of an episode ``solve`` ran to its end: a ``str`` in every way; ``await`` gives the same id back."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, str]:
        warnings.warn(
            SolveAwaited(
                f"noesis_nb.solve(...) is synchronous: episode {str(self)!r} had already ended before the await, which "
                "only hands back its id; drop the await, or use noesis_nb.start(...) (returns at once, the kernel stays "
                "free) or await noesis_nb.solve_async(...)"
            ),
            stacklevel=2,
        )
        return _plain(str(self)).__await__()

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))  # pickled, copied or sent to a worker as the plain id


async def _plain(value: str) -> str:
    return value
