"""A scorer that hangs (sync or async) ends in a score error on its entry after ``score_timeout_s``; the batch completes."""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import operator
import threading
import time
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import is_sealed, read_json

from ..compat.checker import check_run
from .agents import echo, exact

_STUCK = threading.Event()  # a hung sync scorer waits on it; set at the end of each test so its thread ends


@pytest.fixture(autouse=True)
def _free_stuck_scorers():
    _STUCK.clear()
    yield
    _STUCK.set()


def _hangs(task, result):
    """A sync scorer that blocks (until the test ends) unless the task says 'quick'."""
    if "quick" not in task:
        _STUCK.wait()
    return exact(task, result)


async def _never(task, result):
    """An async scorer that never returns, and shrugs off its first cancellation too."""
    if "quick" in task:
        return exact(task, result)
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        await asyncio.Event().wait()


@pytest.mark.parametrize("scorer", [_hangs, _never], ids=["sync", "async"])
def test_a_hung_scorer_times_out_and_the_batch_completes_with_the_run_sealed(runs_dir: Path, scorer) -> None:
    async def main():
        handle = noesis_nb.batch(["quick a", "b"], using=echo, root=runs_dir, score=scorer, score_timeout_s=0.5, batch_id="hb")
        began = time.monotonic()
        await asyncio.wait_for(asyncio.ensure_future(_await(handle)), 20)  # before the fix: waits forever on "b"
        return handle, time.monotonic() - began

    handle, took = asyncio.run(main())
    assert took < 10
    quick, stuck = handle.entries
    assert (quick.status, quick.score, quick.error) == ("ok", 1.0, None)
    assert stuck.status == "ok" and stuck.score is None
    assert "did not return within score_timeout_s=0.5 s" in (stuck.error or "")
    assert stuck.handle is not None and stuck.handle.result()["answer"] == "B"  # the episode's result is kept
    assert stuck.run_dir is not None and is_sealed(stuck.run_dir)
    summary = read_json(stuck.run_dir / "summary.json")
    assert summary["status"] == "ok" and summary["answer"]["result"]["answer"] == "B" and "score" not in summary["metrics"]
    assert "score_timeout_s=0.5" in summary["x-noesis_nb"]["score_error"]
    assert check_run(stuck.run_dir) == []


async def _await(handle):
    return await handle


def test_running_the_batch_again_keeps_the_timed_out_entry_and_may_change_the_timeout(runs_dir: Path) -> None:
    """A batch_id reused with another score_timeout_s is the same batch (the timeout changes no episode); the
    sealed entry is neither re-run nor re-scored: its score error is read back from its run."""
    calls = []

    def counted(task, result):
        calls.append(task)
        return _hangs(task, result)

    async def first():
        handle = noesis_nb.batch(["quick a", "b"], using=echo, root=runs_dir, score=counted, score_timeout_s=0.3, batch_id="bb")
        await asyncio.wait_for(_await(handle), 20)
        return handle

    async def second():
        handle = noesis_nb.batch(["quick a", "b"], using=echo, root=runs_dir, score=counted, score_timeout_s=60, batch_id="bb")
        await asyncio.wait_for(_await(handle), 20)
        return handle

    before = asyncio.run(first())
    assert calls == ["quick a", "b"]
    after = asyncio.run(second())
    assert calls == ["quick a", "b"], "sealed entries are not scored again"
    assert [e.episode_id for e in after.entries] == [e.episode_id for e in before.entries]
    assert [(e.status, e.score) for e in after.entries] == [("ok", 1.0), ("ok", None)]
    assert "score_timeout_s=0.3" in (after.entries[1].error or "") and after.entries[0].error is None


@pytest.mark.parametrize("value", [0, -1, "5", True, math.nan, [1]])
def test_a_bad_score_timeout_is_one_clear_error_and_starts_nothing(runs_dir: Path, value) -> None:
    async def main():
        noesis_nb.batch(["a"], using=echo, root=runs_dir, score=exact, score_timeout_s=value)

    with pytest.raises(InvalidOptionError) as info:
        asyncio.run(main())
    assert f"score_timeout_s={value!r}" in str(info.value) and "positive number of seconds" in str(info.value)
    assert not any(runs_dir.iterdir())


def test_no_limit_and_a_solved_episode(runs_dir: Path) -> None:
    """None waits however long the scorer takes; ``solve`` takes the option too (its handle says why, as the batch)."""

    async def main():
        handle = noesis_nb.batch(["a"], using=echo, root=runs_dir, score=exact, score_timeout_s=None)
        await asyncio.wait_for(_await(handle), 20)
        return handle

    assert asyncio.run(main()).entries[0].score == 1.0
    ep = noesis_nb.solve("b", using=lambda task: "done", runs_dir=runs_dir, score=_hangs, score_timeout_s=0.2)
    summary = read_json(runs_dir / ep / "summary.json")
    assert summary["status"] == "ok" and "score_timeout_s=0.2" in summary["x-noesis_nb"]["score_error"]


class _FailsOnCall:
    """A scorer that fails only once called (a signature that cannot take (task, result) is refused before the run)."""

    def __call__(self, *args):
        raise TypeError(f"expected 1 argument, got {len(args)}")


@pytest.mark.parametrize("scorer", [_FailsOnCall(), operator.itemgetter(0)], ids=["object", "builtin"])
def test_a_scorer_that_fails_on_being_called_is_a_score_error_and_the_run_keeps_its_result(runs_dir: Path, scorer) -> None:
    ep = noesis_nb.solve("c", using=lambda task: "done", runs_dir=runs_dir, score=scorer)
    summary = read_json(runs_dir / ep / "summary.json")
    assert summary["status"] == "ok", summary["status"]
    assert "raised TypeError" in summary["x-noesis_nb"]["score_error"], summary["x-noesis_nb"]
    assert check_run(runs_dir / ep) == []


def test_on_an_executor_the_timeout_reaches_the_worker_and_the_error_the_entry(runs_dir: Path) -> None:
    async def main():
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            handle = noesis_nb.batch(
                ["quick a", "b"], using=echo, root=runs_dir, score=_never, score_timeout_s=0.5, executor=pool, batch_id="ex"
            )
            await asyncio.wait_for(_await(handle), 20)
            return handle

    quick, stuck = asyncio.run(main()).entries
    assert (quick.status, quick.score, quick.error) == ("ok", 1.0, None)
    assert stuck.status == "ok" and stuck.score is None and "score_timeout_s=0.5" in (stuck.error or "")
