"""kill -9 between any two writes of a live episode whose two tool drafts, awaited together, wait for a person
(decided in reverse order), then recover with the public API: decide what waits, ``resume_run``.

The run pauses on one draft at a time, so at every kill point it holds at most one ``pending_approval`` record;
after recovery it is sealed, passes Noēsis' validators (every started tool's §5 chain, no interrupt while paused) and
each tool ran at most once (exactly once when its success is recorded).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from noesis_nb.store import is_sealed, read_events, verify_manifest
from noesis_nb.store.layout import PREPARED_DIRS

from ..compat.checker import check_run
from .forkserver import ForkServer
from .recovery import recover
from .report import figures


def _records(run: Path) -> list[dict]:
    return [json.loads(p.read_text()) for sub in PREPARED_DIRS for p in (run / "tool_invocations" / sub).glob("*.json")]


def _undecided(run: Path) -> list[str]:
    approvals = run / "tool_invocations" / "approvals"
    return [
        r["draft_id"]
        for r in _records(run)
        if r["status"] in ("pending_approval", "prepared")
        and r["governance"]["requires_approval"]
        and not (approvals / f"{r['draft_id']}.json").exists()
    ]


def test_kill_9_between_any_two_writes_of_parallel_drafts(crash_server: ForkServer, tmp_path: Path) -> None:
    full = crash_server.run(scenario="live_parallel", root=str(tmp_path / "full"), kill_at=None)
    assert full["outcome"] == "ok" and not full["killed"], full
    (whole,) = (tmp_path / "full" / "runs").glob("ep_*")
    assert check_run(whole) == []
    tally: Counter = Counter()
    for kill_at in range(1, full["points"] + 1):
        root = tmp_path / f"k{kill_at}"
        reply = crash_server.run(scenario="live_parallel", root=str(root), kill_at=kill_at)
        assert reply["killed"], f"kill point {kill_at} was never reached: {reply}"
        tally["killed"] += 1
        runs = sorted((root / "runs").glob("ep_*")) if (root / "runs").is_dir() else []
        if not runs:
            tally["killed before the run existed"] += 1
            continue
        (run,) = runs
        pending = [r for r in _records(run) if r["status"] == "pending_approval"]
        assert len(pending) <= 1, f"kill point {kill_at}: {len(pending)} pending_approval records"
        marker = root / "marker.txt"
        recover(run, "live_parallel", marker, tally, drafts=_undecided)
        assert is_sealed(run), f"kill point {kill_at}: {run.name} is stuck"
        assert verify_manifest(run).ok
        violations = check_run(run)
        assert not violations, (kill_at, [f"{v.rule}: {v.message}" for v in violations])
        ran = marker.read_text().split() if marker.exists() else []
        assert sorted(set(ran)) == sorted(ran), f"kill point {kill_at}: a tool ran twice: {ran}"
        events = read_events(run / "events.jsonl")
        succeeded = [e for e in events if e["payload"].get("event_name") == "tool.execution.succeeded"]
        assert len(succeeded) <= len(ran)
        tally[f"tools run {len(ran)}"] += 1
    figures("crash recovery: live_parallel", {"write points": tally["killed"], **tally, "stuck": 0, "tool run twice": 0})
