"""Lost runs made for real: a writer process SIGKILLed while its adapter runs, or while its decided draft's tool runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

_WRITER = """
import sys, time
import noesis_nb

def agent(task, ctx):
    ctx.emit("reason", {"text": "working"})
    print("RUNNING", flush=True)
    time.sleep(120)

noesis_nb.solve("a long task", using=agent, runs_dir=sys.argv[1], episode_id=sys.argv[2])
"""

_PAUSED = """
import asyncio, sys
import noesis_nb

async def agent(task, ctx):
    argv = [sys.executable, "-c", "import sys, time, pathlib; pathlib.Path(sys.argv[1]).write_text('x'); time.sleep(120)",
            sys.argv[3]]
    return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")

async def main():
    handle = noesis_nb.start("a task", using=agent, runs_dir=sys.argv[1], episode_id=sys.argv[2])
    while handle.status != "paused":
        await asyncio.sleep(0.05)

asyncio.run(main())
noesis_nb.approve_draft(sys.argv[2], runs_dir=sys.argv[1], approver_id="ana")
"""

_RESUMER = "import sys, noesis_nb; noesis_nb.resume_run(sys.argv[2], runs_dir=sys.argv[1])"


def start_writer(runs: Path, episode_id: str) -> subprocess.Popen[str]:
    """A writer process whose adapter is running (for two minutes): its run is held, and lost once it is killed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(runs), episode_id], env=_ENV, cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "RUNNING"
    return proc


def lost_while_running(runs: Path, episode_id: str) -> None:
    """A run whose writer is SIGKILLed while its adapter runs (no pause)."""
    proc = start_writer(runs, episode_id)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def lost_while_its_tool_ran(runs: Path, episode_id: str, started: Path) -> None:
    """A run paused on a draft, approved, and resumed by a process SIGKILLed (with its tool) while the tool ran."""
    made = subprocess.run(
        [sys.executable, "-c", _PAUSED, str(runs), episode_id, str(started)],
        env=_ENV,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    proc = subprocess.Popen([sys.executable, "-c", _RESUMER, str(runs), episode_id], env=_ENV, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the resumed tool never started"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
