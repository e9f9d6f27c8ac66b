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


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
@pytest.mark.parametrize("kind", sorted(MADE))
def test_an_error_with_its_own_arguments_is_copied_and_pickled_as_itself(kind: str, how: str) -> None:
    error = MADE[kind]()
    error.add_note("while reading the runs root")
    again: Any = pickle.loads(pickle.dumps(error)) if how == "pickle" else getattr(copy, how)(error)
    assert type(again) is type(error)
    assert (str(again), again.args, vars(again)) == (str(error), error.args, vars(error))
