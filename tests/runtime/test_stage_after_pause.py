"""A run that went on past a pause and was lost later reads ``running``: ``ns.interrupt`` and ``ns.checkpoint`` take
it, and the run they leave passes tests/compat's checker and is settled by ``resume_run``. A pause an approver
policy decided is over in one breath; a person's is over once its tool ran."""

from __future__ import annotations

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

_KILLED_AFTER_TOOL = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from noesis_nb.runtime.recorder import Recorder
    real = Recorder.emit
    def emit(self, *args, **kwargs):  # kill -9 once the tool ran (its outcome written)
        event = real(self, *args, **kwargs)
        if (event.get("payload") or {}).get("event_name") == "tool.execution.succeeded":
            os.kill(os.getpid(), signal.SIGKILL)
        return event
    Recorder.emit = emit
    import noesis_nb

    def note(text):
        return text

    async def agent(task, ctx):
        await ctx.tool_async("notes.a", {"args": ["a"]}, protocol="python", fn=note, effect="write", risk="high")
        return "done"

    if sys.argv[2] == "solve":
        noesis_nb.solve("a note", using=agent, runs_dir=sys.argv[1], approver="auto")
    else:
        noesis_nb.resume_run(sys.argv[2], runs_dir=sys.argv[1], using="tests.runtime.test_stage_after_pause:agent")
    """
)


def _note(text: str) -> str:
    return text


async def agent(task: str, ctx: Any) -> str:
    await ctx.tool_async("notes.a", {"args": ["a"]}, protocol="python", fn=_note, effect="write", risk="high")
    return "done"


def _killed(runs_dir: Path, what: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_AFTER_TOOL, str(runs_dir), what], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]


def _paused_and_settled(run: Path) -> None:
    ns.set(runs_dir=str(run.parent))
    interrupt = ns.interrupt(run.name, reason="operator check")
    ns.checkpoint(run.name, caused_by=interrupt)
    assert check_run(run) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run.name, runs_dir=run.parent)
    assert check_run(run) == []


def test_a_run_lost_after_a_policys_pause_reads_running(runs_dir: Path) -> None:
    _killed(runs_dir, "solve")
    (run,) = runs_dir.iterdir()
    events = read_events(run / "events.jsonl")
    assert events[-1]["payload"]["event_name"] == "tool.execution.succeeded"
    assert stage_of(events).name == "running"
    _paused_and_settled(run)


def test_a_run_lost_after_its_resumed_tool_ran_reads_running(runs_dir: Path) -> None:
    episode_id = noesis_nb.solve("a note", using=agent, runs_dir=runs_dir, approver="ask")
    noesis_nb.approve_draft(runs_dir / episode_id, approver_id="ana")
    _killed(runs_dir, episode_id)
    events = read_events(runs_dir / episode_id / "events.jsonl")
    assert events[-1]["payload"]["event_name"] == "tool.execution.succeeded"
    assert stage_of(events).name == "running"
    _paused_and_settled(runs_dir / episode_id)
