"""Cost and tokens: over time and by model or run (``usage_df`` in, figure out)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .._keywords import keywords_named
from ..errors import InvalidOptionError
from ..frames.batches import group_names
from ..secrets.quoted import quoted
from ..store.vocab import TOKEN_COLUMNS
from ._need import as_times, need
from ._safe import categories, esc, label_ticks, wrapped
from ._theme import PALETTE, color_map, money_axis, new_figure, say_empty

__all__ = ["cost_over_time", "tokens_by", "tokens_over_time", "token_parts"]

_PARTS = [
    ("uncached input", PALETTE[0], ""),
    ("cached input", PALETTE[4], ""),
    ("cache-write input", PALETTE[3], ""),
    ("output", PALETTE[1], ""),
    ("reasoning (in output)", PALETTE[1], "/"),
]
_NO_CALLS = "no model calls in this usage frame: load the runs dir your episodes write to, e.g. noesis_nb.usage_df(RUNS_DIR)"
_UNKNOWN = [("input, split unknown", PALETTE[0], "."), ("output, split unknown", PALETTE[1], ".")]  # drawn only when present


def _need(df: pd.DataFrame, cols: tuple[str, ...], what: str) -> None:
    need(df, cols, what, "usage_df")


def _check_freq(freq: object, what: str) -> None:
    """A bucket width ``dt.floor`` takes: a fixed, positive pandas frequency (a month or a week is not fixed)."""
    try:
        step = pd.tseries.frequencies.to_offset(freq).nanos
    except (TypeError, ValueError, AttributeError):
        step = 0
    if step <= 0:
        raise InvalidOptionError(
            f"{what}: freq={quoted(freq, 60)} is not a pandas frequency of fixed, positive length; pass e.g. '15min', '1h', "
            "'1D' or '7D'"
        )


@keywords_named
def token_parts(usage: pd.DataFrame) -> pd.DataFrame:
    """Split totals into parts that add up: uncached/cached/cache-write input, non-reasoning output, reasoning.

    Unknown stays unknown: when a call did not report a part, the rest of its total (what is not
    a known part) is ``input, split unknown`` / ``output, split unknown`` rather than guessed as
    uncached input or plain output. A call with an unknown total adds nothing to that side.
    """
    need(usage, TOKEN_COLUMNS, "token_parts", "usage_df")
    t = {c: usage[c].astype(float) for c in TOKEN_COLUMNS}
    inp, out, cached, cw, reasoning = (
        t["input_tokens"],
        t["output_tokens"],
        t["cached_input_tokens"],
        t["cache_write_input_tokens"],
        t["reasoning_tokens"],
    )
    in_known, out_known = inp.notna(), out.notna()
    in_split = in_known & cached.notna() & cw.notna()
    out_split = out_known & reasoning.notna()
    rest_in = (inp - cached.fillna(0.0) - cw.fillna(0.0)).clip(lower=0)
    rest_out = (out - reasoning.fillna(0.0)).clip(lower=0)
    zero = pd.Series(0.0, index=usage.index)
    return pd.DataFrame(
        {
            "uncached input": rest_in.where(in_split, 0.0),
            "cached input": cached.where(in_known, 0.0).fillna(0.0),
            "cache-write input": cw.where(in_known, 0.0).fillna(0.0),
            "input, split unknown": rest_in.where(in_known & ~in_split, zero),
            "output": rest_out.where(out_split, 0.0),
            "reasoning (in output)": reasoning.where(out_known, 0.0).fillna(0.0),
            "output, split unknown": rest_out.where(out_known & ~out_split, zero),
        },
        index=usage.index,
    )


def _unknown_totals(usage: pd.DataFrame) -> str:
    """Title note for calls whose input or output total is unknown (left out of the bars)."""
    n = int((usage["input_tokens"].isna() | usage["output_tokens"].isna()).sum())
    return f" ({n} calls with unknown totals left out)" if n else ""


def _stacked(fig: go.Figure, x: Sequence[object], parts: pd.DataFrame, group_label: str) -> None:  # x: a label per bar
    """One bar per ``x`` of the token parts; the hover names it as ``x`` holds it (a tick shows it cut)."""
    for name, color, pattern in _PARTS + [u for u in _UNKNOWN if parts[u[0]].to_numpy().any()]:
        labels = np.empty((len(x), 2), dtype=object)
        labels[:, 0] = esc(group_label)
        labels[:, 1] = [str(v) for v in x]
        fig.add_trace(
            go.Bar(
                name=name,
                x=x,
                y=parts[name].to_numpy(),
                marker=dict(color=color, pattern=dict(shape=pattern)),
                customdata=labels,
                hovertemplate="%{customdata[0]}: %{customdata[1]}<br>" + name + ": %{y:,.0f} tokens<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack", yaxis=dict(title="tokens"))


@keywords_named
def tokens_by(usage: pd.DataFrame, by: str = "model", *, title: str | None = None) -> go.Figure:
    """Stacked token parts per ``by`` (``model``, ``provider`` or ``episode_id``); reasoning hatched inside output."""
    need(usage, ("input_tokens", "output_tokens", by), "tokens_by", "usage_df", by=by)
    parts = token_parts(usage).groupby(group_names(usage[by]), sort=True).sum()
    fig = new_figure(title or esc(f"Tokens by {by}{_unknown_totals(usage)}"))
    shown, axis, ticks = categories(parts.index)
    _stacked(fig, list(shown), parts, by)
    label_ticks(fig, "x", axis, ticks)
    fig.update_xaxes(title=esc(by), type="category")
    return say_empty(fig, _NO_CALLS) if usage.empty else fig


@keywords_named
def tokens_over_time(usage: pd.DataFrame, freq: str = "1h", *, title: str | None = None) -> go.Figure:
    """Stacked token parts per time bucket (``freq`` is a pandas offset such as ``"15min"`` or ``"1D"``)."""
    _need(usage, ("timestamp", "input_tokens", "output_tokens"), "tokens_over_time")
    _check_freq(freq, "tokens_over_time")
    times = usage["timestamp"]
    if not pd.api.types.is_datetime64_any_dtype(times):  # datetime objects (need() refused anything else)
        times = pd.to_datetime(times, utc=True)
    parts = token_parts(usage).groupby(times.dt.floor(freq)).sum()
    fig = new_figure(title or esc(f"Tokens per {freq}{_unknown_totals(usage)}"))
    _stacked(fig, list(parts.index), parts, "time")
    fig.update_xaxes(title="time (UTC)", type="date")
    return say_empty(fig, _NO_CALLS) if usage.empty else fig


@keywords_named
def cost_over_time(usage: pd.DataFrame, by: str = "model", *, cumulative: bool = True, title: str | None = None) -> go.Figure:
    """Cost (USD, priced at analysis time) over time, one line per ``by`` value (``model`` or ``episode_id``).

    Unpriced calls (NaN cost) are left out of the lines (never drawn as $0) and counted in the title; calls with no
    ``by`` value are the line ``(unknown)``.
    """
    need(usage, ("timestamp", "cost_usd", by), "cost_over_time", "usage_df", by=by, times=False)
    # text and date values were plotted before the check came: read as times, they still are
    df = usage.assign(timestamp=as_times(usage["timestamp"], "cost_over_time")).sort_values("timestamp")
    unpriced = int(df["cost_usd"].isna().sum())
    fig = new_figure(
        title
        or esc(
            ("Cumulative cost" if cumulative else "Cost per call")
            + f" by {by}"
            + (f" ({unpriced} unpriced calls left out)" if unpriced else "")
        )
    )
    df = df[df["cost_usd"].notna().to_numpy()]  # a line draws what is priced; a model with no priced call draws none
    keys = group_names(df[by])
    ordered = sorted(keys.unique())
    colors = color_map(ordered)
    legend = dict(zip(ordered, categories(ordered)[2]))  # names cut alike stay apart: "… (1)", "… (2)"
    for key in ordered:
        rows = df[(keys == key).to_numpy()]
        cost = rows["cost_usd"]
        y = cost.cumsum() if cumulative else cost
        n = len(rows)
        fig.add_trace(
            go.Scatter(
                name=legend[key],
                x=rows["timestamp"],
                y=y.to_numpy(),
                mode="lines+markers",
                line=dict(shape="hv" if cumulative else "linear", color=colors[key]),
                customdata=np.stack(
                    [
                        cost.to_numpy(dtype=float, na_value=np.nan),
                        rows["input_tokens"].to_numpy(dtype=float, na_value=np.nan),
                        rows["output_tokens"].to_numpy(dtype=float, na_value=np.nan),
                        np.full(n, esc(by), dtype=object),
                        np.full(n, wrapped(key, exact=True), dtype=object),
                    ],
                    axis=1,
                ),
                hovertemplate="%{customdata[3]}: %{customdata[4]}<br>%{x}<br>total: $%{y:.6f}<br>this call: $%{customdata[0]:.6f}"
                "<br>in %{customdata[1]:,.0f} / out %{customdata[2]:,.0f} tokens<extra></extra>",
            )
        )
    fig.update_xaxes(title="time (UTC)", type="date")
    fig.update_yaxes(title="USD", **money_axis([t for trace in fig.data for t in trace.y]))
    if usage.empty:
        return say_empty(fig, _NO_CALLS)
    if df.empty:  # calls, none priced: say why nothing is drawn (a blank chart reads as $0)
        return say_empty(
            fig,
            f"no priced calls: {unpriced} call(s) with no price (model not in genai-prices, or tokens unknown); "
            "tokens_by(usage) draws their tokens",
        )
    return fig
