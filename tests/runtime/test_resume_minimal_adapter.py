"""A run ``ns.run`` started (no adapter: label ``adapter:core.minimal``) and paused on an enforced veto resumes from
another process as Noēsis' README does it: ``ns.resume_run(ep, checkpoint_id=…)`` with ``using`` left out, or the
adapter named by its label; another adapter is refused naming the one to pass."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_PAUSE = textwrap.dedent(
    """
    import sys
    from noesis_nb import ns
    ns.set(runs_dir=sys.argv[1], governance_mode="enforce", governance_pause_on_veto=True)
    print(ns.run("wipe the scratch disk"))
    """
)
_RESUME = textwrap.dedent(
    """
    import json, sys
    from noesis_nb import ns
    ns.set(runs_dir=sys.argv[1])
    using = json.loads(sys.argv[4])
    if using == "other":
        using = lambda task: "another agent"
    print(ns.resume_run(sys.argv[2], checkpoint_id=sys.argv[3], using=using))
    """
)


def _paused(runs_dir: Path) -> tuple[Path, str]:
    done = subprocess.run([sys.executable, "-c", _PAUSE, str(runs_dir)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    run = runs_dir / done.stdout.split()[-1]
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    checkpoints = [e["payload"]["checkpoint_id"] for e in events if e.get("event_type") == "run.checkpoint"]
    assert len(checkpoints) == 1 and not (run / "final.json").exists()
    return run, checkpoints[0]


def _resume(runs_dir: Path, run: Path, checkpoint: str, using: object) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", _RESUME, str(runs_dir), run.name, checkpoint, json.dumps(using)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("using", [None, "core.minimal", "adapter:core.minimal"])
def test_a_minimal_run_paused_on_a_veto_resumes(runs_dir: Path, using: object):
    run, checkpoint = _paused(runs_dir)
    done = _resume(runs_dir, run, checkpoint, using)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    acts = [e for e in events if e["phase"] == "act"]
    assert [a["payload"]["tool"] for a in acts] == ["adapter:core.minimal"]


def test_another_adapter_is_refused_naming_the_fix(runs_dir: Path):
    run, checkpoint = _paused(runs_dir)
    before = (run / "events.jsonl").read_bytes()
    done = _resume(runs_dir, run, checkpoint, "other")
    assert done.returncode != 0 and "ResumeAdapterMismatchError" in done.stderr
    assert "'adapter:core.minimal'" in done.stderr and "leave it out" in done.stderr
    assert (run / "events.jsonl").read_bytes() == before and not (run / "final.json").exists()
