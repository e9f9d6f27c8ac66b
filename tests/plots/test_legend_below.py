"""Every figure whose legend is shown puts it under the plot, in rows from the left, at the figure's foot: beside the
plot (plotly's default) a legend took half a narrow figure (a notebook at 800 px) from the data."""

from __future__ import annotations

from typing import Any

from noesis_nb import plots
from noesis_nb.frames import batch_summary

from .test_long_names import long_named  # the fixture: two runs of every kind of name

__all__ = ["long_named"]


def _figures(long_named: Any) -> dict[str, Any]:
    ids, events, runs, tools, usage = long_named
    return {
        "episode_timeline": plots.episode_timeline(events, ids[0]),
        "cost_over_time": plots.cost_over_time(usage.assign(cost_usd=0.001), by="model"),
        "tokens_by": plots.tokens_by(usage, by="model"),
        "success_by_adapter": plots.success_by_adapter(runs),
        "duration_by_adapter": plots.duration_by_adapter(runs),
        "approval_waits": plots.approval_waits(tools),
        "approval_waits by approver": plots.approval_waits(tools, by="approver_id"),
        "compare_episodes": plots.compare_episodes(events, ids[0], ids[1], usage),
        "batch_summary_plot": plots.batch_summary_plot(batch_summary(runs)),
    }


def test_a_shown_legend_lies_under_the_plot_in_rows(long_named: Any) -> None:
    with_legend = []
    for what, fig in _figures(long_named).items():
        layout = fig.to_plotly_json()["layout"]
        shown = [t for t in fig.data if t.showlegend is not False and t.name]
        if layout.get("showlegend") is False or len(shown) < 2 and not any(t.showlegend for t in shown):
            continue  # plotly shows no legend for a single trace unless asked
        with_legend.append(what)
        legend = layout.get("legend", {})
        assert legend.get("orientation") == "h", f"{what}: legend {legend}"
        assert legend.get("yref") == "container" and legend.get("y") == 0 and legend.get("yanchor") == "bottom", what
        assert legend.get("x") == 0 and legend.get("xanchor") == "left", what
    assert {"cost_over_time", "tokens_by", "episode_timeline", "compare_episodes"} <= set(with_legend), with_legend
