"""Two processes act on one run at the same moment: one wins, the other is told so, nothing runs or is written twice.

Each racer is a child of its own fork server (``racekit.py``); both wait on the same barrier
file, so their calls really overlap, and the later one is delayed across the whole span of the
earlier one's work, so every moment of it (before the lock, while it is held, while the run is
being sealed, after) is hit. After each trial the run must be sealed once, verify, load in
``runs_df`` with ``manifest_ok``, and its tool must have run exactly as the winning decision says.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import is_sealed, read_events, verify_manifest

from .crashkit import TASKS, tool_agent
from .forkserver import ForkServer, Racers, race
from .report import figures

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def racers():
    pair = ForkServer(HERE / "racekit.py"), ForkServer(HERE / "racekit.py")
    yield pair
    for racer in pair:
        racer.close()


def _paused_run(root: Path) -> Path:
    runs = root / "runs"
    episode = noesis_nb.solve(TASKS["tool"], using=tool_agent(str(root / "marker.txt")), runs_dir=runs, approver="ask")
    return runs / episode


def _check_sealed_once(run: Path, marker: Path, tool_runs: int) -> None:
    assert is_sealed(run), f"{run.name} is not sealed"
    check = verify_manifest(run)
    assert check.ok, check.problems
    events = read_events(run / "events.jsonl", strict=True)  # every line whole JSON
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids)), "an event id appears twice"
    phases = Counter(e["phase"] for e in events)
    assert phases["terminate"] == 1 and phases["insight"] == 1, f"sealed more than once: {phases}"
    resumes = [e for e in events if e.get("event_type") == "run.resume"]
    assert len(resumes) == 1, f"{len(resumes)} resumes of one pause"
    ran = marker.read_text().splitlines() if marker.exists() else []
    assert len(ran) == tool_runs, f"the tool ran {len(ran)} times, not {tool_runs}"
    assert not (run / ".owner.lock").exists(), "a sealed run keeps a lock file"
    frame = noesis_nb.runs_df(run, strict=True, cache=False)
    assert len(frame) == 1 and bool(frame["manifest_ok"].iloc[0])


def test_two_resumes_of_one_decided_run_continue_it_once(racers: Racers, tmp_path: Path) -> None:
    """The second resume_run, wherever it falls in the first one's work, changes nothing and says why."""
    trials = 24
    tally: Counter = Counter()
    span = 0.2  # how long one resume takes here, measured on the first trial: the later racer is spread across it
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        run = _paused_run(root)
        noesis_nb.approve_draft(run, approver_id="ana")
        delay = span * 1.2 * trial / (trials - 1)
        resume = {"action": "resume", "run": str(run)}
        replies = race(racers, root, resume, {**resume, "delay": delay})
        for reply in replies:
            assert reply["ok"], f"trial {trial}: a resume raised {reply['error']}"
        winners = [r for r in replies if not r["warnings"]]
        assert len(winners) == 1, f"trial {trial} (delay {delay:.3f}s): {len(winners)} resumes were told nothing: {replies}"
        if trial == 0:
            span = winners[0]["seconds"]
        told = next(r for r in replies if r is not winners[0])["warnings"]
        assert len(told) == 1 and told[0].startswith("NothingToResume: "), (
            f"trial {trial} (delay {delay:.3f}s): the other resume was told {told}, not that the run is taken or sealed"
        )
        assert run.name in told[0]
        tally["busy" if "is being written by" in told[0] else "already sealed"] += 1
        _check_sealed_once(run, root / "marker.txt", tool_runs=1)
    figures("two resume_run at once", {"trials": trials, **tally, "tools run twice": 0})


BATCH_TASKS = [f"task{i}" for i in range(6)]
BATCH_WAYS = ("first call", "never started", "rerun_failed", "lost")


@pytest.mark.parametrize("way", BATCH_WAYS)
def test_two_calls_of_one_batch_at_once_run_each_task_once(racers: Racers, tmp_path: Path, way: str) -> None:
    """Two kernels call ``batch(…, batch_id="same")`` at once: one record, every task run once, both see every entry end.

    ``first call``: no record yet; ``never started``: a record whose entries never started (the call that wrote it
    was cancelled at once); ``rerun_failed``: half the tasks failed and both calls re-run the failed ones; ``lost``:
    the process of the call that wrote the record died while its first task ran (both recover it and run it again).
    """
    trials = 6
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        runs = root / "runs"
        request: dict[str, Any] = {"action": "batch", "tasks": BATCH_TASKS, "batch_id": "same", "runs_dir": str(runs)}
        expected = set(BATCH_TASKS)
        if way != "first call":
            failing = BATCH_TASKS[::2] if way == "rerun_failed" else []
            for task in failing:
                (root / f"fail-{task}").touch()
            if way == "lost":
                (root / "die-task0").touch()
            racers[0].send(**request, cancel=way == "never started", concurrency=1, go=str(root / "go0"))
            (root / "go0").touch()
            assert racers[0].reply()["ok"] is (way != "lost")
            for task in failing:
                (root / f"fail-{task}").unlink()
            (root / "die-task0").unlink(missing_ok=True)
            if (root / "marks.txt").exists():
                (root / "marks.txt").rename(root / "marks-before.txt")
            if way == "rerun_failed":
                request["rerun_failed"], expected = True, set(failing)
        replies = race(racers, root, request, request)
        for reply in replies:
            assert reply["ok"], f"{way}, trial {trial}: batch raised {reply['error']}"
        ran = Counter(line.split()[0] for line in (root / "marks.txt").read_text().splitlines())
        assert ran == Counter(expected), f"{way}, trial {trial}: tasks ran {dict(ran)}, expected each of {sorted(expected)} once"
        record = json.loads((runs / "batches" / "same.json").read_text())
        rows = record["entries"]
        assert [r["task_index"] for r in rows] == list(range(len(BATCH_TASKS))), f"{way}, trial {trial}: record entries {rows}"
        rerun = set(expected) if way == "rerun_failed" else {"task0"} if way == "lost" else set()
        assert [len(r["previous"]) for r in rows] == [int(BATCH_TASKS[r["task_index"]] in rerun) for r in rows], rows
        recorded = {r["episode_id"] for r in rows} | {p for r in rows for p in r["previous"]}
        on_disk = {p.name for p in runs.iterdir() if p.name.startswith("ep_")}
        assert on_disk == recorded, f"{way}, trial {trial}: runs the record does not name: {sorted(on_disk - recorded)}"
        for reply in replies:
            for entry in reply["entries"]:
                assert entry["status"] == "ok", f"{way}, trial {trial}: entry {entry} did not end ok in one of the calls"
                assert entry["episode_id"] == rows[entry["index"]]["episode_id"]
    figures(f"two calls of one batch at once ({way})", {"trials": trials, "tasks run twice": 0, "entries lost": 0})
