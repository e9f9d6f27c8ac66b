"""A run paused on a governance veto, overridden, resumed by ``resume_run`` in another process whose adapter then ran
and was killed (SIGKILL) reads ``running`` (lost while it ran after the resume), not ``lost_resuming``: ``ns.interrupt``
and ``ns.checkpoint`` take it, and ``resume_run`` settles it (``process_lost``), the run passing tests/compat's checker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb import ns
from noesis_nb.runtime.stage import stage_of
from noesis_nb.store import read_events
from tests.compat.checker import check_run
from tests.compat.entrypoints import REPO

AGENT = "tests.runtime.test_stage_after_veto:going_on"

_RESUME = textwrap.dedent(
    """
    import sys, noesis_nb
    noesis_nb.resume_run(sys.argv[1], using=sys.argv[2])
    """
)


def _note(text: str) -> str:
    return text


async def going_on(task: str, ctx: Any) -> str:
    """Runs a tool (no approval), then its process is killed: only ever run by the resume in a child process."""
    await ctx.tool_async("notes.read", {"args": ["a"]}, protocol="python", fn=_note)
    if os.environ.get("NOESIS_NB_TEST_KILL_AFTER_TOOL") == "1":
        os.kill(os.getpid(), signal.SIGKILL)
    return "done"


def _vetoed(runs_dir: Path) -> Path:
    task = "Wipe the staging database"  # vetoed by the built-in rules
    run = runs_dir / noesis_nb.solve(task, using=AGENT, governance="enforce", pause_on_veto=True, runs_dir=runs_dir)
    noesis_nb.approve_draft(run, approver_id="ana", reason="staging only")
    return run


def _resume_killed(run: Path, *, kill_at: str | None = None) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    env["NOESIS_NB_TEST_KILL_AFTER_TOOL"] = "1"
    done = subprocess.run([sys.executable, "-c", _RESUME, str(run), AGENT], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]


def test_a_run_lost_after_its_veto_was_resumed_and_its_adapter_ran_reads_running(runs_dir: Path) -> None:
    run = _vetoed(runs_dir)
    _resume_killed(run)
    events = read_events(run / "events.jsonl")
    assert any(e.get("payload", {}).get("event_name") == "tool.execution.succeeded" for e in events)  # it went on
    assert stage_of(events).name == "running"
    ns.set(runs_dir=str(runs_dir))
    interrupt = ns.interrupt(run.name, reason="operator check")  # refused as "lost mid-resume" before
    ns.checkpoint(run.name, caused_by=interrupt)
    assert check_run(run) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run.name, runs_dir=runs_dir, using=AGENT)
    assert json.loads((run / "final.json").read_text())["outcome"] == "error"
    assert check_run(run) == []
