"""A resume killed (kill -9) after it claimed a draft but before the draft's ``tool.execution.started`` (which is
written before the tool is handed anything): the tool never ran, so the next ``resume_run`` simply runs it, once,
instead of reporting its outcome unknown. A draft whose ``tool.execution.started`` is in the log stays unknown:
nothing ever runs a tool twice silently."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import noesis_nb
from tests.runtime.test_resume_many_drafts import _drafts, _outcome, _pause, _ran, _resume_elsewhere, _tool

_KILLED_AFTER = textwrap.dedent(
    """
    import os, signal, sys
    from noesis_nb.runtime.recorder import Recorder
    name, nth = os.environ["KILL_AFTER"], int(os.environ["KILL_NTH"])
    seen = []
    real = Recorder.emit
    def emit(self, *args, **kwargs):  # kill -9 right after the nth event called `name` is written
        event = real(self, *args, **kwargs)
        if name in (event.get("event_type"), (event.get("payload") or {}).get("event_name")):
            seen.append(1)
            if len(seen) == nth:
                os.kill(os.getpid(), signal.SIGKILL)
        return event
    Recorder.emit = emit
    import noesis_nb
    noesis_nb.resume_run(sys.argv[1])
    """
)


def _resume_killed_after(run: Path, name: str, nth: int = 1) -> None:
    env = {**os.environ, "KILL_AFTER": name, "KILL_NTH": str(nth)}
    done = subprocess.run([sys.executable, "-c", _KILLED_AFTER, str(run)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == -9, done.stderr[-2000:]


@pytest.mark.parametrize("name", ["run.resume", "tool.approved"])
def test_a_draft_claimed_by_a_resume_killed_before_it_started_runs_once(runs_dir: Path, tmp_path: Path, name: str):
    log = tmp_path / "ran.txt"
    run = _pause(runs_dir, log, "a")
    (draft,) = _drafts(run)
    noesis_nb.approve_draft(run, draft, approver_id="ana")
    _resume_killed_after(run, name)
    assert _ran(log) == []
    resumed = _resume_elsewhere(run)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert _ran(log) == ["a"] and _outcome(run) == "success"


@pytest.mark.parametrize("name", ["run.resume", "tool.approved"])
def test_the_second_draft_claimed_by_a_resume_killed_before_it_started_runs_once(runs_dir: Path, tmp_path: Path, name: str):
    log = tmp_path / "ran.txt"
    run = _pause(runs_dir, log, "a,b")
    for draft in _drafts(run):
        noesis_nb.approve_draft(run, draft, approver_id="ana")
    first, second = (_tool(run, d) for d in _drafts(run))
    _resume_killed_after(run, name, nth=2)  # the second draft's: the first ran and its result is recorded
    assert _ran(log) == [first]
    resumed = _resume_elsewhere(run)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert _ran(log) == [first, second] and _outcome(run) == "success"


def test_a_draft_whose_start_is_in_the_log_stays_outcome_unknown(runs_dir: Path, tmp_path: Path):
    log = tmp_path / "ran.txt"
    run = _pause(runs_dir, log, "a")
    (draft,) = _drafts(run)
    noesis_nb.approve_draft(run, draft, approver_id="ana")
    _resume_killed_after(run, "tool.execution.started")
    resumed = _resume_elsewhere(run)
    assert resumed.returncode != 0 and "ToolOutcomeUnknownError" in resumed.stderr
    assert _ran(log) == [] and not (run / "final.json").exists()
    assert _resume_elsewhere(run, "unknown_outcome=retry").returncode == 0
    assert _ran(log) == ["a"] and _outcome(run) == "success"
