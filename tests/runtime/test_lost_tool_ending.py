"""A process killed (SIGKILL) after its tool's execution record was written but before the tool's ending event:
``resume_run`` from another process writes that ending from the record (``tool.execution.succeeded`` for a tool that
exited 0) before it seals the run. Before, the log kept ``tool.execution.started`` with no ending at all, though the
outcome was on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.compat.checker import check_run

ROOT = Path(__file__).resolve().parents[2]
_KILLED = """
import os, signal, sys
def hook(event, args):  # SIGKILL itself as the tool's claim is removed: its record written, its ending event not
    if event == "os.remove" and str(args[0]).endswith(".claim") and "executions" in str(args[0]):
        os.kill(os.getpid(), signal.SIGKILL)
sys.addaudithook(hook)
import noesis_nb
def agent(task, ctx):
    return ctx.tool("fs.w", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")["returncode"]
noesis_nb.solve("t", using=agent, runs_dir=sys.argv[1], approver="auto")
"""


def test_resume_run_writes_a_recorded_tools_ending_before_sealing(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    killed = subprocess.run([sys.executable, "-c", _KILLED, str(tmp_path)], env=env, capture_output=True, timeout=120)
    assert killed.returncode == -9, killed.stderr[-500:]
    (run,) = [d for d in tmp_path.iterdir() if d.name.startswith("ep_")]
    (record,) = list((run / "tool_invocations" / "executions").glob("*.json"))
    assert json.loads(record.read_text())["status"] == "succeeded"
    resume = f"import warnings, noesis_nb\nwarnings.simplefilter('ignore')\nnoesis_nb.resume_run({str(run)!r})"
    subprocess.run([sys.executable, "-c", resume], env=env, check=True, capture_output=True, timeout=120)
    assert (run / "manifest.json").is_file()
    names = [json.loads(line)["payload"].get("event_name") for line in (run / "events.jsonl").read_text().splitlines()]
    endings = [n for n in names if n in ("tool.execution.succeeded", "tool.execution.failed", "tool.execution.outcome_unknown")]
    assert "tool.execution.started" in names and endings == ["tool.execution.succeeded"], names
    assert check_run(run) == []
