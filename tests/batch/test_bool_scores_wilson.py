"""``batch_summary`` gives a score Wilson's interval only when the scorer returned bools (``summary.json`` holds
``true`` / ``false``, ``runs_df.score_is_bool``): an integer score on a wider scale (bugs found, 0..5) whose batch saw
only 0 and 1 is a mean with Student's t interval, not a share kept inside [0, 1]."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

import noesis_nb
from noesis_nb.frames import batch_summary, runs_df
from noesis_nb.frames.intervals import mean_interval, wilson

from .agents import echo

TASKS = [f"task {i}" for i in range(5)]
HITS = [0, 1, 1, 0, 1]  # what each task scores: 3 of 5


def bugs_found(task: str, result: object) -> int:
    """A count on a 0..5 scale: this batch happened to see only 0 and 1."""
    return HITS[TASKS.index(task)]


def found_any(task: str, result: object) -> bool:
    return bool(HITS[TASKS.index(task)])


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scores") / "runs"

    async def main() -> None:
        await noesis_nb.batch(TASKS, using={"counted": echo}, root=root, score=bugs_found, batch_id="counts")
        await noesis_nb.batch(TASKS, using={"judged": echo}, root=root, score=found_any, batch_id="bools")

    asyncio.run(main())
    return root


def test_only_bool_scores_get_wilsons_interval(root: Path) -> None:
    runs = runs_df(root)
    scores = [json.loads((Path(d) / "summary.json").read_text())["metrics"]["score"] for d in runs["run_dir"]]
    assert sorted({type(v).__name__ for v in scores}) == ["bool", "int"]  # as the scorers returned them
    by = runs.groupby("batch_adapter", observed=True)["score_is_bool"].agg(lambda v: set(v.tolist()))
    assert by["judged"] == {True} and by["counted"] == {False}
    summary = batch_summary(runs)
    counted, judged = summary.loc["counted"], summary.loc["judged"]
    t_mean, t_low, t_high = mean_interval(np.array(HITS, dtype=float))
    assert (counted["mean_score"], counted["score_low"], counted["score_high"]) == pytest.approx((t_mean, t_low, t_high))
    assert counted["score_low"] < 0.0 < 1.0 < counted["score_high"]  # a mean of counts may reach past 0 .. 1
    assert (judged["mean_score"], judged["score_low"], judged["score_high"]) == pytest.approx((0.6, *wilson(3, 5)))


def test_a_frame_made_by_hand_has_numbers_not_bools(root: Path) -> None:
    """A frame without ``score_is_bool`` (made by hand, or of an older release) is read as numbers: a t interval."""
    runs = runs_df(root).drop(columns=["score_is_bool"])
    summary = batch_summary(runs)
    assert summary.loc["judged", "score_low"] == pytest.approx(mean_interval(np.array(HITS, dtype=float))[1])
