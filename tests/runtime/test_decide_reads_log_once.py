"""A decision without ``draft_id`` reads the run's ``events.jsonl`` once: what the run is paused on and which of its
drafts are undecided come from the same read (two reads could disagree when another process appends between them,
and each costs a full read of a long log)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from tests.runtime.test_lifecycle_stages import _lost_mid_resume

from .agents import make_writer

_OPENED: list[str] | None = None  # the paths of events.jsonl opened while a test collects them


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _OPENED is not None and event == "open" and str(args[0]).endswith("events.jsonl"):
        _OPENED.append(str(args[0]))


sys.addaudithook(_audit)  # sees every real open of the process (an audit hook cannot be removed: it is gated)


def _opens_of_log(call: Any) -> list[str]:
    global _OPENED
    _OPENED = []
    try:
        call()
        return _OPENED
    finally:
        _OPENED = None


@pytest.mark.parametrize("late", [False, True], ids=["paused", "lost-mid-resume"])
@pytest.mark.parametrize("approve", [True, False], ids=["approve", "reject"])
def test_a_decision_reads_the_log_once(runs_dir: Path, tmp_path: Path, approve: bool, late: bool) -> None:
    run = runs_dir / noesis_nb.solve("write a note", using=make_writer(tmp_path / "o.txt"), approver="ask", runs_dir=runs_dir)
    if late:  # decided already and resumed: the decision given back is found from the same single read
        _lost_mid_resume(run, None)
    decide = noesis_nb.approve_draft if approve else noesis_nb.reject_draft
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a late rejection is told the approval stands
        opened = _opens_of_log(lambda: decide(run, approver_id="ana"))
    assert opened == [str(run / "events.jsonl")]
