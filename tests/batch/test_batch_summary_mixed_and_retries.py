"""``batch_summary`` over real batches: (1) one adapter's pass/fail batch beside its points batch was pooled into one
mean (1.4167 of "pass rate and points") with a t interval and no word: now its score columns are NaN and a warning
names both batches, while one batch alone is summarized as before; (2) after ``rerun_failed=True`` the cost per task
counted the latest run of each task only, so the failed run's spend vanished: every run of a task is counted."""

from __future__ import annotations

import asyncio
import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import batch_summary, runs_df
from noesis_nb.frames.intervals import score_interval

MINI = (0.15, 0.60)  # USD per million input, output tokens (genai-prices' gpt-4o-mini)


def plain(task: str, ctx: Any) -> str:
    return task


def test_bool_and_points_batches_of_one_adapter_are_not_pooled(tmp_path: Path) -> None:
    root = tmp_path / "runs"

    async def main() -> None:
        tasks = [f"t{i}" for i in range(7)]
        await noesis_nb.batch(tasks, using=plain, root=root, score=lambda t, r: t in ("t1", "t2"), batch_id="passfail")
        await noesis_nb.batch(tasks[:5], using=plain, root=root, score=lambda t, r: float(t[1:]) * 1.5, batch_id="points")

    asyncio.run(main())
    runs = runs_df(root)
    with pytest.warns(UserWarning, match=r"adapter 'plain' has pass/fail \(bool\) scores in batch\(es\) passfail and "
                      r"numeric scores in batch\(es\) points"):  # fmt: skip
        mixed = batch_summary(runs).loc["plain"]
    assert mixed.n == 12 and mixed.scored == 12
    assert math.isnan(mixed.mean_score) and math.isnan(mixed.score_low) and math.isnan(mixed.score_high)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one batch: no warning
        points = batch_summary(runs[runs.batch_id == "points"]).loc["plain"]
        passfail = batch_summary(runs[runs.batch_id == "passfail"]).loc["plain"]
    assert points.mean_score == 3.0 and abs(points.score_low - 0.0551352578) < 1e-9  # Student t, exact quantile
    assert (passfail.mean_score, passfail.score_low, passfail.score_high) == score_interval(
        [0, 1, 1, 0, 0, 0, 0], bools=True
    )  # Wilson's, 2 of 7


def test_cost_per_task_counts_the_failed_run_a_rerun_replaced(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    flaky = {"fail": True}

    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10)
        if task == "t2" and flaky["fail"]:
            raise RuntimeError("flaky")
        return task

    async def main() -> Any:
        tasks = ["t0", "t1", "t2", "t3"]
        await noesis_nb.batch(tasks, using=agent, root=root, batch_id="rr", score=lambda t, r: 1.0)
        flaky["fail"] = False
        return await noesis_nb.batch(tasks, using=agent, root=root, batch_id="rr", score=lambda t, r: 1.0, rerun_failed=True)

    handle = asyncio.run(main())
    runs = runs_df(root)
    assert len(runs) == 5 and sorted(runs.status) == ["error", "ok", "ok", "ok", "ok"]
    row = batch_summary(runs).loc["agent"]
    one_run = (100 * MINI[0] + 10 * MINI[1]) / 1e6
    assert row.n == 4 and row.ok == 4 and row.tokens_per_task == 110  # the latest run of each task
    assert math.isclose(row.cost_per_task_usd, 5 * one_run / 4, rel_tol=1e-9)  # five runs paid for, four tasks
    assert batch_summary(runs).attrs["cost"] == "every run of each task, re-runs included"
    pd.testing.assert_frame_equal(batch_summary(handle), batch_summary(runs))  # the handle's record names the re-run
