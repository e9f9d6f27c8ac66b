"""A model-call step prices its call as the header, ``usage_df`` and ``runs_df`` do (``cost.call_costs``), never by
the figure the run reported (``ctx.model_call(cost_usd=…)``, usage_df's ``reported_cost_usd``): the step read
``$9.99`` above a header of ``$0.0035``, and ``$0.0031`` for a call no price covers where the header said ``—``."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets.meter import CostMeter
from noesis_nb.widgets.money import money


def reported(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100, cost_usd=9.99)
    ctx.model_call("no-such-model-xyz", provider="openai", input_tokens=1400, output_tokens=60, cost_usd=0.0031)
    return "ok"


def _model_lines(view: Any) -> dict[str, str]:
    page = re.sub(r"<style.*?</style>", " ", view.snapshot_html(), flags=re.S)
    lines = [
        html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m)))
        for m in re.findall(r'class="nnb-sum">(.*?)</summary>', page, flags=re.S)
    ]
    return {model: next(line for line in lines if f" model {model} " in line) for model in ("gpt-4o", "no-such-model-xyz")}


def test_a_model_step_says_the_computed_cost_or_unpriced(runs_dir: Path, comm_log: list) -> None:
    CostMeter.wait()
    episode = noesis_nb.solve("reported costs", using=reported, runs_dir=runs_dir)
    usage = noesis_nb.usage_df(runs_dir).set_index("model")
    assert usage.loc["gpt-4o", "reported_cost_usd"] == 9.99 and not usage.loc["no-such-model-xyz", "priced"]
    lines = _model_lines(noesis_nb.show(runs_dir / episode))
    priced = money(float(usage.loc["gpt-4o", "cost_usd"]))
    assert f" {priced} " in lines["gpt-4o"] + " " and "9.99" not in lines["gpt-4o"], lines
    assert "unpriced" in lines["no-such-model-xyz"] and "$" not in lines["no-such-model-xyz"], lines
