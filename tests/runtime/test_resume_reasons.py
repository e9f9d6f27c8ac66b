"""What a ``run.resume`` says: a pause a person decided is resumed with no reason of its own (the pause's reason is
its interrupt's), and a pause closed by ``resume_run`` in another process (its process lost) is resumed by
``resume_run``, not by the episode that died."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb import ns
from noesis_nb.store import read_events
from tests.compat.checker import check_run
from tests.compat.entrypoints import REPO
from tests.runtime.test_closed_from_pause import CHILD


def _note(text: str) -> str:
    return text


def _call(ctx: Any, name: str) -> Any:
    return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high")


def _resumes(run: Path) -> list[dict[str, Any]]:
    return [e for e in read_events(run / "events.jsonl") if e.get("event_type") == "run.resume"]


def test_a_pause_people_decided_is_resumed_with_no_reason(runs_dir: Path) -> None:
    """``solve`` pauses on a, b held behind it; both approved, ``resume_run`` pauses on b in its turn and resumes each
    pause: a decided pause's resume carries no reason (one is written only when nobody decided: an abandoned draft,
    a run closed from its pause)."""

    async def agent(task: str, ctx: Any) -> Any:
        return await asyncio.gather(_call(ctx, "a"), _call(ctx, "b"))

    noesis_nb.solve("two notes", agent, runs_dir=runs_dir, approver="ask")
    (run,) = runs_dir.iterdir()
    asked = [e["payload"].get("draft_id") for e in read_events(run / "events.jsonl") if e.get("phase") == "tool"]
    for draft_id in dict.fromkeys(d for d in asked if d):
        noesis_nb.approve_draft(run, draft_id, approver_id="ana")
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    resumes = _resumes(run)
    assert len(resumes) == 2
    assert [r["payload"].get("reason") for r in resumes] == [None, None]
    assert check_run(run) == []


def test_a_pause_left_open_by_a_lost_process_is_resumed_by_resume_run(runs_dir: Path) -> None:
    """SIGKILLed mid-adapter, then paused with ``ns.interrupt`` alone: ``resume_run`` seals it lost, writing the
    pause's checkpoint and its resume, ``resumed_by`` resume_run."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(runs_dir)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "working"
    finally:
        child.kill()
        child.wait()
    (run,) = [p for p in runs_dir.iterdir() if p.name.startswith("ep_")]
    ns.set(runs_dir=str(runs_dir))
    ns.interrupt(run.name, reason="looking at it")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    (resume,) = _resumes(run)
    assert resume["payload"]["resumed_by"] == "resume_run"
    assert "closed while paused" in resume["payload"]["reason"]
    assert check_run(run) == []
