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


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def themed(fig: go.Figure) -> None:
    assert isinstance(fig, go.Figure)
    paper, text = fig.layout.paper_bgcolor, fig.layout.font.color
    assert paper == fig.layout.plot_bgcolor and fig.layout.hoverlabel.bgcolor
    light, dark = sorted((_luminance(paper), _luminance(text)), reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= 4.5  # its own paper: readable whatever the notebook's theme
    exported = pio.from_json(fig.to_json())  # static export keeps the look (no global template needed to read it back)
    assert exported.layout.paper_bgcolor == paper and exported.layout.font.color == text


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
    assert pending.y == (plots.timeline.MARK_ROWS["approvals"],) and "tool.approval.pending" in pending.customdata[0][1]
    with pytest.raises(ValueError, match="pass episode_id"):
        plots.episode_timeline(events)


def test_cost_and_tokens(frames):
    ids, _, _, _, usage = frames
    fig = plots.cost_over_time(usage, by="model")
    themed(fig)
    # a line per model with a priced call; the model priced nowhere draws none (not a $0 line)
    priced = usage[usage["cost_usd"].notna()]
    assert sorted(t.name for t in fig.data) == sorted(priced["model"].astype(str).unique())
    assert set(usage["model"]) - set(priced["model"]), "the corpus holds a model priced nowhere"
    gpt = next(t for t in fig.data if t.name == "gpt-4o")
    # success, veto_audit, paused, approved and rejected each make one gpt-4o call (the enforce-vetoed run makes none):
    # 1000 in (400 cached), 100 out at $2.5 / $1.25 / $10 per M
    call = (600 * 2.5 + 400 * 1.25 + 100 * 10) / 1e6
    assert list(gpt.y) == pytest.approx([call, 2 * call, 3 * call, 4 * call, 5 * call], rel=1e-12)
    assert "this call" in gpt.hovertemplate
    assert "(1 unpriced calls left out)" in fig.layout.title.text and fig.layout.yaxis.tickprefix == "$"
    by_run = plots.tokens_by(usage, by="episode_id")
    themed(by_run)
    assert [t.name for t in by_run.data] == [
        "uncached input",
        "cached input",
        "cache-write input",
        "output",
        "reasoning (in output)",
        "input, split unknown",
        "output, split unknown",
    ]
    assert by_run.layout.barmode == "stack" and by_run.data[4].marker.pattern.shape == "/"
    col = list(by_run.data[0].x).index(ids["success"])
    # success: gpt-4o 1000 in (400 cached, cache-write unreported), 100 out (20 reasoning);
    #          sonnet 2000 in (500 cached, 200 cache-write), 300 out (reasoning unreported)
    got = {t.name: t.y[col] for t in by_run.data}
    assert got == {
        "uncached input": 1300,
        "cached input": 900,
        "cache-write input": 200,
        "input, split unknown": 600,
        "output": 80,
        "reasoning (in output)": 20,
        "output, split unknown": 300,
    }
    over_time = plots.tokens_over_time(usage, "1D")
    assert over_time.layout.xaxis.type == "date" and len(over_time.data) == 7


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
    assert len(fig.data) == 6 and fig.layout.xaxis.type == "category"
    assert "Δ" in fig.data[0].hovertemplate and [t.name for t in fig.data[2:4]] == ["Δ B slower", "Δ B faster or equal"]
    for trace in fig.data:  # one colour per trace: what the legend shows is what the bars are
        assert isinstance(trace.marker.color, str)
    slower, faster = (np.asarray(t.y, dtype=float) for t in fig.data[2:4])
    assert np.all(np.isnan(slower) | (slower > 0)) and np.all(np.isnan(faster) | (faster <= 0))
    assert [t.name for t in fig.data[4:]] == ["A cost (hatched)", "B cost (hatched)"] and fig.data[4].showlegend is not False
    assert fig.layout.yaxis3.tickprefix == "$" and fig.layout.yaxis3.exponentformat == "none"  # dollars, never 200μ
    assert fig.layout.yaxis.ticksuffix == fig.layout.yaxis2.ticksuffix == " s" and fig.layout.yaxis2.exponentformat == "none"
    tool_steps = plots.compare_steps(events, ids["approved"], ids["rejected"])
    assert "tool:write #1" in set(tool_steps["step"])
    # without usage the cost of a step is unknown, not $0
    assert tool_steps[["cost_a", "cost_b", "delta_cost"]].isna().all().all()
    assert table.set_index("step").loc["start #1", "cost_a"] == 0.0  # with usage, a step without model calls costs 0


EVIL = '<a href="x">EVIL%{y}</a><b>\u202e\u200b\x1b[2J'  # markup, a template, a bidi override, a zero-width space, an escape
HIDDEN = "\u202e\u200b\x1b"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Runs whose ids, names, agents, reasons and payloads are HTML and plotly placeholders."""
    from ..frames.runkit import event, model_call, write_run

    root = tmp_path_factory.mktemp("hostile") / "runs"
    ids = [f"ep_{i}{EVIL}".replace("/", "|") for i in range(2)]
    for ep in ids:
        draft = f"draft:{ep}:r1"
        t = [f"2025-03-01T10:00:{s:02d}+00:00" for s in range(0, 60, 10)]
        run = write_run(
            root,
            ep,
            [
                event(ep, 0, "start", {"task": EVIL, "using": EVIL}, ts=t[0]),
                model_call(ep, 1, t[1], EVIL, "openai", input_tokens=100, output_tokens=10),
                event(ep, 2, "tool", {"event_name": "tool.requested", "request_id": "r1", "tool": EVIL}, ts=t[2], agent_id=EVIL),
                event(ep, 3, "tool", {"event_name": "tool.approval.pending", "request_id": "r1", "draft_id": draft}, ts=t[3]),
                event(ep, 4, "tool", {"event_name": EVIL, "request_id": "r1", "draft_id": draft, "note": EVIL}, ts=t[4]),
                event(ep, 5, "terminate", {"status": "ok"}, ts=t[5]),
            ],
            summary={
                "episode_id": ep,
                "task": EVIL,
                "status": "ok",
                "started_at": t[0],
                "duration_sec": 50.0,
                "flags": {"using": EVIL},
            },
        )
        folder = run / "tool_invocations"
        for kind, doc in (
            ("prepared", {"draft_id": draft, "tool": EVIL, "status": "approved"}),
            (
                "approvals",
                {
                    "draft_id": draft,
                    "status": "approved",
                    "approver_id": EVIL,
                    "reason": EVIL,
                    "decided_at": "2025-03-01T10:00:35+00:00",
                },
            ),
        ):
            (folder / kind).mkdir(parents=True, exist_ok=True)
            (folder / kind / f"{draft}.json").write_text(__import__("json").dumps(doc))
    return ids, events_df(root), runs_df(root), tools_df(root), usage_df(root)


def assert_no_raw_user_text(fig: go.Figure) -> None:
    """Every string holding user text is escaped, and no hover template holds user text at all."""
    seen = []

    def walk(node, key=""):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, (list, tuple, np.ndarray)):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and "EVIL" in node:
            seen.append(key)
            assert key != "hovertemplate", f"user text in a hover template: {node!r}"
            own = node.replace("<br>", "")  # the line breaks of a long name wrapped for its hover are the package's
            assert not any(ch in own for ch in '<>"'), f"unescaped user text in {key}: {node!r}"
            assert not any(ch in node for ch in HIDDEN), f"a hidden character in {key}: {node!r}"

    walk(fig.to_plotly_json())
    assert seen  # the hostile text did reach the figure, escaped


def test_untrusted_text_is_escaped_and_never_a_template(hostile):
    ids, events, runs, tools, usage = hostile
    figures = [
        plots.episode_timeline(events, ids[0]),
        plots.cost_over_time(usage.assign(cost_usd=0.001), by="model"),  # the hostile model is priced nowhere
        plots.tokens_by(usage, by="model"),
        plots.tokens_by(usage, by="episode_id"),
        plots.success_by_adapter(runs),
        plots.duration_by_adapter(runs),
        plots.approval_waits(tools),
        plots.approval_waits(tools, by="approver_id"),
        plots.compare_episodes(events, ids[0], ids[1], usage),
    ]
    for fig in figures:
        assert_no_raw_user_text(fig)
    timeline = figures[0]
    assert any("&lt;a href=&quot;x&quot;&gt;EVIL%{y}" in str(row) for t in timeline.data for row in t.customdata)


def test_missing_columns_name_the_frame_to_use():
    with pytest.raises(ValueError, match="usage_df"):
        plots.cost_over_time(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match="runs_df"):
        plots.success_by_adapter(pd.DataFrame({"x": [1]}))


def test_token_parts_keep_unknown_apart():
    usage = pd.DataFrame(
        {
            "model": ["m", "m", "m"],
            "input_tokens": [100, np.nan, 100],
            "cached_input_tokens": [40, 5, np.nan],
            "cache_write_input_tokens": [0, np.nan, np.nan],
            "output_tokens": [10, 10, np.nan],
            "reasoning_tokens": [np.nan, 2, 1],
        }
    )
    parts = plots.token_parts(usage)
    assert parts.to_dict("list") == {
        "uncached input": [60, 0, 0],
        "cached input": [40, 0, 0],
        "cache-write input": [0, 0, 0],
        "input, split unknown": [0, 0, 100],
        "output": [0, 8, 0],
        "reasoning (in output)": [0, 2, 0],
        "output, split unknown": [10, 0, 0],
    }
    assert "(2 calls with unknown totals left out)" in plots.tokens_by(usage).layout.title.text


@pytest.mark.parametrize(
    ("values", "fmt"), [([0.0002, 0.0004], ",.7~f"), ([0.03], ",.5~f"), ([12.5, None], ",.2~f"), ([float("nan")], ",.2~f")]
)
def test_money_axis_reads_dollars_with_enough_decimals(values, fmt):
    from noesis_nb.plots._theme import money_axis

    axis = money_axis(values)
    assert axis == {"tickprefix": "$", "tickformat": fmt, "exponentformat": "none"}


_WANTS = {  # plot -> the frame it is drawn from
    plots.episode_timeline: "events_df",
    plots.cost_over_time: "usage_df",
    plots.tokens_by: "usage_df",
    plots.tokens_over_time: "usage_df",
    plots.token_parts: "usage_df",
    plots.success_by_adapter: "runs_df",
    plots.duration_by_adapter: "runs_df",
    plots.approval_waits: "tools_df",
}


def test_a_plot_given_another_frame_names_the_frame_it_needs(frames):
    """Every plot handed the wrong frame (or no frame) says which loader makes the right one: never a KeyError."""
    ids, events, runs, tools, usage = frames
    by_name = {"events_df": events, "runs_df": runs, "tools_df": tools, "usage_df": usage}
    checked = 0
    for plot, wanted in _WANTS.items():
        for name, frame in by_name.items():
            if wanted in (name, "usage_df") and set(frame.columns) >= set(by_name[wanted].columns) - {"payload"}:
                continue  # this frame has what the plot reads (runs_df has usage_df's token columns)
            try:
                plot(frame)
            except ValueError as exc:
                assert f"pass noesis_nb.{wanted}(source)" in str(exc), (plot.__name__, name, exc)
                checked += 1
            else:
                assert wanted != name, (plot.__name__, name)
        with pytest.raises(TypeError, match=rf"takes a DataFrame from noesis_nb.{wanted}"):
            plot({"episode_id": ["x"]})
    assert checked >= 20
    a, b = ids["success"], ids["failure"]
    for bad in (runs, tools, usage):
        for compare in (plots.compare_steps, plots.aligned_steps, plots.compare_episodes):
            with pytest.raises(ValueError, match=r"pass noesis_nb.events_df\(source\)"):
                compare(bad, a, b)
    with pytest.raises(ValueError, match=r"usage=\) needs usage_df columns \['cost_usd'\]"):
        plots.compare_steps(events, a, b, usage=usage.drop(columns=["cost_usd"]))


def test_a_by_that_is_no_column_name_is_one_error_naming_it(frames):
    """``by=["model"]`` was pandas' "unhashable type: 'list'" from deep in a column lookup."""
    _ids, _events, _runs, tools, usage = frames
    for call, shown in [
        (lambda: plots.cost_over_time(usage, by=["model"]), r"\['model'\]"),
        (lambda: plots.tokens_by(usage, by=None), "None"),
        (lambda: plots.approval_waits(tools, by=("tool",)), r"\('tool',\)"),
    ]:
        with pytest.raises(TypeError, match=rf"{shown} is not a column name; pass one name such as by='model'"):
            call()
    themed(plots.cost_over_time(usage, by="model"))
