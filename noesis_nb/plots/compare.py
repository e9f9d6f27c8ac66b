"""Two episodes side by side, aligned step by step (phase, tool call, model call), with time and cost deltas."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .._keywords import keywords_named
from .._safetext import safe_repr
from ..errors import InvalidOptionError
from ..secrets import quoted
from ..store.vocab import TOOL_REQUESTED
from ._need import need
from ._safe import categories, label_ticks, short
from ._theme import PALETTE, money_axis, seconds_axis, style

__all__ = ["compare_steps", "aligned_steps", "compare_episodes"]


_OWN_STEP_NAMES = ("tool:", "model:", "phase ")


def _phase_step(phase: str) -> str:
    """A phase's step name; one an adapter named like a tool or model step (``tool:fs.write``), like the name of a
    phase that is not there (``?``) or like one of these (``phase …``) reads ``phase tool:fs.write``: a user's phase
    is never aligned with (or merged into) a call's step, and two phases never share a name."""
    return f"phase {phase}" if phase.startswith(_OWN_STEP_NAMES) or phase == "?" else phase


def _steps(events: pd.DataFrame, episode_id: str, usage: pd.DataFrame | None) -> pd.DataFrame:
    """One row per step: consecutive events of one phase (a tool call: all events of one request)."""
    need(events, ("episode_id", "seq", "timestamp", "phase", "payload"), "comparing episodes", "events_df")
    if usage is not None:
        need(usage, ("episode_id", "timestamp", "cost_usd"), "comparing episodes (usage=)", "usage_df")
    one = events[events["episode_id"].astype(str) == episode_id].sort_values("seq")
    if one.empty:
        ids = events["episode_id"].astype(str).unique().tolist()
        raise InvalidOptionError(f"episode {quoted(episode_id)} is not in events; it has {ids[:5]}")
    labels: list[tuple[str, Any]] = []  # (step name, what tells two steps of that name apart while they follow)
    tools: dict[Any, Any] = {}
    phases = [p if isinstance(p, str) else None for p in one["phase"].tolist()]  # an unknown phase is NaN
    for phase, payload in zip(phases, one["payload"]):
        payload = payload if isinstance(payload, dict) else {}
        if phase == "tool":
            request = payload.get("request_id")
            if not isinstance(request, (str, type(None))):  # a damaged line's list or object is named, not looked up
                request = safe_repr(request, 200)
            if payload.get("event_name") == TOOL_REQUESTED:
                tools[request] = payload.get("tool") or "?"
            labels.append((f"tool:{tools.get(request, '?')}", ("tool", request)))
        elif phase == "model":
            labels.append((f"model:{payload.get('model')}", ("model", id(payload))))
        else:
            labels.append(("?" if phase is None else _phase_step(phase), None))
    new_step = np.array([i == 0 or labels[i] != labels[i - 1] for i in range(len(labels))], dtype=bool)
    step_no = np.cumsum(new_step) - 1
    at = one["timestamp"].to_numpy()[new_step]  # each step's first event
    began = _call_starts(one["timestamp"], one["payload"], phases)[new_step]
    trusted = ~pd.isna(began)
    starts = np.where(trusted, began, at)
    names = [name for (name, _), new in zip(labels, new_step) if new]
    # a step ends where the next one starts, or the first of the calls that follow at once, if one began earlier
    following = np.append(np.minimum.accumulate(starts[::-1])[::-1][1:], one["timestamp"].to_numpy()[-1])
    ends = np.where(trusted, np.maximum(at, following), following)  # a trusted call ends at its event, at least
    seconds = np.maximum((pd.Series(ends) - pd.Series(starts)).dt.total_seconds().to_numpy(), 0.0)
    counts: dict[str, int] = {}
    keys = []
    for name in names:
        counts[name] = counts.get(name, 0) + 1
        keys.append(f"{name} #{counts[name]}")
    cost = np.zeros(len(names)) if usage is not None else np.full(len(names), np.nan)  # no usage: cost unknown, not 0
    if usage is not None and len(usage):
        calls = usage[usage["episode_id"].astype(str) == episode_id]
        where = np.searchsorted(at, calls["timestamp"].to_numpy(), side="right") - 1
        for i, c in zip(where, calls["cost_usd"].to_numpy(dtype=float, na_value=np.nan)):
            if 0 <= i < len(cost):
                cost[i] += c
    return pd.DataFrame(
        {
            "step": keys,
            "start": starts,
            "seconds": seconds,
            "cost_usd": cost,
            "events": np.bincount(step_no, minlength=len(names)),
        }
    )


