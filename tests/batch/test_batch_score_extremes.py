"""Scores a scorer may return (README: a finite number or a bool) summed without overflow, taken by one rule.

``batch_summary``'s mean of the finite scores 1e308, 1e308 and 1.7e308 was ``inf`` (their sum overflows a float): the
mean is now computed in units of the largest score, so it is the finite 1.2333e308. A ``Decimal`` score was refused as
no number while a ``Fraction`` was taken: both are numbers, recorded as their float.
"""

from __future__ import annotations

import asyncio
import decimal
import fractions
import math
from pathlib import Path
from typing import Any

import numpy as np

import noesis_nb
from noesis_nb.frames.intervals import mean_interval


async def _echo(task: str, ctx: Any) -> str:
    return task


def _batch(root: Path, scores: dict[str, Any], batch_id: str) -> Any:
    async def main() -> Any:
        b = noesis_nb.batch(list(scores), using={"a": _echo}, runs_dir=root, batch_id=batch_id, score=lambda t, r: scores[t])
        await b.wait()
        return noesis_nb.batch_summary(b)

    return asyncio.run(main()).loc["a"]


def test_the_mean_of_scores_near_the_float_limit_is_finite(tmp_path: Path) -> None:
    scores = {"x": 1e308, "y": 1e308, "z": 1.7e308}
    row = _batch(tmp_path, scores, "big")
    expected = float(sum(map(fractions.Fraction, scores.values())) / len(scores))  # exact, then rounded
    assert row["scored"] == 3 and math.isfinite(row["mean_score"])
    assert math.isclose(row["mean_score"], expected, rel_tol=1e-12)
    assert math.isfinite(row["score_low"]) and row["score_low"] < row["mean_score"]


def test_the_interval_is_the_same_scaled_or_not() -> None:
    small = np.array([1.0, 2.0, 4.5, 7.25])
    mean, low, high = mean_interval(small)
    big = mean_interval(small * 1e300)
    assert all(math.isclose(a / 1e300, b, rel_tol=1e-12) for a, b in zip(big, (mean, low, high))), (big, mean, low, high)
    assert mean == float(np.mean(small))  # ordinary values: computed as before, not scaled


def test_a_decimal_score_is_taken_as_a_fraction_is(tmp_path: Path) -> None:
    row = _batch(tmp_path, {"d": decimal.Decimal("0.25"), "f": fractions.Fraction(1, 4)}, "dec")
    assert row["scored"] == 2 and row["mean_score"] == 0.25
    runs = noesis_nb.runs_df(tmp_path).set_index("task")
    assert runs.loc["d", "score"] == runs.loc["f", "score"] == 0.25
