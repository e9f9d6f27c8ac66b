"""A user object whose ``__str__``/``__repr__`` never returns (returned by an adapter, raised by it, given as an
approver's reason, returned by a scorer or a python tool): the package names it after ``TEXT_WAIT_S`` instead of
waiting for it forever, and the episode seals. Each runs ``solve`` in a process of its own, which used to hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRELUDE = """
import sys, threading, noesis_nb
class Hang:
    def __str__(self): threading.Event().wait()
    def __repr__(self): threading.Event().wait()
class HangError(Exception):
    def __str__(self): threading.Event().wait()
    def __repr__(self): threading.Event().wait()
def tool_agent(task, ctx):
    return ctx.tool("fs.w", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
def hang_tool(**kw):
    return Hang()
RUNS = sys.argv[1]
"""
CASES = {
    "adapter result": "noesis_nb.solve('t', using=lambda t: Hang(), runs_dir=RUNS)",
    "adapter error": "def a(t): raise HangError()\nnoesis_nb.solve('t', using=a, runs_dir=RUNS)",
    "approver reason": "noesis_nb.solve('t', using=tool_agent, runs_dir=RUNS, approver=lambda p: (False, Hang()))",
    "scorer value": "noesis_nb.solve('t', using=lambda t: 1, runs_dir=RUNS, score=lambda t, r: Hang())",
    "python tool result": (
        "def a(t, ctx):\n"
        "    return ctx.tool('py.h', {'kwargs': {}}, protocol='python', fn=hang_tool, effect='read', risk='low')\n"
        "noesis_nb.solve('t', using=a, runs_dir=RUNS)"
    ),
}


@pytest.mark.timeout(200)
@pytest.mark.parametrize("case", list(CASES))
def test_an_object_whose_text_never_comes_is_named_and_the_run_seals(case: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    try:
        subprocess.run(
            [sys.executable, "-W", "ignore", "-c", PRELUDE + CASES[case], str(tmp_path)],
            env=env,
            capture_output=True,
            timeout=120,  # each such object costs the wait (5 s) once; before, the process never ended
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: solve never returned (the package waited for the object's text)")
    (run,) = [d for d in tmp_path.iterdir() if d.name.startswith("ep_")]
    assert (run / "manifest.json").is_file(), f"{case}: the run was not sealed"
    log = (run / "events.jsonl").read_text()
    assert "did not return within" in log, f"{case}: the object is not named as one whose text never came"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] in {"ok", "error", "vetoed"}
