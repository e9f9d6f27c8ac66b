"""A scorer that raises ``CancelledError`` (it awaited a task another cancelled), ``KeyboardInterrupt`` or
``SystemExit`` failed, as one raising anything else: no score, the run sealed ``ok`` with its result, the entry's
``error`` saying why. Only a cancellation of the episode itself is a stop."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import is_sealed, read_json

from ..compat.checker import check_run
from .agents import echo


async def _awaits_a_cancelled_task(task, result):
    helper = asyncio.ensure_future(asyncio.sleep(30))
    helper.cancel()
    return await helper


def _sync_cancelled(task, result):
    raise asyncio.CancelledError("scorer gave up")


def _sync_interrupt(task, result):
    raise KeyboardInterrupt("scorer interrupt")


async def _async_interrupt(task, result):
    raise KeyboardInterrupt("scorer interrupt")


def _sync_exit(task, result):
    raise SystemExit(4)


async def _async_exit(task, result):
    raise SystemExit(4)


@pytest.mark.parametrize(
    ("scorer", "raised"),
    [
        (_awaits_a_cancelled_task, "CancelledError"),
        (_sync_cancelled, "CancelledError"),
        (_sync_interrupt, "KeyboardInterrupt"),
        (_async_interrupt, "KeyboardInterrupt"),
        (_sync_exit, "SystemExit"),
        (_async_exit, "SystemExit"),
    ],
    ids=["awaits-cancelled-task", "sync-cancelled", "sync-interrupt", "async-interrupt", "sync-exit", "async-exit"],
)
def test_a_scorer_raising_a_stop_of_its_own_keeps_the_result(runs_dir: Path, scorer, raised: str) -> None:
    async def main():
        handle = noesis_nb.batch(["a", "b"], using=echo, root=runs_dir, score=scorer, batch_id="own")
        await asyncio.wait_for(handle.wait(), 60)
        await asyncio.sleep(0)  # the loop lives on
        return handle

    try:
        handle = asyncio.run(main())
    except BaseException as exc:  # an exit raised out of the loop, or the scorer's CancelledError taken for a stop
        pytest.fail(f"the batch raised {exc!r}")
    assert handle.counts() == {"ok": 2}
    for entry in handle.entries:
        assert entry.status == "ok" and entry.score is None
        assert f"raised {raised}" in (entry.error or "") and "no score recorded" in (entry.error or "")
        run_dir = Path(entry.run_dir)
        assert is_sealed(run_dir) and check_run(run_dir) == []
        summary = read_json(run_dir / "summary.json")
        assert summary["status"] == "ok" and summary["x-noesis_nb"]["reasons"] == ["adapter_ok"]
        assert f"raised {raised}" in summary["x-noesis_nb"]["score_error"]
        events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
        [terminate] = [e for e in events if e["phase"] == "terminate"]
        assert "cancelled" not in terminate["payload"]["message"].lower()
        assert entry.task.upper() in terminate["payload"]["message"]  # the adapter's answer, kept


def test_cancelling_the_episode_while_its_scorer_runs_still_cancels_it(runs_dir: Path) -> None:
    scoring = asyncio.Event()

    async def slow_scorer(task, result):
        scoring.set()
        await asyncio.sleep(30)
        return 1.0

    async def main():
        handle = noesis_nb.start("a", using=echo, runs_dir=runs_dir, score=slow_scorer)
        await asyncio.wait_for(scoring.wait(), 30)
        assert handle.cancel()
        try:
            await asyncio.wait_for(handle.wait(), 30)
        except asyncio.CancelledError:
            pass
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled"
    assert read_json(Path(handle.run_dir) / "summary.json")["status"] == "cancelled"
    assert check_run(Path(handle.run_dir)) == []
