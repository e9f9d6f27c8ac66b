"""Figure structure: traces, axes, hover fields, theme; plots never show or change plotly's globals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from noesis_nb import plots
from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df

from ..frames.runkit import make_engine_runs


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    clear_cache()
    runs = tmp_path_factory.mktemp("plots") / "runs"
    ids = make_engine_runs(runs)
    return ids, events_df(runs), runs_df(runs), tools_df(runs), usage_df(runs)


@pytest.fixture(autouse=True)
def _no_globals_changed():
    renderer, template = pio.renderers.default, pio.templates.default
    yield
    assert (pio.renderers.default, pio.templates.default) == (renderer, template)


def themed(fig: go.Figure) -> None:
    assert isinstance(fig, go.Figure)
    assert fig.layout.paper_bgcolor == "rgba(0,0,0,0)" and fig.layout.plot_bgcolor == "rgba(0,0,0,0)"
    assert fig.layout.hoverlabel.bgcolor and fig.layout.font.color == "#8c8c8c"
    assert "<html" in fig.to_html(include_plotlyjs=False, full_html=True)  # static export works


def test_episode_timeline(frames):
    ids, events, *_ = frames
    fig = plots.episode_timeline(events, ids["approved"])
    themed(fig)
    names = [t.name for t in fig.data]
    phases = events[events["episode_id"] == ids["approved"]]["phase"].astype(str).unique().tolist()
    assert names[: len(phases)] == phases
    assert {"approval pending", "approved", "interrupt", "paused (checkpoint)", "resumed"} <= set(names)
    bar = fig.data[names.index("tool")]
    assert bar.type == "bar" and bar.orientation == "h" and fig.layout.xaxis.type == "date"
    n_tool = int(((events["episode_id"] == ids["approved"]) & (events["phase"] == "tool")).sum())
    assert len(bar.x) == n_tool and "agent" in bar.hovertemplate and "customdata[4]" in bar.hovertemplate
    pending = fig.data[names.index("approval pending")]
    assert pending.y == ("approvals",) and "tool.approval.pending" in pending.customdata[0][1]
    with pytest.raises(ValueError, match="pass episode_id"):
        plots.episode_timeline(events)


def test_cost_and_tokens(frames):
    ids, _, _, _, usage = frames
    fig = plots.cost_over_time(usage, by="model")
    themed(fig)
    assert sorted(t.name for t in fig.data) == sorted(usage["model"].astype(str).unique())
    gpt = next(t for t in fig.data if t.name == "gpt-4o")
    calls = usage[usage["model"] == "gpt-4o"].sort_values("timestamp")
    assert gpt.y[-1] == pytest.approx(calls["cost_usd"].sum()) and "this call" in gpt.hovertemplate
    assert "unpriced" in fig.layout.title.text and fig.layout.yaxis.tickprefix == "$"
    by_run = plots.tokens_by(usage, by="episode_id")
    themed(by_run)
    assert [t.name for t in by_run.data] == ["uncached input", "cached input", "cache-write input", "output", "reasoning (in output)"]
    assert by_run.layout.barmode == "stack" and by_run.data[4].marker.pattern.shape == "/"
    col = list(by_run.data[0].x).index(ids["success"])
    stacked = sum(t.y[col] for t in by_run.data)
    assert stacked == 3000 + 400  # input total + output total: every token once, reasoning inside output
    assert by_run.data[1].y[col] == 900 and by_run.data[2].y[col] == 200 and by_run.data[4].y[col] == 20
    over_time = plots.tokens_over_time(usage, "1D")
    assert over_time.layout.xaxis.type == "date" and len(over_time.data) == 5


def test_adapters(frames):
    _, _, runs, _, _ = frames
    fig = plots.success_by_adapter(runs)
    themed(fig)
    bar = fig.data[0]
    rates = dict(zip(bar.x, bar.y))
    assert rates["llm_adapter"] == pytest.approx(2 / 3)  # ok, ok(audit), vetoed(enforce)
    assert rates["writer_adapter"] == pytest.approx(1 / 2)  # approved ok, rejected vetoed; the paused run is not finished
    assert "finished runs" in bar.hovertemplate and fig.layout.yaxis.tickformat == ".0%"
    box = plots.duration_by_adapter(runs)
    themed(box)
    assert sorted(t.name for t in box.data) == sorted(runs["using"].astype(str).unique())
    assert all(t.type == "box" and t.boxpoints == "all" for t in box.data)


def test_approval_waits(frames):
    _, _, _, tools, _ = frames
    fig = plots.approval_waits(tools)
    themed(fig)
    assert [t.name for t in fig.data] == ["approved", "rejected"]
    assert "1 still pending" in fig.layout.title.text
    assert len(fig.data[0].y) == 1 and len(fig.data[1].y) == 1 and "by %{customdata[2]}" in fig.data[1].hovertemplate
    assert fig.data[1].customdata[0][3] == "no writes on friday"


def test_compare_episodes(frames):
    ids, events, _, _, usage = frames
    table = plots.compare_steps(events, ids["success"], ids["veto_audit"], usage)
    assert table["step"].iloc[0] == "start #1"
    assert {"model:gpt-4o #1", "model:claude-sonnet-4-20250514 #1", "governance #1"} <= set(table["step"])
    gov = table.set_index("step").loc["governance #1"]
    assert np.isnan(gov["seconds_a"]) and gov["seconds_b"] >= 0  # only the audited run has a governance step
    gpt = table.set_index("step").loc["model:gpt-4o #1"]
    assert gpt["cost_a"] == pytest.approx(gpt["cost_b"]) and gpt["delta_cost"] == pytest.approx(0.0)
    fig = plots.compare_episodes(events, ids["success"], ids["veto_audit"], usage)
    themed(fig)
    assert len(fig.data) == 5 and fig.layout.xaxis.type == "category"
    assert "Δ" in fig.data[0].hovertemplate and fig.data[2].name == "Δ time (B − A)"
    tool_steps = plots.compare_steps(events, ids["approved"], ids["rejected"])
    assert "tool:write #1" in set(tool_steps["step"])


def test_missing_columns_name_the_frame_to_use():
    with pytest.raises(ValueError, match="usage_df"):
        plots.cost_over_time(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match="runs_df"):
        plots.success_by_adapter(pd.DataFrame({"x": [1]}))
