"""The wall clock stepping back (an NTP step, a VM resumed) while an adapter runs: the event log clamps each line's
time to the last one, and a timed step's ``metrics.completed_at`` (its line's time) is clamped with it, never before
its ``started_at``. Before, the act's ``completed_at`` was written an hour before its ``started_at`` and no longer
equalled its timestamp. The process steps its own clock (``time.time``/``time_ns`` read one hour back)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_CHILD = """
import sys, time, noesis_nb
import noesis_nb.store.eventlog as eventlog
real, real_ns = time.time, time.time_ns
def step_back():
    time.time = lambda: real() - 3600
    time.time_ns = lambda: real_ns() - 3600 * 10**9
    eventlog._time_ns = time.time_ns
def agent(task, ctx):
    ctx.emit("note", {"a": 1})
    step_back()
    ctx.emit("note", {"a": 2})
    ctx.tool("fs.r", {"argv": [sys.executable, "-c", "pass"]}, effect="read", risk="low")
    return 1
noesis_nb.solve("t", using=agent, runs_dir=sys.argv[1])
"""


def test_a_timed_step_never_ends_before_it_began_when_the_clock_steps_back(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-W", "ignore", "-c", _CHILD, str(tmp_path)], env=env, check=True, timeout=120)
    (run,) = [d for d in tmp_path.iterdir() if d.name.startswith("ep_")]
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    timed = [e for e in events if isinstance(e.get("metrics"), dict)]
    assert any(e["phase"] == "act" for e in timed)
    for event in timed:
        metrics = event["metrics"]
        began, ended = datetime.fromisoformat(metrics["started_at"]), datetime.fromisoformat(metrics["completed_at"])
        assert ended >= began, (event["phase"], metrics)
        assert metrics["completed_at"] == event["timestamp"], (event["phase"], metrics, event["timestamp"])
    stamps = [datetime.fromisoformat(e["timestamp"]) for e in events]
    assert stamps == sorted(stamps)
