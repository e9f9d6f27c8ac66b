"""A draft whose process was killed (SIGKILL) after its approval was asked and before its pause, decided since by an
approver policy (``policy:<name>``, as policies are stored), is paused on by ``resume_run`` as the live episode pauses
for a policy: its ``run.interrupt``, ``run.checkpoint`` and ``run.resume`` are marked ``decided_by_policy``, so the
approvals' waiting time leaves it out; the run passes tests/compat's checker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import noesis_nb
from noesis_nb.frames.waits import waiting_seconds
from noesis_nb.store import read_events
from noesis_nb.store.vocab import POLICY_PAUSE_KEY
from tests.compat.checker import check_run
from tests.compat.entrypoints import REPO

_KILLED_ASKING = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from noesis_nb.runtime.recorder import Recorder
    real = Recorder.emit
    def emit(self, *args, **kwargs):  # kill -9 once the draft's approval is asked, before its pause
        event = real(self, *args, **kwargs)
        if (event.get("payload") or {}).get("event_name") == "tool.approval.pending":
            os.kill(os.getpid(), signal.SIGKILL)
        return event
    Recorder.emit = emit
    import noesis_nb
    from tests.runtime.test_policy_pause_after_kill import note

    async def agent(task, ctx):
        return await ctx.tool_async("notes.a", {"args": ["a"]}, protocol="python",
                                    fn=note, effect="write", risk="high")

    async def main():
        handle = noesis_nb.start("a note", agent, runs_dir=sys.argv[1], approver="ask")
        await handle

    asyncio.run(main())
    """
)


def note(text: str) -> str:
    return f"noted {text}"


def test_a_draft_a_policy_decided_after_its_process_was_killed_gets_the_policys_pause(runs_dir: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_ASKING, str(runs_dir)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    (run,) = runs_dir.iterdir()
    assert not any(e.get("event_type") == "run.interrupt" for e in read_events(run / "events.jsonl"))  # never paused
    noesis_nb.approve_draft(run, approver_id="policy:auto", reason="approved by approver policy 'auto'")
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    events = read_events(run / "events.jsonl")
    lifecycle = [e for e in events if e.get("event_type") in ("run.interrupt", "run.checkpoint", "run.resume")]
    assert [e["event_type"] for e in lifecycle] == ["run.interrupt", "run.checkpoint", "run.resume"]
    assert [e["payload"].get(POLICY_PAUSE_KEY) for e in lifecycle] == ["policy:auto"] * 3
    assert waiting_seconds(events) == 0  # nobody waited for a person
    assert check_run(run) == []
