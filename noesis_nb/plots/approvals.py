"""Approval wait times (``tools_df`` in, figure out)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .._keywords import keywords_named
from ._need import need
from ._safe import categories, esc, esc_all, label_ticks
from ._theme import color_map, new_figure, say_empty

__all__ = ["approval_waits"]


@keywords_named
def approval_waits(tools: pd.DataFrame, by: str = "tool", *, title: str | None = None) -> go.Figure:
    """How long drafts waited for a human: one point per draft a person decided (``tools_df.wait_s``: a draft an
    approver policy decided waited for nobody and has none), per ``by`` (``tool`` or ``approver_id``).

    Colour is the outcome (approved → run, or rejected); still-pending drafts are counted in the title.
    """
    need(tools, ("wait_s", "status", by), "approval_waits", "tools_df", by=by)
    # a draft the adapter gave up (``abandoned``) waited for nobody's decision: neither approved nor rejected
    decided = tools[tools["wait_s"].notna() & (tools["status"].astype(str) != "abandoned")]
    pending = int((tools["status"].astype(str) == "pending").sum())
    fig = new_figure(title or "Approval wait times" + (f" ({pending} still pending)" if pending else ""))
    outcome = np.where(decided["status"].astype(str) == "rejected", "rejected", "approved")
    colors = color_map(["approved", "rejected"])
    shown, axis, ticks = categories(decided[by].astype(object))
    for name in ("approved", "rejected"):
        rows = decided[outcome == name]
        if rows.empty:
            continue
        fig.add_trace(
            go.Box(
                name=name,
                x=shown[outcome == name],
                y=rows["wait_s"].to_numpy(dtype=float),
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                marker=dict(color=colors[name], size=7),
                line=dict(width=1),
                fillcolor="rgba(0,0,0,0)",
                customdata=np.stack(
                    [esc_all(rows[c].astype(object)) for c in ("episode_id", "draft_id", "approver_id", "decision_reason")]
                    + [np.full(len(rows), esc(name), dtype=object), shown[outcome == name]],
                    axis=1,
                ),
                hovertemplate="%{customdata[5]}: waited %{y:.1f} s<br>%{customdata[1]}<br>by %{customdata[2]}: %{customdata[3]}"
                "<br>%{customdata[0]}<extra>%{customdata[4]}</extra>",
            )
        )
    fig.update_layout(boxmode="group")
    fig.update_yaxes(title="wait (s)", rangemode="tozero")
    fig.update_xaxes(title=esc(by), type="category")
    label_ticks(fig, "x", axis, ticks)
    if decided.empty:
        waiting = f": {pending} still pending, decide them in noesis_nb.inbox()" if pending else ""
        return say_empty(fig, f"no decided drafts in this tools frame{waiting}")
    return fig
