"""The live view, its model-call step lines and the batch grid price each call as ``usage_df`` does: a tiered price
(``claude-sonnet-4-5``, ``gemini-2.5-pro``) or one that changes with the time of day shows the frames' figure,
never ``—`` and never the tokens summed per model."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.cost import price_calls
from noesis_nb.scripted import researcher
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.batchview import BatchView
from noesis_nb.widgets.meter import CostMeter
from noesis_nb.widgets.money import money
from tests.frames.runkit import event, model_call, write_run
from tests.widgets.conftest import until

# two calls either side of claude-sonnet-4-5's 200k input tier (summed per model, both would take its rate)
CALLS = [
    dict(model="claude-sonnet-4-5", provider="anthropic", input_tokens=250_000, output_tokens=1000, cached_input_tokens=100_000),
    dict(
        model="claude-sonnet-4-5", provider="anthropic", input_tokens=150_000, output_tokens=1000, cache_write_input_tokens=20_000
    ),
    dict(model="gemini-2.5-pro", provider="google", input_tokens=1207, output_tokens=13),
]


def tiered(task: str, ctx: Any) -> str:
    for call in CALLS:
        call = dict(call)
        ctx.model_call(call.pop("model"), **call)
    return "ok"


def _text(view: Any) -> str:
    page = re.sub(r"<style.*?</style>", " ", view.snapshot_html(), flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def _header_cost(text: str) -> str:
    found = re.search(r"cost (\S+)", text)
    assert found, text
    return found.group(1)


def test_the_header_and_each_step_line_show_usage_dfs_cost_for_tiered_prices(runs_dir: Path, comm_log: list) -> None:
    CostMeter.wait()

    async def main() -> tuple[Any, str]:
        handle = noesis_nb.start("tiers", using=tiered, runs_dir=runs_dir)
        view = EpisodeView(handle)
        await handle.wait()
        view.flush()
        shown = _text(view)
        view.close()
        return handle, shown

    handle, live = asyncio.run(main())
    usage = noesis_nb.usage_df(runs_dir)
    assert usage.priced.all() and len(usage) == 3
    total = money(float(usage.cost_usd.sum()))
    assert _header_cost(live) == total  # was "—": no flat price for a tiered model
    disk = _text(noesis_nb.show(handle.run_dir))
    assert _header_cost(disk) == total
    for cost in usage.cost_usd:  # each model step line carries its own call's cost
        assert f" {money(float(cost))} " in disk, (money(float(cost)), disk)
    assert float(noesis_nb.runs_df(runs_dir).cost_usd.iloc[0]) == float(usage.cost_usd.sum())


def test_a_price_that_changes_with_the_time_of_day_is_taken_at_the_calls_time(runs_dir: Path, comm_log: list) -> None:
    """deepseek-chat's off-peak rate: a run recorded at 17:00 UTC and one at 03:00 UTC cost what usage_df says."""
    CostMeter.wait()
    for ep, hour in (("ep_peak", "03"), ("ep_offpeak", "17")):
        ts = f"2025-03-01T{hour}:00:00+00:00"
        write_run(
            runs_dir,
            ep,
            [
                event(ep, 0, "start", {"task": ep, "seed": 0, "using": "hand"}, ts=ts),
                model_call(ep, 1, ts, "deepseek-chat", "deepseek", input_tokens=2_000_000, output_tokens=500_000),
                event(ep, 2, "terminate", {"status": "ok", "message": "done"}, ts=ts),
            ],
        )
    usage = noesis_nb.usage_df(runs_dir).set_index("episode_id")
    assert usage.cost_usd["ep_peak"] != usage.cost_usd["ep_offpeak"]  # the case: two rates
    for ep in ("ep_peak", "ep_offpeak"):
        shown = _text(noesis_nb.show(runs_dir / ep))
        assert _header_cost(shown) == money(float(usage.cost_usd[ep])), shown
        assert shown.count(money(float(usage.cost_usd[ep]))) == 2  # the header and the call's step line


def test_the_batch_grid_shows_each_entrys_and_the_total_cost_runs_df_gives(runs_dir: Path, comm_log: list) -> None:
    """The demo researcher calls claude-sonnet-4-5 (tiered): each line and the total read runs_df's cost."""
    CostMeter.wait()

    async def main() -> str:
        b = noesis_nb.batch([f"t{i}" for i in range(3)], using=researcher(steps=2), runs_dir=runs_dir, concurrency=2)
        view = BatchView(b, rows=5)
        await b.wait()
        await until(lambda: len(view.figures.costs) == 3 and None not in view.figures.costs.values())
        view.flush()
        shown = view.snapshot_html()
        view.close()
        return shown

    shown = html.unescape(asyncio.run(main()))
    runs = noesis_nb.runs_df(runs_dir)
    assert runs.priced.all()
    assert f"cost {money(float(runs.cost_usd.sum()))}" in shown, shown
    for cost in runs.cost_usd:
        assert f">{money(float(cost))}<" in shown, shown


def test_a_drain_reports_cost_prices_each_call_as_usage_df(runs_dir: Path) -> None:
    """``price_calls`` (a drain report's ``cost_usd``) prices tiered calls too, as usage_df does."""
    noesis_nb.solve("tiers", using=tiered, runs_dir=runs_dir)
    usage = noesis_nb.usage_df(runs_dir)
    got = price_calls(CALLS)
    assert None not in got
    assert [round(c, 9) for c in got] == [round(float(c), 9) for c in usage.cost_usd]  # type: ignore[arg-type]
