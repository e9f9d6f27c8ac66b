"""A draft approved and never started reads so, and resumes: a live episode killed (kill -9, a real process) after
its draft's ``tool.approved`` and before its ``tool.execution.started`` (written before the tool is handed anything)
left a tool that never ran, so ``resume_run`` runs it, once, and seals the run with its outcome (it sealed
``process_lost`` with the outcome "unknown"). And ``ns.resume`` (evidence only: nothing executes) leaves the run
paused for ``resume_run``, its state as its checkpoint bound it, where it read ``lost``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import noesis_nb
import noesis_nb.ns as ns
from noesis_nb._jsonio import sha256_bytes
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store import read_events
from tests.compat.checker import check_run

from .agents import make_writer

REPO = Path(__file__).resolve().parents[2]

_KILLED_BEFORE_START = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from noesis_nb.runtime.recorder import Recorder
    real = Recorder.emit
    def emit(self, phase, payload, *args, **kwargs):  # kill -9 just before the draft's start is written
        if isinstance(payload, dict) and payload.get("event_name") == "tool.execution.started":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, phase, payload, *args, **kwargs)
    Recorder.emit = emit
    import noesis_nb
    runs, log = sys.argv[1], sys.argv[2]
    code = "import sys; open(sys.argv[1], 'a').write('ran' + chr(10))"
    async def agent(task, ctx):
        return await ctx.tool_async("fs.write", {"argv": [sys.executable, "-c", code, log]}, effect="write", risk="high")
    async def main():
        handle = noesis_nb.start("write once", agent, runs_dir=runs)
        await handle
        print(handle.episode_id, flush=True)
        handle.approve(approver_id="ana")
        await handle.wait()
    asyncio.run(main())
    """
)


def _names(run: Path) -> list[str]:
    return [e["payload"].get("event_name") or e.get("event_type") or e["phase"] for e in read_events(run / "events.jsonl")]


def test_a_live_episode_killed_after_approval_before_the_start_runs_the_tool_once_on_resume(runs_dir, tmp_path):
    log = tmp_path / "ran.txt"
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_BEFORE_START, str(runs_dir), str(log)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == -9, done.stderr[-2000:]
    run = runs_dir / done.stdout.split()[0]
    assert _names(run)[-1] == "tool.approved" and not log.exists()
    assert noesis_nb.tools_df(run)["status"].tolist() == ["approved"]  # approved, not run: nothing says "unknown"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "sealed as error (process_lost)" recovery warning
        noesis_nb.resume_run(run)
    assert log.read_text() == "ran\n"  # once
    names = _names(run)
    assert "tool.execution.outcome_unknown" not in names
    assert names.count("tool.execution.started") == names.count("tool.execution.succeeded") == 1
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert DiskRun(run).status == "ok" and noesis_nb.tools_df(run)["status"].tolist() == ["succeeded"]
    assert check_run(run) == []


def test_ns_resume_leaves_the_run_paused_for_resume_run(runs_dir, tmp_path):
    ns.set(runs_dir=str(runs_dir))
    episode_id = noesis_nb.solve("note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
    run = runs_dir / episode_id
    checkpoint = [e for e in read_events(run / "events.jsonl") if e.get("event_type") == "run.checkpoint"][-1]
    record = json.loads((run / "checkpoints" / checkpoint["payload"]["checkpoint_id"] / "checkpoint.json").read_text())
    ns.resume(episode_id, checkpoint_id=record["checkpoint_id"])
    assert _names(run)[-1] == "run.resume"
    assert DiskRun(run).status == "paused" and len(DiskRun(run).pending) == 1
    assert [r["status"] for r in noesis_nb.list_runs(None, runs_dir=runs_dir)] == ["paused"]
    assert noesis_nb.runs_df(runs_dir)["status"].tolist() == ["paused"]
    assert sha256_bytes((run / "state.json").read_bytes()) == record["state_hash"]  # as the checkpoint bound it
    noesis_nb.approve_draft(run, approver_id="ana")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    assert (tmp_path / "out.txt").read_text() == "note\n"
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert check_run(run) == []
