"""A run whose process was killed (kill -9) while pausing on several parallel drafts: a draft whose approval was
asked but never paused on is a draft like the others. Left undecided it refuses ``resume_run`` before anything runs,
naming it and how to decide it (it is never dropped while the run is sealed success); once decided it runs, or is
recorded rejected, in the order its approval was asked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.tools import ApprovalDecisionRequiredError
from tests.runtime.test_resume_many_drafts import (
    _KILLED_BEFORE_SECOND_PAUSE,
    _PAUSE,
    _drafts,
    _outcome,
    _ran,
    _resume_elsewhere,
    _tool,
)


def _killed_before_second_pause(runs_dir: Path, log: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_BEFORE_SECOND_PAUSE + _PAUSE, str(runs_dir), str(log), "a,b"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -9, done.stderr[-2000:]
    (run,) = runs_dir.iterdir()
    return run


def test_an_undecided_draft_never_paused_on_refuses_the_resume_naming_it(runs_dir: Path, tmp_path: Path):
    log = tmp_path / "ran.txt"
    run = _killed_before_second_pause(runs_dir, log)
    first, second = _drafts(run)
    noesis_nb.approve_draft(run, first, approver_id="ana")
    before = (run / "events.jsonl").read_bytes()
    done = _resume_elsewhere(run)
    assert done.returncode != 0
    refusal = done.stderr.split("ApprovalDecisionRequiredError")[-1]
    assert "ApprovalDecisionRequiredError" in done.stderr and second in refusal and "approve_draft" in refusal
    assert first not in refusal.split("no decision")[0]
    assert _ran(log) == [] and (run / "events.jsonl").read_bytes() == before and not (run / "final.json").exists()
    with pytest.raises(ApprovalDecisionRequiredError, match="reject_draft"):
        noesis_nb.resume_run(run)
    noesis_nb.reject_draft(run, second, approver_id="ana")
    assert noesis_nb.resume_run(run) == run.name
    assert _ran(log) == [_tool(run, first)] and _outcome(run) == "vetoed"


def test_a_draft_never_paused_on_approved_after_the_refusal_runs(runs_dir: Path, tmp_path: Path):
    log = tmp_path / "ran.txt"
    run = _killed_before_second_pause(runs_dir, log)
    first, second = _drafts(run)
    noesis_nb.approve_draft(run, first, approver_id="ana")
    with pytest.raises(ApprovalDecisionRequiredError):
        noesis_nb.resume_run(run)
    noesis_nb.approve_draft(run, second, approver_id="ana")
    resumed = _resume_elsewhere(run)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert _ran(log) == [_tool(run, first), _tool(run, second)] and _outcome(run) == "success"
