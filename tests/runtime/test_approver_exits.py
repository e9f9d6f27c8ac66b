"""An approver policy that raises SystemExit or KeyboardInterrupt itself, or an exception whose ``__str__`` raises:
the policy's failure, the run sealed ``error`` naming the approver and the exception's type. Before, its exits were
taken for the user's stop (``cancelled``, nothing naming the approver; ``solve`` with SystemExit exited the process
silently), and the bad ``__str__`` was recorded as the package's own RuntimeError. Each runs ``solve`` in a process of
its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRELUDE = """
import sys, noesis_nb
class BadStr(Exception):
    def __str__(self): raise RuntimeError("str boom")
    def __repr__(self): raise RuntimeError("repr boom")
def agent(task, ctx):
    return ctx.tool("fs.w", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
"""
CASES = {
    "sync SystemExit": ("def gatekeeper(p): raise SystemExit(2)", "SystemExit"),
    "sync KeyboardInterrupt": ("def gatekeeper(p): raise KeyboardInterrupt", "KeyboardInterrupt"),
    "async SystemExit": ("async def gatekeeper(p): raise SystemExit(2)", "SystemExit"),
    "async KeyboardInterrupt": ("async def gatekeeper(p): raise KeyboardInterrupt", "KeyboardInterrupt"),
    "sync bad __str__": ("def gatekeeper(p): raise BadStr()", "BadStr"),
}


@pytest.mark.timeout(200)
@pytest.mark.parametrize("case", list(CASES))
def test_an_approvers_own_exit_or_bad_error_is_its_failure(case: str, tmp_path: Path) -> None:
    policy, raised = CASES[case]
    code = PRELUDE + policy + "\nprint('ENDED', noesis_nb.solve('t', using=agent, runs_dir=sys.argv[1], approver=gatekeeper))\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    argv = [sys.executable, "-W", "ignore", "-c", code, str(tmp_path)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "ENDED" in done.stdout, (done.returncode, done.stderr[-600:])
    (run,) = [d for d in tmp_path.iterdir() if d.name.startswith("ep_")]
    assert json.loads((run / "summary.json").read_text())["status"] == "error"
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    (act,) = [e for e in events if e["phase"] == "act"]
    (terminate,) = [e for e in events if e["phase"] == "terminate"]
    said = json.dumps([act["payload"].get("error"), terminate["payload"].get("message")])
    assert raised in said, said
    if raised != "BadStr":
        assert "approver gatekeeper" in terminate["payload"]["message"], terminate["payload"]
