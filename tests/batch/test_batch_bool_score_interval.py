"""A bool ``score`` (README: a number or a bool) is a share: ``batch_summary`` gives it Wilson's interval, inside
[0, 1], as ``success_rate`` gets, not a Student t interval reaching below 0 and above 1."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

import noesis_nb


async def _echo(task: str, ctx: Any) -> str:
    return task


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_a_bool_score_gets_an_interval_within_0_and_1(tmp_path: Path) -> None:
    async def main() -> Any:
        b = noesis_nb.batch(["x", "y", "zz"], using={"a": _echo}, runs_dir=tmp_path, batch_id="s", score=lambda t, r: len(r) > 1)
        await b.wait()
        return noesis_nb.batch_summary(b)

    row = asyncio.run(main()).loc["a"]
    assert row["scored"] == 3 and row["mean_score"] == 1 / 3
    assert 0.0 <= row["score_low"] < row["mean_score"] < row["score_high"] <= 1.0, row.to_dict()
    assert (row["score_low"], row["score_high"]) == pytest.approx(_wilson(1, 3), rel=1e-12)


def test_a_numeric_score_keeps_its_t_interval(tmp_path: Path) -> None:
    async def main() -> Any:
        b = noesis_nb.batch(
            ["x", "yy", "zzzz"], using={"a": _echo}, runs_dir=tmp_path, batch_id="n", score=lambda t, r: len(r) / 2
        )
        await b.wait()
        return noesis_nb.batch_summary(b)

    row = asyncio.run(main()).loc["a"]
    scores = [0.5, 1.0, 2.0]
    mean = sum(scores) / 3
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / 2)
    half = 4.30265272974946 * sd / math.sqrt(3)  # Student t(0.975), 2 degrees of freedom
    assert (row["score_low"], row["score_high"]) == pytest.approx((mean - half, mean + half), rel=1e-12)
