"""Batches in figures: ``batch_summary_plot`` (rate and score per adapter) and ``compare_batches_plot`` (differences)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .._keywords import keywords_named
from ..errors import InvalidOptionError
from ._safe import categories, label_ticks
from ._theme import PALETTE, new_figure, say_empty

__all__ = ["batch_summary_plot", "compare_batches_plot"]


_SUMMARY = ("success_rate", "success_low", "success_high", "mean_score", "score_low", "score_high")
_COMPARISON = ("diff", "diff_low", "diff_high", "pairs")


def _check(frame: Any, what: str, columns: tuple[str, ...], maker: str) -> None:
    """One error naming what was given and the call that makes the frame (``None`` or a list: not a ``TypeError``)."""
    if not isinstance(frame, pd.DataFrame) or not set(columns) <= set(frame.columns):
        given = type(frame).__name__ if not isinstance(frame, pd.DataFrame) else "a DataFrame without its columns"
        raise InvalidOptionError(f"{what} needs the frame of {maker}, not {given}")


def _bar(x: Any, y: pd.Series, low: pd.Series, high: pd.Series, colour: str, name: str, fmt: str) -> go.Bar:
    return go.Bar(
        name=name,
        x=x,
        y=y.to_numpy(dtype=float),
        marker_color=colour,
        error_y=dict(
            type="data",
            symmetric=False,
            array=(high - y).to_numpy(dtype=float),
            arrayminus=(y - low).to_numpy(dtype=float),
            color="#8c8c8c",
        ),
        hovertext=x,  # the name whole: %{x} would be the tick's, cut short
        hovertemplate=f"%{{hovertext}}<br>{name} %{{y:{fmt}}}<extra></extra>",
    )


@keywords_named
def batch_summary_plot(summary: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Success rate (Wilson 95%) and mean score (t 95%) per adapter, side by side, from ``batch_summary``."""
    _check(summary, "batch_summary_plot", _SUMMARY, "noesis_nb.batch_summary(runs)")
    x, axis, ticks = categories(summary.index)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("success rate (Wilson 95%)", "mean score (t 95%)"))
    base = new_figure(title or "Batch by adapter")
    fig.update_layout(base.layout)
    fig.add_trace(
        _bar(x, summary["success_rate"], summary["success_low"], summary["success_high"], PALETTE[2], "success", ".0%"), 1, 1
    )
    fig.add_trace(_bar(x, summary["mean_score"], summary["score_low"], summary["score_high"], PALETTE[0], "score", ".2f"), 1, 2)
    fig.update_yaxes(tickformat=".0%", range=[0, 1.05], row=1, col=1)
    fig.update_xaxes(type="category")
    label_ticks(fig, "x", axis, ticks)
    fig.update_layout(showlegend=False)
    return say_empty(fig, "no adapters in this summary: batch_summary(runs) of runs that have ended") if summary.empty else fig


@keywords_named
def compare_batches_plot(comparison: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Each metric's paired difference (b − a) with its 95% interval, around a zero line, from ``compare_batches``."""
    _check(comparison, "compare_batches_plot", _COMPARISON, "noesis_nb.compare_batches(a, b)")
    fig = new_figure(title or "b − a, paired by task")
    y, axis, ticks = categories(comparison.index)
    diff = comparison["diff"].to_numpy(dtype=float)
    fig.add_trace(
        go.Scatter(
            x=diff,
            y=y,
            mode="markers",
            marker=dict(color=PALETTE[1], size=10),
            error_x=dict(
                type="data",
                symmetric=False,
                array=comparison["diff_high"].to_numpy(dtype=float) - diff,
                arrayminus=diff - comparison["diff_low"].to_numpy(dtype=float),
                color="#8c8c8c",
            ),
            customdata=comparison["pairs"].to_numpy(),
            hovertext=y,
            hovertemplate="%{hovertext}: %{x:+.3f} over %{customdata} paired tasks<extra></extra>",
        )
    )
    fig.add_vline(x=0, line_dash="dot", line_color="#8c8c8c")
    fig.update_xaxes(title="difference (b − a)")
    fig.update_yaxes(type="category")
    label_ticks(fig, "y", axis, ticks)
    return say_empty(fig, "nothing compared: the two sides share no task") if comparison.empty else fig
