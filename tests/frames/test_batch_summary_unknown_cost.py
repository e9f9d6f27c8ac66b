"""batch_summary's cost and tokens per task are unknown when a task's are (a call whose counts were refused, or
an unpriced model), as runs_df's totals are. Before, the mean skipped that task: two tasks, one unpriced, read as
the priced task's cost per task, the unknown one silently left out."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import noesis_nb as nb

USAGE = {"priced": dict(input_tokens=1200, output_tokens=300), "refused": dict(input_tokens=10**33, output_tokens=300)}


def agent(task: str, ctx: Any) -> str:
    """A scripted model agent: one call, reporting the usage its task names."""
    try:
        ctx.model_call("gpt-4o", provider="openai", latency_ms=850.0, **USAGE[task])
    except ValueError:
        pass  # a broken usage report: the call is recorded with its counts unknown
    return f"answered {task}"


def test_a_task_with_an_unknown_cost_makes_the_cost_per_task_unknown(runs_dir: Path) -> None:
    for task in ("priced", "refused"):
        nb.solve(task, using=agent, runs_dir=runs_dir)
    runs = nb.runs_df(runs_dir)
    assert runs.set_index("task").cost_usd.isna().to_dict() == {"priced": False, "refused": True}
    summary = nb.batch_summary(runs).iloc[0]
    assert summary.n == 2
    assert math.isnan(summary.cost_per_task_usd) and math.isnan(summary.tokens_per_task)
    priced = nb.batch_summary(runs[runs.task == "priced"]).iloc[0]  # with every task known, the mean is given
    assert priced.cost_per_task_usd > 0 and priced.tokens_per_task == 1500
