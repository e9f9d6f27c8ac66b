"""A neutral look that reads in JupyterLab light and dark themes and in static HTML.

Transparent paper and plot, mid-grey text and grid lines, the Okabe–Ito colour-blind-safe
palette, and hover labels with their own light background. Applied per figure: no global
``pio.templates.default`` or renderer change.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

__all__ = ["PALETTE", "GREY", "style", "color_map", "new_figure"]

PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"]
GREY = "rgba(128,128,128,0.35)"
TEXT = "#8c8c8c"

_LAYOUT: dict[str, Any] = dict(
    paper_bgcolor="rgba(0,0,0,0)",
    plot_bgcolor="rgba(0,0,0,0)",
    font=dict(color=TEXT, family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif", size=12),
    colorway=PALETTE,
    hoverlabel=dict(bgcolor="rgba(250,250,250,0.95)", font=dict(color="#1a1a1a"), bordercolor="#8c8c8c"),
    legend=dict(bgcolor="rgba(0,0,0,0)"),
    margin=dict(l=60, r=20, t=60, b=50),
)
_AXIS: dict[str, Any] = dict(gridcolor=GREY, zerolinecolor=GREY, linecolor=GREY, tickcolor=GREY, showline=False, automargin=True)


def style(fig: go.Figure, title: str | None = None) -> go.Figure:
    """Apply the neutral look to ``fig`` (in place) and return it."""
    fig.update_layout(**_LAYOUT, template="none", title=dict(text=title) if title else None)
    fig.update_xaxes(**_AXIS)
    fig.update_yaxes(**_AXIS)
    return fig


def new_figure(title: str | None = None) -> go.Figure:
    return style(go.Figure(), title)


def color_map(keys: list[Any]) -> dict[Any, str]:
    """Stable colours for categories (in first-seen order)."""
    return {key: PALETTE[i % len(PALETTE)] for i, key in enumerate(dict.fromkeys(keys))}
