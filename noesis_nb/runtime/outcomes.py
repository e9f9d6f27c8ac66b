"""What an adapter hands back, judged before it is recorded: values that are no answer, exits, size bounds."""

from __future__ import annotations

import inspect
from typing import Any

from .._exits import HeldExit, being_cancelled, exits_held, held_exits, is_exit

__all__ = ["ANSWER_LIMIT", "HeldExit", "being_cancelled", "exits_held", "held_exits", "is_exit", "not_a_value"]

#: characters of an answer's JSON kept in the run (terminate, summary.json); a longer one is cut, so a
#: 200 MB result costs a slice rather than a copy, a secret scan and a write of all of it
ANSWER_LIMIT = 256_000


def not_a_value(result: Any) -> Any:
    """``result``, unless it is a generator the adapter returned instead of its values (an ``async def`` with a
    ``yield``, a sync function that yields): nothing would ever run it, so it is an error naming the fix."""
    if inspect.isasyncgen(result) or inspect.isgenerator(result):
        kind = "an async generator" if inspect.isasyncgen(result) else "a generator"
        collect = "[x async for x in gen]" if inspect.isasyncgen(result) else "list(gen)"
        raise TypeError(
            f"the adapter returned {kind} ({getattr(result, '__qualname__', type(result).__name__)}) instead of a value; "
            f"return what it yields, e.g. {collect}, or `return` the answer instead of `yield`-ing it"
        )
    return result
