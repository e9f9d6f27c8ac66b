"""The interrupt (Ctrl-C, the kernel's ■) goes to the kernel's whole process group, so a ``subprocess`` tool's
process may die of it before the episode hears it (an idle kernel never does). The episode then stops
``cancelled``, as the interrupt asks, instead of ending ``error`` on the tool the interrupt killed.

The tests send the two signals in the order that loses the race (the tool's process first, then, a moment
later, the process running the episode). A tool that dies of SIGINT while no interrupt comes is a tool failure
as any other: the adapter may handle it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import read_events, read_summary
from noesis_nb.tools import ToolExecutionFailedError

from ..compat.checker import check_run
from ..conftest import REPO

SCRIPT = """
import asyncio, sys
import noesis_nb

root, pidfile, how = sys.argv[1], sys.argv[2], sys.argv[3]
CHILD = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
PAYLOAD = {"argv": [sys.executable, "-c", CHILD, pidfile]}

async def agent_async(task, ctx):
    return await ctx.tool_async("sh.wait", PAYLOAD)

def agent_sync(task, ctx):
    return ctx.tool("sh.wait", PAYLOAD)

async def in_background():  # a kernel's loop: the episode runs while no cell waits on it
    handle = noesis_nb.start("wait", using=agent_async, runs_dir=root)
    while not handle.done():
        await asyncio.sleep(0.05)

if how == "background":
    asyncio.run(in_background())
else:
    noesis_nb.solve("wait", using=agent_sync if how == "sync" else agent_async, runs_dir=root)
"""


def interrupt(proc: subprocess.Popen[bytes], pidfile: Path) -> None:
    """The interrupt as it lands when the tool's process hears it first: the tool, then 0.1 s later its parent."""
    wait_for(pidfile)
    os.kill(int(pidfile.read_text()), signal.SIGINT)
    time.sleep(0.1)
    proc.send_signal(signal.SIGINT)


def wait_for(pidfile: Path) -> None:
    """Until the tool's process has written its pid (30 s at most)."""
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.mark.parametrize("how", ["async", "sync", "background"])
def test_a_tool_process_killed_by_the_interrupt_stops_the_episode_cancelled(tmp_path: Path, how: str) -> None:
    root, pidfile = tmp_path / "runs", tmp_path / "tool.pid"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(root), str(pidfile), how], env=env, stderr=subprocess.PIPE)
    try:
        interrupt(proc, pidfile)  # the tool's process hears the interrupt; its episode a moment later
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    [run] = list(root.iterdir())
    assert read_summary(run)["status"] == "cancelled", err.decode()[-2000:]
    names = [e["payload"].get("event_name") for e in read_events(run / "events.jsonl") if e.get("phase") == "tool"]
    assert names[-1] == "tool.execution.failed" and names.count("tool.execution.started") == 1
    assert check_run(run) == []


RESUME = """
import sys, noesis_nb
noesis_nb.resume_run(sys.argv[2], runs_dir=sys.argv[1])
"""


def test_an_approved_tool_killed_by_the_interrupt_on_resume_seals_the_run_cancelled(tmp_path: Path) -> None:
    root, pidfile = tmp_path / "runs", tmp_path / "tool.pid"
    child = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"

    async def asks(task: str, ctx: Any) -> Any:
        payload = {"argv": [sys.executable, "-c", child, str(pidfile)]}
        return await ctx.tool_async("sh.wait", payload, effect="write", risk="high")

    episode_id = noesis_nb.solve("wait", using=asks, runs_dir=root, approver="ask")
    noesis_nb.approve_draft(root / episode_id, approver_id="ana")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", RESUME, str(root), episode_id], env=env, stderr=subprocess.PIPE)
    try:
        interrupt(proc, pidfile)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    run = root / episode_id
    assert (read_summary(run) or {}).get("status") == "cancelled", err.decode()[-2000:]
    names = [e["payload"].get("event_name") for e in read_events(run / "events.jsonl") if e.get("phase") == "tool"]
    assert names.count("tool.execution.started") == 1 and names.count("tool.execution.failed") == 1
    assert check_run(run) == []


def test_a_tool_that_dies_of_sigint_with_no_interrupt_is_a_tool_failure_the_adapter_may_handle(tmp_path: Path) -> None:
    """Nobody pressed ■: the tool signalled itself. The adapter's own handling of a failed tool runs."""
    child = "import os, signal; signal.signal(signal.SIGINT, signal.SIG_DFL); os.kill(os.getpid(), signal.SIGINT)"

    async def falls_back(task: str, ctx: Any) -> Any:
        try:
            return await ctx.tool_async("sh.selfint", {"argv": [sys.executable, "-c", child]})
        except ToolExecutionFailedError as exc:
            return f"fell back after {exc.reason_code}"

    root = tmp_path / "runs"
    episode_id = noesis_nb.solve("self-interrupting tool", using=falls_back, runs_dir=root)
    run = root / episode_id
    assert read_summary(run)["status"] == "ok"
    names = [e["payload"].get("event_name") for e in read_events(run / "events.jsonl") if e.get("phase") == "tool"]
    assert names.count("tool.execution.failed") == 1
    assert check_run(run) == []