def _call_starts(timestamps: pd.Series, payloads: pd.Series, phases: list[str | None]) -> np.ndarray:
    """When each model call began (its event's time less its ``latency_ms``) where that latency is trusted: it fits
    in the time since the last event before it that is not a model call (or the run's first event); NaT for other
    events and a call of unknown, unreadable or impossible latency (older runs recorded latencies that never
    passed)."""
    latency = [p.get("latency_ms") if phase == "model" and isinstance(p, dict) else None for phase, p in zip(phases, payloads)]
    ms = pd.to_numeric(pd.Series(latency, dtype=object), errors="coerce").to_numpy(dtype=float, copy=True)
    ms[~np.isfinite(ms) | (ms < 0)] = np.nan
    times = pd.Series(timestamps.to_numpy())
    is_call = np.array([phase == "model" for phase in phases], dtype=bool)
    # the time of the last event before each that is not a model call (the run's first event if none)
    anchor = times.where(~pd.Series(is_call)).shift(1).ffill().fillna(times.iloc[0])
    began = times - pd.to_timedelta(ms, unit="ms")
    fits = began.notna() & (began >= anchor)
    trusted: np.ndarray = began.where(fits).to_numpy()
    return trusted


@keywords_named
def compare_steps(events: pd.DataFrame, a: str, b: str, usage: pd.DataFrame | None = None) -> pd.DataFrame:
    """Steps of ``a`` and ``b`` aligned by key (``act #1``, ``tool:fs.write #2``, ``model:gpt-4o #1``, …).

    Columns: ``step, seconds_a, seconds_b, delta_s, cost_a, cost_b, delta_cost`` (B − A; NaN where one side lacks the step,
    and costs NaN without ``usage``).

    A step's time runs from its first event until the next step starts. A model call's event is written when the
    call ends, so where its ``latency_ms`` fits in the time since the last event before it that is not a model call,
    its step starts when the call began (event time − latency) and lasts at least that latency, as the step view
    says it: the call's time is its own, and the step before it ends where the first of the calls after it began
    (calls made at once, overlapping, each keep their own latency). A latency that does not fit there (older runs
    recorded ones that never passed) is not trusted: that call's step runs from its event, like any other step.
    """
    sa, sb = _steps(events, a, usage), _steps(events, b, usage)
    order = list(sa["step"]) + [s for s in sb["step"] if s not in set(sa["step"])]
    merged = (
        pd.DataFrame({"step": order})
        .merge(sa[["step", "seconds", "cost_usd"]], on="step", how="left")
        .merge(sb[["step", "seconds", "cost_usd"]], on="step", how="left", suffixes=("_a", "_b"))
    )
    merged = merged.rename(columns={"cost_usd_a": "cost_a", "cost_usd_b": "cost_b"})
    merged["delta_s"] = merged["seconds_b"] - merged["seconds_a"]
    merged["delta_cost"] = merged["cost_b"] - merged["cost_a"]
    return merged[["step", "seconds_a", "seconds_b", "delta_s", "cost_a", "cost_b", "delta_cost"]]


@keywords_named
def aligned_steps(events: pd.DataFrame, a: str, b: str, usage: pd.DataFrame | None = None) -> pd.DataFrame:
    """``compare_steps`` plus where each run is at each row: ``events_a`` / ``events_b``, how many of its events
    it has written by the end of that step (or of its latest earlier step: never going back), and ``in_a`` /
    ``in_b``, whether the run has the step at all. A replay of both runs side by side follows these counts.
    """
    table = compare_steps(events, a, b, usage)
    for side, episode in (("a", a), ("b", b)):
        steps = _steps(events, episode, usage)
        through = dict(zip(steps["step"], np.cumsum(steps["events"].to_numpy())))
        counts = table["step"].map(through)
        table[f"in_{side}"] = counts.notna().to_numpy()
        table[f"events_{side}"] = counts.astype(float).cummax().ffill().fillna(0).astype(int).to_numpy()
    return table


