"""A model call whose token counts are refused (10**33 input tokens, a negative, a float past 2**53) happened: it is
recorded with its counts unknown, so usage_df, runs_df, the cost plot and the view read its cost as unknown
(NaN, unpriced), never $0. Before, ``ctx.model_call``/``ctx.emit`` raised before writing anything, so the run read
0 model calls, 0 tokens and a priced cost of $0.00; a Noeta call whose count was no count kept the $0 its source
worked from it."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import noesis_nb as nb
from noesis_nb import plots
from noesis_nb.integrations.noeta import import_noeta
from tests.integrations.test_recorded_times import noeta_task

ABSURD = [10**33, np.float64(1e33), -5, 2**53 + 1]


@pytest.mark.parametrize("bad", ABSURD, ids=["1e33-int", "1e33-float", "negative", "past-2**53"])
@pytest.mark.parametrize("how", ["model_call", "emit"])
def test_a_refused_count_is_recorded_with_an_unknown_cost(runs_dir: Path, bad: Any, how: str) -> None:
    said: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o", input_tokens=120, output_tokens=20)  # a priced call beside it
        try:
            if how == "model_call":
                ctx.model_call("gpt-4o", input_tokens=bad, output_tokens=12, latency_ms=900.0)
            else:
                ctx.emit("model", {"event_name": "model.call", "model": "gpt-4o", "input_tokens": bad, "output_tokens": 12})
        except ValueError as exc:
            said.append(str(exc))
        return "done"

    episode = nb.solve("absurd usage", using=agent, runs_dir=runs_dir)
    assert len(said) == 1 and "input_tokens=" in said[0] and "recorded with its token counts unknown" in said[0]
    usage = nb.usage_df(runs_dir)
    assert len(usage) == 2 and usage.cost_usd.notna().sum() == 1 and usage.priced.tolist().count(False) == 1
    refused = usage[~usage.priced.astype(bool)].iloc[0]
    assert pd.isna(refused.input_tokens) and pd.isna(refused.output_tokens)  # the report is not trusted in part
    row = nb.runs_df(runs_dir).iloc[0]
    assert row.episode_id == episode and row.model_calls == 2
    assert math.isnan(row.cost_usd) and not bool(row.priced)  # unknown, not the priced call's cost alone or $0
    assert "(1 unpriced calls left out)" in plots.cost_over_time(usage).layout.title.text
    header = re.search(r'<div class="nnb-h">.*?</div>', nb.show(runs_dir / episode).snapshot_html(), re.S)
    assert header is not None and "+ unpriced calls" in header.group(0), header


def test_a_noeta_call_with_a_count_that_is_none_has_no_reported_cost(runs_dir: Path) -> None:
    task = noeta_task([0.0, 0.5, 1.0, 4.0, 4.0, 12.0])
    finished = task[4]["payload"]
    finished["usage"]["uncached"], finished["cost_usd"] = 10**33, 0.0  # Noeta's catalog prices what it is given
    import_noeta(task, runs_dir=runs_dir)
    call = nb.usage_df(runs_dir).iloc[0]
    assert math.isnan(call.cost_usd) and math.isnan(call.reported_cost_usd) and not bool(call.priced)
    assert math.isnan(nb.runs_df(runs_dir).iloc[0].cost_usd)
