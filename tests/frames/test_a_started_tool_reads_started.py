"""A tool call that started and whose process was killed before its result reads ``unknown`` (started, no result
recorded), as ``tools_df`` documents it, not ``prepared`` (not run yet): its ``executed_at`` said it ran.

A tool that needs no approval has no decision to fall back on, so its row took its prepared record's own status.
The writer here is a real process, SIGKILLed while its tool's command runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

import noesis_nb

ROOT = Path(__file__).resolve().parents[2]
_WRITER = """
import sys, noesis_nb
async def agent(task, ctx):
    await ctx.tool_async("fs.slow", {"argv": [sys.executable, "-c", "import time; time.sleep(60)"]}, effect="read", risk="low")
    return "done"
noesis_nb.solve("slow tool", using=agent, runs_dir=sys.argv[1])
"""


def _killed_while_its_tool_ran(runs: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(runs)], env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            logs = list(runs.glob("ep_*/events.jsonl"))
            if logs and b"tool.execution.started" in logs[0].read_bytes():
                break
            assert proc.poll() is None, "the writer ended before its tool started"
            time.sleep(0.02)
        else:
            raise AssertionError("the tool never started")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the writer and its tool's command
        proc.wait()


def test_a_tool_killed_while_it_ran_reads_unknown_with_its_start(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _killed_while_its_tool_ran(runs)
    row = noesis_nb.tools_df(runs).iloc[0]
    assert row["tool"] == "fs.slow"
    assert not pd.isna(row["executed_at"])  # it started
    assert row["status"] == "unknown"
    assert noesis_nb.runs_df(runs).iloc[0]["tool_calls"] == 1
