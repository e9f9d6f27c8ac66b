"""kill -9 of the process running an approved subprocess tool kills the tool too (and what it started).

A tool that outlived its runner would finish its effect later: a user who checked after the crash, saw
nothing and retried would get the effect twice. Real processes: one pauses a run on an approved-to-be tool,
another approves and resumes it and is killed -9 while the tool (and a child of the tool) sleeps.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tooltest_helpers import sub_input

from noesis_nb.tools import ExecutionStatus

# the tool starts a child (the one with the effect), writes both pids, and waits for it
TOOL = r"""
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c",
    "import sys, time; time.sleep(30); open(sys.argv[1], 'a').write('paid\\n')", sys.argv[1]])
open(sys.argv[2], "w").write(f"{__import__('os').getpid()} {child.pid}")
child.wait()
"""

PAUSE = r"""
import asyncio, sys, noesis_nb as nb
async def agent(task, ctx):
    argv = [sys.executable, "-c", sys.argv[2], sys.argv[3], sys.argv[4]]
    return await ctx.tool_async("sh.pay", {"argv": argv}, effect="write", risk="high")
async def main():
    handle = nb.start("pay once", agent, runs_dir=sys.argv[1], approver="ask")
    await handle
    print(handle.status)
asyncio.run(main())
"""

RESUME = (
    "import sys, glob, noesis_nb as nb\nrun = glob.glob(sys.argv[1] + '/ep_*')[0]\nnb.approve_draft(run)\nnb.resume_run(run)\n"
)


def _gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs (exited, or a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _wait_for(condition, what: str, limit: float = 60.0) -> None:
    """Poll ``condition`` (a wait for something that must happen, not a measured duration)."""
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, f"{what} never happened"
        time.sleep(0.05)


def test_killing_the_runner_kills_the_tool_and_its_children(tmp_path: Path) -> None:
    root, effect, pids = tmp_path / "runs", tmp_path / "effect.txt", tmp_path / "pids.txt"
    paused = subprocess.run(
        [sys.executable, "-c", PAUSE, str(root), TOOL, str(effect), str(pids)], capture_output=True, text=True, timeout=120
    )
    assert paused.stdout.strip() == "paused", paused.stderr[-2000:]
    runner = subprocess.Popen([sys.executable, "-c", RESUME, str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2 or runner.poll() is not None, "tool start")
        assert runner.poll() is None, runner.stderr.read().decode()[-2000:] if runner.stderr else ""
        tool, child = map(int, pids.read_text().split())
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        _wait_for(lambda: (_gone(tool) and _gone(child)) or effect.exists(), "the tool's end")
        assert not effect.exists()  # the child died before its effect: it cannot happen later
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
        for pid in map(int, pids.read_text().split()) if pids.exists() else ():
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_timeout_ends_what_the_tool_started_too(harness, tmp_path: Path) -> None:
    """A tool's child holding its output open is killed with it at the timeout (it never writes its effect)."""
    effect, pids = tmp_path / "late.txt", tmp_path / "pids.txt"
    harness.prepare(sub_input({"argv": [sys.executable, "-c", TOOL, str(effect), str(pids)], "timeout_ms": 1500}))
    result = harness.execute("draft:ep_test:req-1")
    assert (result.status, result.reason_code) == (ExecutionStatus.FAILED, "tool.timeout")
    tool, child = map(int, pids.read_text().split())
    _wait_for(lambda: (_gone(tool) and _gone(child)) or effect.exists(), "the child's end")
    assert not effect.exists()
