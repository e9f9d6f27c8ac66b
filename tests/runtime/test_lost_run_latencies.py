"""A run whose process was killed while its adapter ran, sealed ``process_lost`` by ``resume_run`` later: its summary's
``total_ms`` and ``duration_sec`` end at the dead process's last sign of life, and the act the sealer closes the run
with is written at the seal. Before, that act counted as the run's first action: ``first_action_ms`` spanned the
whole time the run lay dead (35 s against a ``total_ms`` of 140). Now the sealer's act is ``synthetic`` (as Noēsis
marks an act that is no action of the episode), ``first_action_ms`` skips it as Noēsis' does (left out: the episode
never acted), and the run passes tests/compat's checker. Its act still counts in ``act_count`` (every act event
does: Noēsis' artifact invariant)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from datetime import datetime
from pathlib import Path

import noesis_nb
from tests.compat.checker import check_run

ROOT = Path(__file__).resolve().parents[2]
_WRITER = """
import pathlib, sys, time, noesis_nb
def agent(task, ctx):
    ctx.emit("note", {"step": "working"})
    pathlib.Path(sys.argv[3]).write_text("x")
    time.sleep(120)
noesis_nb.solve("work slowly", using=agent, runs_dir=sys.argv[1], episode_id=sys.argv[2])
"""


def test_a_lost_runs_first_action_is_not_the_act_its_seal_wrote(runs_dir: Path, tmp_path: Path) -> None:
    started = tmp_path / "started"
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(runs_dir), "ep_lost_working", str(started)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the adapter never started"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    run = runs_dir / "ep_lost_working"
    died = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert not any(e["phase"] == "act" for e in died)  # the episode never acted
    time.sleep(1.5)  # the run lies dead a while before anyone seals it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RunRecovered: what this test provokes
        noesis_nb.resume_run("ep_lost_working", runs_dir=runs_dir)
    summary = json.loads((run / "summary.json").read_text())
    latencies = summary["metrics"]["latencies"]
    sealed = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    (act,) = (e for e in sealed if e["phase"] == "act")
    start = datetime.fromisoformat(sealed[0]["timestamp"])
    assert (datetime.fromisoformat(act["timestamp"]) - start).total_seconds() > 1.5  # written at the seal
    span = (datetime.fromisoformat(died[-1]["timestamp"]) - datetime.fromisoformat(summary["started_at"])).total_seconds()
    assert abs(summary["duration_sec"] - span) < 0.001  # to the last sign of life
    assert latencies["total_ms"] == round(summary["duration_sec"] * 1000)
    assert latencies.get("first_action_ms", 0) <= latencies["total_ms"], latencies
    assert "first_action_ms" not in latencies
    assert act["payload"].get("synthetic") is True  # no action of the episode, as Noēsis marks one
    assert summary["metrics"]["top_reasons"] == ["process_lost"]
    # act_count is the act events (Noēsis' artifact invariant), the sealer's too, and so are the state's actions (that
    # one marked as its event is); no tool was used by an act of the episode
    state = json.loads((run / "state.json").read_text())
    assert len(state["outcomes"]["actions"]) == summary["metrics"]["act_count"] == len([e for e in sealed if e["phase"] == "act"])
    assert state["outcomes"]["actions"][0].get("synthetic") is True
    assert summary["metrics"]["tool_coverage"] == 0.0
    assert check_run(run) == []
