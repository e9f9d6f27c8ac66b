"""Success rate and duration by adapter (``runs_df`` in, figure out)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .._keywords import keywords_named
from ..frames.batches import RUNNING_TIME, group_names, running_time
from ..store.vocab import TERMINAL_STATUSES
from ._need import need
from ._safe import categories, esc_all, label_ticks, wrapped
from ._theme import PALETTE, new_figure, say_empty

__all__ = ["success_by_adapter", "duration_by_adapter"]


def _adapters(runs: pd.DataFrame, what: str) -> pd.Series:
    need(runs, ("using", "status", "duration_s"), what, "runs_df")
    return group_names(runs["using"])


@keywords_named
def success_by_adapter(runs: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Share of finished runs that succeeded, per adapter, with a 95% Wilson interval and the counts in hover.

    A run counts as finished when its status is ok, error, vetoed or cancelled; success is status ``ok``.
    """
    using = _adapters(runs, "success_by_adapter")
    finished = runs["status"].astype(str).isin(sorted(TERMINAL_STATUSES)).to_numpy()
    ok = (runs["status"].astype(str) == "ok").to_numpy()
    table = pd.DataFrame({"using": using[finished], "ok": ok[finished]}).groupby("using")["ok"].agg(["sum", "count"])
    rate = table["sum"] / table["count"]
    low, high = _wilson(table["sum"].to_numpy(dtype=float), table["count"].to_numpy(dtype=float))
    fig = new_figure(title or "Success rate by adapter")
    shown, axis, ticks = categories(table.index)
    fig.add_trace(
        go.Bar(
            name="success rate",
            x=shown,
            y=rate.to_numpy(),
            marker_color=PALETTE[2],
            error_y=dict(
                type="data", symmetric=False, array=high - rate.to_numpy(), arrayminus=rate.to_numpy() - low, color="#8c8c8c"
            ),
            customdata=np.stack([table["sum"], table["count"]], axis=1),
            hovertext=shown,  # the name whole: %{x} is its tick's, cut short
            hovertemplate="%{hovertext}<br>%{y:.0%} (%{customdata[0]} of %{customdata[1]} finished runs)<extra></extra>",
        )
    )
    fig.update_yaxes(title="success rate", tickformat=".0%", range=[0, 1.05])
    fig.update_xaxes(title="adapter", type="category")
    label_ticks(fig, "x", axis, ticks)
    if table.empty:
        return say_empty(fig, _none("finished runs (ok, error, vetoed or cancelled)", runs))
    return fig


def _wilson(k: np.ndarray, n: np.ndarray, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


@keywords_named
def duration_by_adapter(runs: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Running time per adapter (``duration_s - waiting_s``: a wait for a person to approve left out, as the live view
    counts it) as box plots with every run shown; hover names the episode and both times. The axis says which time
    is plotted (a frame without ``waiting_s`` plots its wall time, and says so)."""
    using = _adapters(runs, "duration_by_adapter")
    seconds, meaning = running_time(runs)
    wall = runs["duration_s"].to_numpy(dtype=float, na_value=np.nan)
    fig = new_figure(title or "Duration by adapter")
    names = sorted(using.unique())
    _, axis, ticks = categories(names)
    for i, (name, shown) in enumerate(zip(names, axis)):
        mine = (using == name).to_numpy()
        rows = runs[mine]
        fig.add_trace(
            go.Box(
                name=shown,
                y=seconds[mine],
                boxpoints="all",
                jitter=0.3,
                pointpos=0,
                marker=dict(color=PALETTE[i % len(PALETTE)], size=5),
                line=dict(width=1.5),
                customdata=np.stack(
                    [
                        esc_all(rows["episode_id"].astype(object)),
                        esc_all(rows["status"].astype(object)),
                        np.full(len(rows), wrapped(name, exact=True), dtype=object),
                        wall[mine],
                    ],
                    axis=1,
                ),
                hovertemplate="%{customdata[0]}<br>%{y:.3f} s"
                + (" running, %{customdata[3]:.3f} s wall time" if meaning == RUNNING_TIME else " wall time")
                + " · %{customdata[1]}<extra>%{customdata[2]}</extra>",
            )
        )
    fig.update_yaxes(title=meaning)
    fig.update_xaxes(title="adapter", type="category")
    label_ticks(fig, "x", axis, ticks)
    fig.update_layout(showlegend=False)
    return say_empty(fig, _none("runs", runs)) if runs.empty else fig


def _none(what: str, runs: pd.DataFrame) -> str:
    """Why a runs figure is empty, and what to do."""
    if runs.empty:
        return f"no {what} in this runs frame: load the runs dir your episodes write to, e.g. noesis_nb.runs_df(RUNS_DIR)"
    return f"no {what} among its {len(runs)} runs: plot it again when some have ended"