@keywords_named
def compare_episodes(
    events: pd.DataFrame, a: str, b: str, usage: pd.DataFrame | None = None, *, title: str | None = None
) -> go.Figure:
    """Per-step time for A and B (top), B − A time delta (middle) and, with ``usage``, cost per step (bottom)."""
    table = compare_steps(events, a, b, usage)
    rows = 3 if usage is not None else 2
    fig = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        subplot_titles=["time per step", "time delta B − A: above 0, B took longer"]
        + (["cost per step (hatched bars: cost; colours as above)"] if rows == 3 else []),
    )
    steps, axis, ticks = categories(table["step"])  # step keys hold tool and model names from the runs
    numbers = ("seconds_a", "seconds_b", "delta_s", "cost_a", "cost_b", "delta_cost")
    custom = np.stack([table[c].to_numpy(dtype=float) for c in numbers], axis=1)
    hover = (  # the step's name whole from hovertext: %{x} is its tick's, cut short
        "%{hovertext}<br>A: %{customdata[0]:.3f} s · B: %{customdata[1]:.3f} s · Δ %{customdata[2]:+.3f} s"
        "<br>A: $%{customdata[3]:.6f} · B: $%{customdata[4]:.6f} · Δ $%{customdata[5]:+.6f}<extra></extra>"
    )
    for side, color, label in (("a", PALETTE[0], f"A {short(a)}"), ("b", PALETTE[1], f"B {short(b)}")):
        fig.add_trace(
            go.Bar(
                name=label,
                x=steps,
                y=table[f"seconds_{side}"],
                marker_color=color,
                customdata=custom,
                hovertext=steps,
                hovertemplate=hover,
                legendgroup=side,
            ),
            row=1,
            col=1,
        )
    delta = table["delta_s"].to_numpy(dtype=float)
    for name, color, keep in (
        ("Δ B slower", PALETTE[5], delta > 0),
        ("Δ B faster or equal", PALETTE[2], delta <= 0),
    ):  # one trace per sign, so the legend's colour is its bars' colour
        fig.add_trace(
            go.Bar(
                name=name,
                x=steps,
                y=np.where(keep, delta, np.nan),
                customdata=custom,
                hovertext=steps,
                hovertemplate=hover,
                marker_color=color,
                legendgroup="delta",
            ),
            row=2,
            col=1,
        )
    if rows == 3:
        for side, color in (("a", PALETTE[0]), ("b", PALETTE[1])):
            fig.add_trace(
                go.Bar(
                    name=f"{side.upper()} cost (hatched)",
                    x=steps,
                    y=table[f"cost_{side}"],
                    marker_color=color,
                    marker_pattern_shape="/",
                    customdata=custom,
                    hovertext=steps,
                    hovertemplate=hover,
                    legendgroup=side,
                ),
                row=3,
                col=1,
            )
    style(fig, title or f"A {short(a)}")
    if title is None:  # B on a line of its own: one long line would run past both edges of a narrow figure
        fig.update_layout(title_subtitle_text=f"vs B {short(b)}")
    # the legend under the plots, in rows: beside them it takes half a narrow figure and the subplot titles, centred
    # over what is left, run past its left edge
    fig.update_layout(
        barmode="group",
        height=260 * rows + 60,
        margin_t=112,
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
    )
    fig.update_yaxes(**seconds_axis(table[["seconds_a", "seconds_b"]].to_numpy().ravel()), row=1, col=1)
    fig.update_yaxes(**seconds_axis(table["delta_s"].to_numpy()), row=2, col=1)
    if rows == 3:
        fig.update_yaxes(**money_axis(table[["cost_a", "cost_b"]].to_numpy().ravel()), row=3, col=1)
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=axis)
    label_ticks(fig, "x", axis, ticks)
    return fig
