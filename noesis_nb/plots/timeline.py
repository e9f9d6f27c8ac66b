"""``episode_timeline``: one episode's phases as a strip over time, approvals and pauses marked."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .._keywords import keywords_named
from .._safetext import safe_repr
from ..errors import InvalidOptionError
from ..frames.waits import pause_kind, policy_paused
from ..secrets import quoted
from ..store.vocab import (
    RUN_CHECKPOINT,
    RUN_INTERRUPT,
    RUN_RESUME,
    TOOL_APPROVAL_PENDING,
    TOOL_APPROVED,
    TOOL_REJECTED_GOVERNANCE,
)
from ._need import need
from ._safe import categories, esc_all, label_ticks, short
from ._theme import PALETTE, color_map, new_figure

__all__ = ["episode_timeline", "describe_payload", "MARK_ROWS"]

_APPROVALS = {
    TOOL_APPROVAL_PENDING: ("approval pending", "diamond-open"),
    TOOL_APPROVED: ("approved", "diamond"),
    TOOL_REJECTED_GOVERNANCE: ("rejected", "x"),
}
_PAUSES = {
    RUN_INTERRUPT: ("interrupt", "triangle-down"),
    RUN_CHECKPOINT: ("paused (checkpoint)", "square"),
    RUN_RESUME: ("resumed", "triangle-up"),
}
# The rows of the marks, as categories and ticks: in italics, which no phase can be (a phase's category and tick are
# escaped text, so a raw "<" never starts one), so a phase named "approvals" or "pauses" keeps a row of its own
MARK_ROWS = {"approvals": "<i>approvals</i>", "pauses": "<i>pauses</i>"}


def describe_payload(payload: object, limit: int = 160) -> str:
    """A short one-line view of a payload, not escaped: plotly renders HTML in hover text, so pass it through ``esc``."""
    if not isinstance(payload, dict):
        return ""
    shown = {k: v for k, v in payload.items() if k != "experimental"}
    try:
        text = json.dumps(shown, default=str, ensure_ascii=False)
    except (RecursionError, ValueError, TypeError):  # nested deeper than the encoder goes: a bounded repr instead
        text = safe_repr(shown, limit + 1)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _one_episode(events: pd.DataFrame, episode_id: str | None) -> tuple[pd.DataFrame, str]:
    need(
        events, ("episode_id", "seq", "timestamp", "phase", "event_name", "agent_id", "payload"), "episode_timeline", "events_df"
    )
    if events.empty:
        raise InvalidOptionError(
            "events has no rows: the source given to events_df holds no run (or none of the phases asked for); "
            "load the runs dir your episodes write to, e.g. noesis_nb.events_df(RUNS_DIR)"
        )
    ids = events["episode_id"].astype(str).unique().tolist()
    if episode_id is None:
        if len(ids) != 1:
            raise InvalidOptionError(f"events holds {len(ids)} episodes; pass episode_id= one of {ids[:5]}")
        episode_id = ids[0]
    elif episode_id not in ids:
        raise InvalidOptionError(f"episode_id={quoted(episode_id)} is not in events; it has {ids[:5]}")
    one = events[events["episode_id"].astype(str) == episode_id].sort_values("seq")
    return one.reset_index(drop=True), episode_id


@keywords_named
def episode_timeline(events: pd.DataFrame, episode_id: str | None = None, *, title: str | None = None) -> go.Figure:
    """Phases as horizontal segments (each event lasts until the next one), one row per phase.

    Approval events (pending/approved/rejected) and pauses (interrupt/checkpoint/resume) are
    marked on their own rows. Hover shows the event: phase, name, time, agent, payload.
    """
    one, episode_id = _one_episode(events, episode_id)
    if not pd.api.types.is_datetime64_any_dtype(one["timestamp"]):  # datetime objects (need() refused anything else)
        one = one.assign(timestamp=pd.to_datetime(one["timestamp"], utc=True))
    ts = one["timestamp"]
    nxt = ts.shift(-1).fillna(ts.iloc[-1])
    span_ms = np.maximum((nxt - ts).dt.total_seconds().to_numpy() * 1000.0, 0.5)
    names = one["event_name"].astype(object).where(one["event_name"].notna(), "")
    # every text shown is escaped here; templates only point at customdata (escaped), never hold run text
    shown_phase, phase_axis, phase_ticks = categories(one["phase"].astype(str))
    one = one.assign(
        span_ms=span_ms,
        name=names,
        shown_phase=shown_phase,
        shown_name=esc_all(names),
        detail=esc_all(describe_payload(p) for p in one["payload"]),
        agent=esc_all(one["agent_id"].astype(object)),
    )
    fig = new_figure(title or f"Episode {short(episode_id, 60)}")
    phases = list(dict.fromkeys(one["phase"].astype(str)))
    colors = color_map(phases)
    hover = (
        "<b>%{customdata[0]}</b> %{customdata[1]}<br>%{customdata[2]}<br>agent: %{customdata[3]}"
        "<br>lasted %{x:.1f} ms<br>%{customdata[4]}<extra></extra>"
    )
    for phase, legend in zip(phases, phase_ticks):
        rows = one[one["phase"].astype(str) == phase]
        fig.add_trace(
            go.Bar(
                name=legend,
                orientation="h",
                y=rows["shown_phase"],
                base=rows["timestamp"],
                x=rows["span_ms"],
                marker=dict(color=colors[phase], line=dict(width=0)),
                hovertemplate=hover,
                customdata=_custom(rows),
            )
        )
    # a pause is read by waits.pause_kind, the rule of runs_df.waiting_s: the episode's own lines (an adapter's note
    # named run.checkpoint is none), also one named only by payload.kind; a policy's pause waited for nobody
    paused = [pause_kind(ph, n or None, p) for ph, n, p in zip(one["phase"], one["name"], one["payload"])]
    for marks, row_name in ((_APPROVALS, "approvals"), (_PAUSES, "pauses")):
        for event_name, (label, symbol) in marks.items():
            if row_name == "pauses":
                rows = one[[k == event_name and not policy_paused({"payload": p}) for k, p in zip(paused, one["payload"])]]
            else:  # the rule of tools_df and the view's badge: a tool line only (an adapter's note so named is none)
                rows = one[(one["phase"].astype(str) == "tool") & (one["name"] == event_name)]
            if rows.empty:
                continue
            fig.add_trace(
                go.Scatter(
                    name=label,
                    mode="markers",
                    x=rows["timestamp"],
                    y=[MARK_ROWS[row_name]] * len(rows),
                    legendgroup="marks",
                    legendgrouptitle_text="<i>marks</i>",
                    marker=dict(
                        symbol=symbol,
                        size=12,
                        color=PALETTE[5] if row_name == "approvals" else PALETTE[4],
                        line=dict(width=1, color="#8c8c8c"),
                    ),
                    customdata=_custom(rows),
                    hovertemplate="<b>%{customdata[1]}</b><br>%{customdata[2]}<br>%{customdata[4]}<extra></extra>",
                )
            )
    rows_shown = len(phases) + 2
    fig.update_layout(
        barmode="overlay",
        height=max(380, 24 * rows_shown + 160),
        xaxis=dict(type="date", title=dict(text="time (UTC)", standoff=18)),
        # no axis title: its ticks name the phases (the legend too), and in a 700 px notebook the title's 28 px,
        # beside the widest phase name, left the data under 70% of the figure's width
        yaxis=dict(
            autorange="reversed",
            categoryorder="array",
            categoryarray=[*phase_axis, *MARK_ROWS.values()],
        ),
        bargap=0.35,
    )
    label_ticks(fig, "y", [*phase_axis, *MARK_ROWS.values()], [*phase_ticks, *MARK_ROWS.values()])
    return fig


def _custom(rows: pd.DataFrame) -> np.ndarray:
    """Hover fields of ``rows``, all escaped: phase, event name, time, agent, payload."""
    return np.stack(
        [
            rows["shown_phase"],
            rows["shown_name"],
            rows["timestamp"].dt.strftime("%H:%M:%S.%f").astype(object),
            rows["agent"],
            rows["detail"],
        ],
        axis=1,
    )
