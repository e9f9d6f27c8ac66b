"""A run whose process was killed while its tool ran is sealed by ``resume_run`` with a message naming the dead
process's last event as it was: the tool's step (``tool.execution.started``) at its time. It named the last
event of another phase (``action_candidate``), written before the tool began, and its time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import noesis_nb

ROOT = Path(__file__).resolve().parents[2]
_WRITER = """
import sys, noesis_nb
def agent(task, ctx):
    argv = [sys.executable, "-c", "import sys, time, pathlib; pathlib.Path(sys.argv[1]).write_text('x'); time.sleep(120)",
            sys.argv[3]]
    return ctx.tool("fs.read_slow", {"argv": argv}, effect="read", risk="low")
noesis_nb.solve("read slowly", using=agent, runs_dir=sys.argv[1], episode_id=sys.argv[2])
"""


def test_the_message_names_the_tool_step_the_process_died_in(runs_dir: Path, tmp_path: Path) -> None:
    started = tmp_path / "started"
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(runs_dir), "ep_killed_in_tool", str(started)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the tool never started"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the writer and its tool
        proc.wait()
    events = [json.loads(line) for line in (runs_dir / "ep_killed_in_tool" / "events.jsonl").read_text().splitlines()]
    last = events[-1]
    assert last["payload"].get("event_name") == "tool.execution.started", last
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RunRecovered: what this test provokes
        noesis_nb.resume_run("ep_killed_in_tool", runs_dir=runs_dir)
    sealed = [json.loads(line) for line in (runs_dir / "ep_killed_in_tool" / "events.jsonl").read_text().splitlines()]
    message = next(e for e in sealed if e["phase"] == "terminate")["payload"]["message"]
    assert f"(last event: tool.execution.started at {last['timestamp']})" in message, message
