"""runs_df's batch columns, batch_summary's intervals against counts worked by hand, compare_batches paired."""

from __future__ import annotations

import asyncio
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import batch_summary, compare_batches, runs_df
from noesis_nb.frames.intervals import mean_interval, t95, wilson
from noesis_nb.ids import new_episode_id

from .agents import echo, exact, shout


def _wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return centre - half, centre + half


def test_wilson_and_t_against_known_values() -> None:
    assert wilson(7, 10) == pytest.approx((0.3968, 0.8922), abs=1e-4)  # the textbook 7/10
    assert wilson(7, 10) == pytest.approx(_wilson_by_hand(7, 10))
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0 and all(math.isnan(v) for v in wilson(0, 0))
    assert t95(9) == pytest.approx(2.26215716279821, abs=1e-9) and t95(120) == pytest.approx(1.97993040508244, abs=1e-9)
    assert t95(10_000) == pytest.approx(1.960, abs=1e-3)
    mean, low, high = mean_interval(np.array([1.0, 2.0, 3.0, 4.0, np.nan]))
    half = 3.18244630528371 * np.std([1, 2, 3, 4], ddof=1) / 2  # t(0.975, 3)
    assert (mean, low, high) == pytest.approx((2.5, 2.5 - half, 2.5 + half))


@pytest.fixture(scope="module")
def batch_runs(tmp_path_factory) -> tuple[Path, str]:
    """10 tasks by two adapters: 'async' fails 3 (7/10 ok, all scored 1.0), 'sync' fails 3 too and scores 0.0."""
    root = tmp_path_factory.mktemp("batches") / "runs"
    tasks = [f"fail {i}" if i in (2, 5, 8) else f"task {i}" for i in range(10)]

    async def main():
        return await noesis_nb.batch(tasks, using={"async": echo, "sync": shout}, root=root, score=exact, batch_id="b1")

    handle = asyncio.run(main())
    return root, handle.batch_id


def test_runs_df_has_the_batch_columns(batch_runs) -> None:
    root, batch_id = batch_runs
    runs = runs_df(root)
    assert set(runs["batch_id"]) == {batch_id} and len(runs) == 20
    assert sorted(runs["task_index"].tolist()) == sorted(list(range(10)) * 2)
    assert runs["task_index"].dtype == "Int64"
    by = runs.set_index(["batch_adapter", "task_index"]).sort_index()
    assert by.loc[("async", 0), "score"] == 1.0 and by.loc[("sync", 0), "score"] == 0.0
    assert math.isnan(by.loc[("async", 2), "score"])
    assert runs_df(root).equals(runs), "a warm load equals the cold one"


def test_batch_summary_gives_wilson_and_t_intervals(batch_runs) -> None:
    root, _ = batch_runs
    summary = batch_summary(runs_df(root))
    assert list(summary.index) == ["async", "sync"]
    row = summary.loc["async"]
    assert (row["n"], row["ok"], row["scored"]) == (10, 7, 7)
    assert (row["success_low"], row["success_high"]) == pytest.approx((0.3968, 0.8922), abs=1e-4)
    assert row["success_rate"] == 0.7 and row["mean_score"] == 1.0
    # 7 scores of 1.0: numbers the scorer returned, not bools (tests/batch/test_bool_scores_wilson.py): a t interval
    # of no spread, 1 .. 1
    assert (row["score_low"], row["score_high"]) == (1.0, 1.0)
    assert row["tokens_per_task"] == 220 + 22 and row["duration_p50_s"] <= row["duration_p95_s"]
    assert summary.loc["sync", "mean_score"] == 0.0
    assert summary.attrs["success_interval"] == "Wilson score, 95%"


def test_compare_batches_pairs_tasks(batch_runs) -> None:
    root, _ = batch_runs
    runs = runs_df(root)
    table = compare_batches(runs[runs.batch_adapter == "async"], runs[runs.batch_adapter == "sync"])
    assert table.loc["success", "pairs"] == 10 and table.loc["success", "diff"] == 0.0
    assert table.loc["score", "pairs"] == 7 and table.loc["score", "diff"] == -1.0
    assert len(table.attrs["pairs"]) == 10
    with pytest.raises(noesis_nb.errors.InvalidOptionError, match="holds runs of 2 adapters"):
        compare_batches(runs, runs)


def test_a_rerun_task_counts_once_by_its_latest_run(tmp_path: Path) -> None:
    root = tmp_path / "runs"

    async def main():
        await noesis_nb.batch(["fail a", "b"], using=echo, root=root, batch_id="r")
        return await noesis_nb.batch(["fail a", "b"], using=echo, root=root, batch_id="r", rerun_failed=True)

    handle = asyncio.run(main())
    runs = runs_df(root)
    assert len(runs) == 3
    summary = batch_summary(runs)
    assert summary.loc["echo", "n"] == 2 and summary.loc["echo", "ok"] == 1
    pd.testing.assert_frame_equal(batch_summary(handle), summary)  # a BatchHandle reads its own runs


def test_plots_of_a_summary_and_a_comparison(batch_runs) -> None:
    from noesis_nb.plots import batch_summary_plot, compare_batches_plot

    root, _ = batch_runs
    runs = runs_df(root)
    fig = batch_summary_plot(batch_summary(runs))
    rate, score = fig.data
    assert list(rate.x) == ["async", "sync"] and list(rate.y) == [0.7, 0.7]
    assert rate.error_y.arrayminus[0] == pytest.approx(0.7 - 0.3968, abs=1e-4)
    assert list(score.y) == [1.0, 0.0]
    table = compare_batches(runs[runs.batch_adapter == "async"], runs[runs.batch_adapter == "sync"])
    (points,) = compare_batches_plot(table).data
    assert list(points.y) == ["success", "score"] and list(points.x) == [0.0, -1.0]
    with pytest.raises(ValueError, match="batch_summary"):
        batch_summary_plot(runs)


def test_a_batch_handle_is_summarised_from_its_own_runs_not_a_run_claiming_its_tag(tmp_path: Path) -> None:
    """A run copied under the root, its batch tag kept, its status made ``error`` and its start made later, would
    stand in for the entry's own run by "the latest run"; the handle took only its own run as the entry's."""
    root = tmp_path / "runs"

    async def main():
        return await noesis_nb.batch(["a", "b"], using=echo, root=root, batch_id="s")

    handle = asyncio.run(main())
    own = batch_summary(runs_df(root))
    source = handle.entries[0].run_dir
    assert source is not None
    crafted = root / new_episode_id()
    shutil.copytree(source, crafted)
    for name in ("state.json", "summary.json", "final.json"):
        doc = json.loads((crafted / name).read_text().replace(source.name, crafted.name).replace('"ok"', '"error"'))
        doc.update({"started_at": "2099-01-01T00:00:00+00:00"} if "started_at" in doc else {})
        (crafted / name).write_text(json.dumps(doc))
    log = crafted / "events.jsonl"  # its log says so too: a summary edited alone is not the run's word on its status
    log.write_text(log.read_text().replace(source.name, crafted.name).replace('"ok"', '"error"'))
    assert batch_summary(runs_df(root)).loc["echo", "ok"] == 1  # read as a frame of the root, the later run counts
    assert [e.status for e in handle.entries] == ["ok", "ok"]
    pd.testing.assert_frame_equal(batch_summary(handle), own)
