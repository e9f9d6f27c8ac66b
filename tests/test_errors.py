"""The package's errors survive ``pickle`` and ``copy`` as themselves (a process pool or ``deepcopy`` of a result
holding one), with their message, attributes and notes."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from noesis_nb.errors import EventLogCorruption, EventLogIntegrityError, SummaryNotWrittenError, ToolRejected

MADE = {
    "summary not written": lambda: SummaryNotWrittenError("run ep_1 is paused", episode_id="ep_1", status="paused"),
    "event log": lambda: EventLogIntegrityError(EventLogCorruption("events.jsonl", 3, "not JSON"), "a hint of its own"),
    "tool rejected": lambda: ToolRejected("fs.list", "not now", draft_id="d1", decision={"approved": False}),
}


class RejectedWithCode(ToolRejected):
    """A program's own subclass taking a parameter of its own."""

    def __init__(self, tool: str, reason: str, code: int, **kw: Any) -> None:
        super().__init__(tool, reason, **kw)
        self.code = code


class NotWrittenWithHint(SummaryNotWrittenError):
    def __init__(self, message: str, *, episode_id: str, status: str, hint: str) -> None:
        super().__init__(message, episode_id=episode_id, status=status)
        self.hint = hint


class RejectedWithSlots(ToolRejected):
    __slots__ = ("code", "__origin")

    def __init__(self, tool: str, reason: str, code: int) -> None:
        super().__init__(tool, reason)
        self.code = code
        self.__origin = "slot kept"

    def origin(self) -> str:
        return self.__origin


SUBCLASSED = {
    "tool rejected": lambda: RejectedWithCode("fs.rm", "no", 42, draft_id="d1"),
    "fields in slots": lambda: RejectedWithSlots("fs.rm", "no", 7),
    "summary not written": lambda: NotWrittenWithHint("run ep_1 is paused", episode_id="ep_1", status="paused", hint="h"),
}


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
@pytest.mark.parametrize("kind", sorted(MADE) + [f"subclass: {k}" for k in sorted(SUBCLASSED)])
def test_an_error_or_a_subclass_with_arguments_of_its_own_is_copied_and_pickled_as_itself(kind: str, how: str) -> None:
    """Errors whose ``__init__`` takes other than their ``args`` (ours, and a program's subclasses with parameters
    or ``__slots__`` of their own) come back from pickle and copy as themselves, attributes and notes kept."""
    error = SUBCLASSED[kind.removeprefix("subclass: ")]() if kind.startswith("subclass: ") else MADE[kind]()
    error.add_note("while reading the runs root")
    again: Any = pickle.loads(pickle.dumps(error)) if how == "pickle" else getattr(copy, how)(error)
    assert type(again) is type(error)
    assert (str(again), again.args, vars(again)) == (str(error), error.args, vars(error))
    if isinstance(error, RejectedWithSlots):
        assert (again.code, again.origin()) == (error.code, error.origin())
