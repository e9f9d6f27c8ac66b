"""Cost lines draw only priced calls, and a call with no model is a group of its own, never dropped or compared
with names: a model priced nowhere drew a flat $0 line before (unknown is NaN, never 0), and a usage frame holding a
model-less call (a Noetic harness reply names none) made ``cost_over_time`` raise and ``tokens_by`` lose its tokens."""

from __future__ import annotations

import noesis_nb as nb
from noesis_nb import plots
from noesis_nb.frames import clear_cache
from noesis_nb.integrations.noetic import import_noetic


async def _agent(task, ctx):
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100)
    ctx.model_call("gpt-4o", provider="openai", input_tokens=None, output_tokens=100)  # input unknown: unpriced
    ctx.model_call("house-model-7", provider="in-house", input_tokens=500, output_tokens=50)  # priced nowhere
    return "done"


def _usage(tmp_path, *, model_less: bool):
    runs = str(tmp_path / "runs")
    nb.solve("mixed prices", using=_agent, runs_dir=runs)
    if model_less:
        events = [
            {"source": "framework", "type": "h:turn_started", "data": {}},
            {"source": "framework", "type": "h:turn_completed", "data": {"durationMs": 812}},
        ]
        import_noetic(events, {"usage": {"inputTokens": 1400, "outputTokens": 60}}, task="noetic", runs_dir=runs)
    clear_cache()
    return nb.usage_df(runs)


def test_unpriced_calls_draw_no_point_and_a_model_priced_nowhere_no_line(tmp_path):
    usage = _usage(tmp_path, model_less=False)
    priced = usage[usage["cost_usd"].notna()]
    assert list(priced["model"]) == ["gpt-4o"]  # the corpus is what the test says it is
    fig = plots.cost_over_time(usage)
    assert [t.name for t in fig.data] == ["gpt-4o"]
    assert list(fig.data[0].y) == [float(priced["cost_usd"].iloc[0])]
    assert "(2 unpriced calls left out)" in fig.layout.title.text
    per_call = plots.cost_over_time(usage, cumulative=False)
    assert all(v == v and v > 0 for t in per_call.data for v in t.y)  # no NaN, no $0 point


def test_a_call_with_no_model_is_its_own_group_in_every_usage_plot(tmp_path):
    usage = _usage(tmp_path, model_less=True)
    assert usage["model"].isna().sum() == 1
    fig = plots.cost_over_time(usage)  # raised TypeError ('<' between float and str) before
    assert "gpt-4o" in [t.name for t in fig.data]
    by_model = plots.tokens_by(usage, by="model")
    x = list(by_model.data[0].x)
    assert "(unknown)" in x
    col = x.index("(unknown)")
    inputs = sum(t.y[col] for t in by_model.data if "input" in t.name)
    assert inputs == 1400  # the model-less call's tokens are drawn, not dropped
    total_in = usage["input_tokens"].astype(float).sum()
    assert sum(sum(t.y) for t in by_model.data if "input" in t.name) == total_in


def test_a_frame_with_no_priced_call_says_so_instead_of_a_blank_chart(tmp_path):
    usage = _usage(tmp_path, model_less=False)
    unpriced = usage[usage["cost_usd"].isna()]
    fig = plots.cost_over_time(unpriced)
    assert len(fig.data) == 0
    said = " ".join(a.text for a in fig.layout.annotations)
    assert said.startswith("no priced calls:") and f"{len(unpriced)} call(s) with no price" in said


def test_a_model_named_unknown_and_calls_with_no_model_stay_two_groups(tmp_path):
    usage = _usage(tmp_path, model_less=True)
    model = usage["model"].astype(object)
    usage = usage.assign(model=model.where(model != "house-model-7", "(unknown)"))  # a model really named so
    x = list(plots.tokens_by(usage, by="model").data[0].x)
    assert sorted(x) == ["(missing)", "(unknown)", "gpt-4o"]
    cost_lines = [t.name for t in plots.cost_over_time(usage.assign(cost_usd=0.001)).data]
    assert sorted(cost_lines) == ["(missing)", "(unknown)", "gpt-4o"]
