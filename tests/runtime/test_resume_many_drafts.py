"""A run paused on several tool drafts at once (parallel ``ctx.tool_async`` calls), decided and resumed from other
processes: every approved draft runs, once, in the order its approval was asked; a rejected one never runs and the
run ends ``vetoed``; an undecided one makes ``resume_run`` refuse before anything runs, naming it. The run pauses on
one draft at a time: the others wait held, and the pause's one checkpoint resumes them all."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import read_events
from noesis_nb.tools import ApprovalDecisionRequiredError

_PAUSE = textwrap.dedent(
    """
    import asyncio, sys, noesis_nb
    runs, log, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    code = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + chr(10))"
    async def many(task, ctx):
        return await asyncio.gather(*(
            ctx.tool_async(f"fs.{n}", {"argv": [sys.executable, "-c", code, log, n]}, effect="write", risk="high")
            for n in names
        ))
    async def main():
        handle = noesis_nb.start("parallel writes", many, runs_dir=runs, approver="ask")
        await handle
        assert handle.status == "paused" and len(handle.pending) == len(names), (handle.status, handle.pending)
        print(handle.episode_id)
    asyncio.run(main())
    """
)


def _pause(runs_dir: Path, log: Path, names: str) -> Path:
    """A run paused in another process on one draft per name (its tools append the name to ``log``)."""
    done = subprocess.run(
        [sys.executable, "-c", _PAUSE, str(runs_dir), str(log), names], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return runs_dir / done.stdout.split()[-1]


def _drafts_of(run: Path, event_name: str) -> list[str]:
    """The drafts of the run's tool events named ``event_name``, in the order they were written."""
    return [
        e["payload"]["draft_id"]
        for e in read_events(run / "events.jsonl")
        if e.get("phase") == "tool" and e["payload"].get("event_name") == event_name
    ]


def _drafts(run: Path) -> list[str]:
    """The run's drafts in the order their approval was asked."""
    return _drafts_of(run, "tool.approval.pending")


def _checkpoints(run: Path) -> list[str]:
    return [e["payload"]["checkpoint_id"] for e in read_events(run / "events.jsonl") if e.get("event_type") == "run.checkpoint"]


def _tool(run: Path, draft_id: str) -> str:
    prepared = json.loads((run / "tool_invocations" / "prepared" / f"{draft_id}.json").read_text())
    return prepared["tool"]["name"]


