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
from noesis_nb.store import is_sealed, read_events, verify_manifest
from noesis_nb.tools import ApprovalDecisionRequiredError, ToolOutcomeUnknownError

from ..compat.checker import check_run
from .crashkit import BATCH_TASKS, agent_for, run_batch
from .forkserver import ForkServer
from .report import figures

HERE = Path(__file__).resolve().parent
SCENARIOS = ("live_auto", "live_ask", "solve_then_resume", "veto_then_resume")
#: events a run holds at most once (after recovery as before)
ONCE_PER_RUN = ("start", "plan", "act", "reflect", "learn", "terminate", "insight", "memory")
ONCE_PER_REQUEST = (
    "tool.requested",
    "tool.draft_created",
    "tool.approval.pending",
    "tool.approved",
    "tool.execution.started",
    "tool.execution.succeeded",
    "tool.execution.failed",
)


@pytest.fixture(scope="module")
def server():
    forks = ForkServer(HERE / "crashkit.py")
    yield forks
    forks.close()


def _recover(run: Path, scenario: str, marker: Path, tally: Counter) -> None:
    """What a person does after a crash: resume; decide what waits for a decision; an unknown outcome is marked failed."""
    agent = agent_for(scenario, str(marker))
    for _ in range(6):
        if is_sealed(run):
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                noesis_nb.resume_run(run, using=agent)
        except ApprovalDecisionRequiredError:
            noesis_nb.approve_draft(run, approver_id="recovery")
            tally["decided after the crash"] += 1
        except ToolOutcomeUnknownError:
            tally["outcome unknown, marked failed"] += 1
            noesis_nb.resume_run(run, using=agent, unknown_outcome="fail")


def _check(run: Path, marker: Path, tally: Counter) -> None:
    assert is_sealed(run), f"{run.name} is stuck: not sealed after recovery"
    check = verify_manifest(run)
    assert check.ok, check.problems
    events = read_events(run / "events.jsonl", strict=True)
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids)), "an event id appears twice"
    phases = Counter(e["phase"] for e in events)
    for phase in ONCE_PER_RUN:
        assert phases[phase] <= 1, f"{phase} written {phases[phase]} times"
    assert phases["terminate"] == 1 and phases["insight"] == 1
    per_request = Counter(
        (e["payload"].get("request_id"), e["payload"].get("event_name")) for e in events if e["phase"] == "tool"
    )
    twice = {k: n for k, n in per_request.items() if k[1] in ONCE_PER_REQUEST and n > 1}
    assert not twice, f"tool events written twice: {twice}"
    resumes = Counter(e["payload"].get("checkpoint_id") for e in events if e.get("event_type") == "run.resume")
    assert all(n == 1 for n in resumes.values()), f"a checkpoint resumed twice: {resumes}"
    runs = [line for line in marker.read_text().splitlines()] if marker.exists() else []
    assert len(runs) <= 1, f"the tool ran {len(runs)} times"
    if runs:
        tally["tool ran once"] += 1
    succeeded = [e for e in events if e["phase"] == "tool" and e["payload"].get("event_name") == "tool.execution.succeeded"]
    if succeeded:
        assert len(runs) == 1, "a recorded success without the tool's effect"
    assert len(noesis_nb.runs_df(run, strict=True, cache=False)) == 1
    assert len(noesis_nb.events_df(run, strict=True, cache=False)) == len(events)
    for frame in (noesis_nb.tools_df, noesis_nb.usage_df):
        frame(run, strict=True, cache=False)  # loads, strictly
    violations = check_run(run)  # a recovered run is still a Noēsis run
    assert not violations, [f"{v.rule}: {v.message}" for v in violations]
    status = next(e for e in events if e["phase"] == "terminate")["payload"]["status"]
    tally[f"sealed {status}"] += 1


def _killed_at_each_write(server: ForkServer, scenario: str, tmp_path: Path, at_least: int) -> Iterator[tuple[int, Path]]:
    """Run ``scenario`` once whole to count its write points, then once per point, killed there: (point, root)."""
    full = server.run(scenario=scenario, root=str(tmp_path / "full"), kill_at=None)
    assert full["outcome"] == "ok" and not full["killed"], full
    points = full["points"]
    assert points >= at_least, f"{scenario} has only {points} write points; the kill harness is not hooked in"
    for kill_at in range(1, points + 1):
        root = tmp_path / f"k{kill_at}"
        reply = server.run(scenario=scenario, root=str(root), kill_at=kill_at)
        assert reply["killed"], f"kill point {kill_at} of {points} was never reached: {reply}"
        yield kill_at, root


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_kill_9_between_any_two_writes(server: ForkServer, scenario: str, tmp_path: Path) -> None:
    tally: Counter = Counter()
    for _, root in _killed_at_each_write(server, scenario, tmp_path, at_least=40):
        tally["killed"] += 1
        runs = sorted(p for p in (root / "runs").glob("ep_*")) if (root / "runs").is_dir() else []
        assert len(runs) <= 1
        if not runs:
            tally["killed before the run existed"] += 1
            continue
        _recover(runs[0], scenario, root / "marker.txt", tally)
        _check(runs[0], root / "marker.txt", tally)
    figures(
        f"crash recovery: {scenario}",
        {"write points": tally["killed"], **tally, "stuck": 0, "tool run twice": 0, "duplicate events": 0},
    )


def test_kill_9_between_any_two_writes_of_a_batch(server: ForkServer, tmp_path: Path) -> None:
    """A batch of two with a policy-approved tool; after each kill the batch is called again until it is done
    (a draft paused before its policy's approval was written is decided by a person, as for one run; a run lost
    after its tool began is re-run only when asked, ``rerun_failed=True``: never by itself)."""
    tally: Counter = Counter()
    for kill_at, root in _killed_at_each_write(server, "batch", tmp_path, at_least=60):
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
                _check(root / "runs" / episode, root / f"marker-{episode}.txt", tally)
            tally["lost runs run again as new episodes"] += len(episodes) - 1
            if sum((root / f"marker-{episode}.txt").exists() for episode in episodes) > 1:
                assert rerun_failed, f"kill point {kill_at}: a task's tool ran again without rerun_failed=True"
                tally["tool ran again, asked by rerun_failed"] += 1
    figures("crash recovery: batch", {"write points": tally["killed"], **tally, "stuck": 0, "tool run twice in one episode": 0})
