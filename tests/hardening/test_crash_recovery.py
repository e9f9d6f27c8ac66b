"""kill -9 between any two writes of an episode, then recover with the public API: nothing stuck, doubled or lost.

Every write point of five scenarios (live with a policy, live waiting for a human, solve paused
then resumed from disk, a veto paused then overridden, a batch of two) is a kill point: every
event line, document, rename, link, unlink and folder. After each kill, a person's recovery
runs: decide what waits for a decision, ``resume_run``; a draft whose outcome is unknown is
marked failed (never re-run); a batch is called again. Then every run must be sealed, verify and
pass Noēsis' validators (no file left that the manifest does not list), its tool must have run
at most once, no event may be written twice, and every frame must load it.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import noesis_nb

from .crashkit import BATCH_TASKS, run_batch
from .forkserver import ForkServer
from .recovery import check_recovered, recover
from .report import figures

HERE = Path(__file__).resolve().parent
SCENARIOS = ("live_auto", "live_ask", "solve_then_resume", "veto_then_resume")


def _killed_at_each_write(crash_server: ForkServer, scenario: str, tmp_path: Path, at_least: int) -> Iterator[tuple[int, Path]]:
    """Run ``scenario`` once whole to count its write points, then once per point, killed there: (point, root)."""
    full = crash_server.run(scenario=scenario, root=str(tmp_path / "full"), kill_at=None)
    assert full["outcome"] == "ok" and not full["killed"], full
    points = full["points"]
    assert points >= at_least, f"{scenario} has only {points} write points; the kill harness is not hooked in"
    for kill_at in range(1, points + 1):
        root = tmp_path / f"k{kill_at}"
        reply = crash_server.run(scenario=scenario, root=str(root), kill_at=kill_at)
        assert reply["killed"], f"kill point {kill_at} of {points} was never reached: {reply}"
        yield kill_at, root


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_kill_9_between_any_two_writes(crash_server: ForkServer, scenario: str, tmp_path: Path) -> None:
    tally: Counter = Counter()
    for _, root in _killed_at_each_write(crash_server, scenario, tmp_path, at_least=40):
        tally["killed"] += 1
        runs = sorted(p for p in (root / "runs").glob("ep_*")) if (root / "runs").is_dir() else []
        assert len(runs) <= 1
        if not runs:
            tally["killed before the run existed"] += 1
            continue
        recover(runs[0], scenario, root / "marker.txt", tally)
        check_recovered(runs[0], root / "marker.txt", tally)
    figures(
        f"crash recovery: {scenario}",
        {"write points": tally["killed"], **tally, "stuck": 0, "tool run twice": 0, "duplicate events": 0},
    )


def test_kill_9_between_any_two_writes_of_a_batch(crash_server: ForkServer, tmp_path: Path) -> None:
    """A batch of two with a policy-approved tool; after each kill the batch is called again until it is done
    (a draft paused before its policy's approval was written is decided by a person, as for one run; a run lost
    after its tool began is re-run only when asked, ``rerun_failed=True``: never by itself)."""
    tally: Counter = Counter()
    for kill_at, root in _killed_at_each_write(crash_server, "batch", tmp_path, at_least=60):
        tally["killed"] += 1
        rerun_failed = False
        for _ in range(4):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                entries = asyncio.run(run_batch(root, rerun_failed))
            statuses = [status for status, _, _ in entries]
            if statuses == ["ok"] * len(BATCH_TASKS):
                break
            for status, episode, error in entries:
                if status == "paused":  # killed before its policy's approval was written: a person decides
                    noesis_nb.approve_draft(root / "runs" / str(episode), approver_id="recovery")
                    tally["decided after the crash"] += 1
                elif status == "error":  # lost after its tool began: never re-run by itself, a person asks for it
                    assert "began to run (effect write), so it is not run again by itself" in str(error), error
                    rerun_failed = True
                    tally["lost after a write: re-run on request"] += 1
        assert statuses == ["ok"] * len(BATCH_TASKS), f"kill point {kill_at}: the batch ended {statuses}"
        record = json.loads((root / "runs" / "batches" / "b_kill.json").read_text())
        for row in record["entries"]:
            episodes = [*row.get("previous", []), row["episode_id"]]
            for episode in episodes:
                check_recovered(root / "runs" / episode, root / f"marker-{episode}.txt", tally)
            tally["lost runs run again as new episodes"] += len(episodes) - 1
            if sum((root / f"marker-{episode}.txt").exists() for episode in episodes) > 1:
                assert rerun_failed, f"kill point {kill_at}: a task's tool ran again without rerun_failed=True"
                tally["tool ran again, asked by rerun_failed"] += 1
    figures("crash recovery: batch", {"write points": tally["killed"], **tally, "stuck": 0, "tool run twice in one episode": 0})
