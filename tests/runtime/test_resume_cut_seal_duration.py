"""A seal cut short right after ``terminate`` (the process killed) and completed later by ``resume_run`` in another
process: the episode's ``duration_sec`` ends at its own ``terminate``, not at the recovery's bookkeeping events."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import noesis_nb


def _cut_after_terminate(run: Path) -> None:
    """The run's files as a kill -9 right after its terminate line leaves them: no later line, no seal documents."""
    lines = (run / "events.jsonl").read_bytes().splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if json.loads(line)["phase"] == "terminate")
    (run / "events.jsonl").write_bytes(b"".join(lines[: end + 1]))
    for name in ("summary.json", "final.json", "manifest.json"):
        (run / name).unlink(missing_ok=True)


def test_duration_ends_at_terminate_when_a_recovery_completes_the_seal(runs_dir: Path):
    episode = noesis_nb.solve("short", using=lambda task: "done", runs_dir=runs_dir)
    run = runs_dir / episode
    _cut_after_terminate(run)
    code = "import sys, noesis_nb; noesis_nb.resume_run(sys.argv[1])"
    done = subprocess.run([sys.executable, "-c", code, str(run)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    terminate = next(e for e in events if e["phase"] == "terminate")
    after = [e for e in events if e["timestamp"] > terminate["timestamp"]]
    assert after, "the recovery wrote the seal's bookkeeping events after the terminate"
    summary = json.loads((run / "summary.json").read_text())
    ended = datetime.fromisoformat(terminate["timestamp"]) - datetime.fromisoformat(summary["started_at"])
    assert summary["duration_sec"] == round(ended.total_seconds(), 6)