def _resume_elsewhere(run: Path, *args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys, noesis_nb; print(noesis_nb.resume_run(sys.argv[1], **dict(a.split('=') for a in sys.argv[2:])))"
    return subprocess.run([sys.executable, "-c", code, str(run), *args], capture_output=True, text=True, timeout=120)


def _outcome(run: Path) -> str:
    return json.loads((run / "final.json").read_text())["outcome"]


def _ran(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


@pytest.mark.parametrize("names", ["a,b", "a,b,c"])
def test_approved_drafts_all_run_once_in_order(runs_dir: Path, tmp_path: Path, names: str):
    log = tmp_path / "ran.txt"
    run = _pause(runs_dir, log, names)
    for draft in _drafts(run):
        noesis_nb.approve_draft(run, draft, approver_id="ana")
    done = _resume_elsewhere(run)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _ran(log) == names.split(",")
    assert _outcome(run) == "success"
    assert _drafts_of(run, "tool.execution.started") == _drafts(run)


def test_approved_and_rejected_runs_the_approved_one_and_ends_vetoed(runs_dir: Path, tmp_path: Path):
    log = tmp_path / "ran.txt"
    run = _pause(runs_dir, log, "a,b")
    first, second = _drafts(run)
    noesis_nb.reject_draft(run, first, approver_id="ana", reason="not this one")
    noesis_nb.approve_draft(run, second, approver_id="ana")
    done = _resume_elsewhere(run)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _ran(log) == [_tool(run, second)]
    assert _outcome(run) == "vetoed"
    assert _drafts_of(run, "tool.rejected.governance") == [first]


def test_an_undecided_draft_refuses_the_resume_before_anything_runs(runs_dir: Path, tmp_path: Path):
    log = tmp_path / "ran.txt"
    run = _pause(runs_dir, log, "a,b")
    first, second = _drafts(run)
    noesis_nb.approve_draft(run, first, approver_id="ana")
    before = (run / "events.jsonl").read_bytes()
    done = _resume_elsewhere(run)
    assert done.returncode != 0
    assert (
        "ApprovalDecisionRequiredError" in done.stderr
        and second in done.stderr
        and first not in done.stderr.split("ApprovalDecisionRequiredError")[-1].split("has no decision")[0]
    )
    assert _ran(log) == [] and (run / "events.jsonl").read_bytes() == before
    with pytest.raises(ApprovalDecisionRequiredError, match="reject_draft"):
        noesis_nb.resume_run(run)
    noesis_nb.reject_draft(run, second, approver_id="ana")
    assert noesis_nb.resume_run(run) == run.name
    assert _ran(log) == [_tool(run, first)] and _outcome(run) == "vetoed"


@pytest.mark.parametrize("named", [True, False])
def test_the_one_checkpoint_of_the_pause_resumes_every_draft(runs_dir: Path, tmp_path: Path, named: bool):
    """The run pauses on one draft at a time: paused on parallel drafts it has one checkpoint (the other draft waits
    held), and a resume from it, named or not, runs both."""
    log = tmp_path / "ran.txt"
    run = _pause(runs_dir, log, "a,b")
    for draft in _drafts(run):
        noesis_nb.approve_draft(run, draft, approver_id="ana")
    checkpoints = _checkpoints(run)
    assert len(checkpoints) == 1
    done = _resume_elsewhere(run, *([f"checkpoint_id={checkpoints[0]}"] if named else []))
    assert done.returncode == 0, done.stderr[-2000:]
    assert _ran(log) == ["a", "b"] and _outcome(run) == "success"


_TWO_PAUSES = textwrap.dedent(
    """
    import asyncio, sys, noesis_nb
    runs, log = sys.argv[1], sys.argv[2]
    code = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + chr(10))"
    async def one_then_another(task, ctx):
        for n in ("a", "b"):
            await ctx.tool_async(f"fs.{n}", {"argv": [sys.executable, "-c", code, log, n]}, effect="write", risk="high")
        return "both"
    async def main():
        handle = noesis_nb.start("one then another", one_then_another, runs_dir=runs, approver="ask")
        await handle
        handle.approve(approver_id="ana")
        await handle
        assert handle.status == "paused", handle.status
        print(handle.episode_id)
    asyncio.run(main())
    """
)


def test_a_checkpoint_resumed_already_is_refused_saying_so(runs_dir: Path, tmp_path: Path):
    """Paused on a draft, approved and continued live, paused again on the next: the first checkpoint is refused as
    resumed already, naming the one to resume from (not as a file changed since the pause), and nothing is written."""
    log = tmp_path / "ran.txt"
    done = subprocess.run(
        [sys.executable, "-c", _TWO_PAUSES, str(runs_dir), str(log)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    run = runs_dir / done.stdout.split()[-1]
    checkpoints = _checkpoints(run)
    noesis_nb.approve_draft(run, _drafts(run)[-1], approver_id="ana")
    before = (run / "events.jsonl").read_bytes()
    refused = _resume_elsewhere(run, f"checkpoint_id={checkpoints[0]}")
    assert refused.returncode != 0 and "CheckpointConsistencyError" in refused.stderr
    assert "resumed already" in refused.stderr and checkpoints[-1] in refused.stderr
    assert "changed since the pause" not in refused.stderr
    assert (run / "events.jsonl").read_bytes() == before and _ran(log) == ["a"]
    assert _resume_elsewhere(run, f"checkpoint_id={checkpoints[-1]}").returncode == 0
    assert _ran(log) == ["a", "b"] and _outcome(run) == "success"


_KILLED_BEFORE_SECOND_PAUSE = textwrap.dedent(
    """
    import os, signal, sys
    from noesis_nb.runtime.recorder import Recorder
    asked = []
    real = Recorder.emit
    def emit(self, phase, payload, **kwargs):  # kill -9 once the second draft's approval request is written
        event = real(self, phase, payload, **kwargs)
        if payload.get("event_name") == "tool.approval.pending":
            asked.append(1)
            if len(asked) == 2:
                os.kill(os.getpid(), signal.SIGKILL)
        return event
    Recorder.emit = emit
    """
)


def test_an_approved_draft_its_process_died_before_pausing_on_runs(runs_dir: Path, tmp_path: Path):
    log = tmp_path / "ran.txt"
    code = _KILLED_BEFORE_SECOND_PAUSE + _PAUSE
    done = subprocess.run(
        [sys.executable, "-c", code, str(runs_dir), str(log), "a,b"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -9, done.stderr[-2000:]
    (run,) = runs_dir.iterdir()
    records = [json.loads(p.read_text()) for p in (run / "tool_invocations" / "prepared").glob("*.json")]
    assert sorted(r["status"] for r in records) == ["pending_approval", "prepared"]  # held from its first write
    for draft in _drafts(run):
        noesis_nb.approve_draft(run, draft, approver_id="ana")
    resumed = _resume_elsewhere(run)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert _ran(log) == ["a", "b"] and _outcome(run) == "success"
