"""A neutral look that reads in every JupyterLab theme and in static HTML.

A figure carries its colours inside it: plotly's JupyterLab renderer applies no theme (its
figures cannot follow ``--jp-…`` variables), so no single text colour is readable on both a
light and a dark page. Figures therefore bring their own light paper — dark text on it passes
WCAG AA (≥ 4.5:1) whatever the notebook's theme — with a colour-blind-safe palette whose
every colour holds 3:1 against that paper, and quiet grid lines. Applied per figure: no global ``pio.templates.default`` or
renderer change.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

__all__ = [
    "PALETTE",
    "GREY",
    "TEXT",
    "PAPER",
    "style",
    "color_map",
    "new_figure",
    "money_axis",
    "seconds_axis",
    "say_empty",
]

# every colour ≥ 3:1 against PAPER (WCAG 1.4.11, graphics: Okabe–Ito's yellow was 1.3:1, its orange 2.2:1, its sky
# blue 2.3:1), and any two apart by ≥ 15 ΔE (CIELAB) as seen with deuteranopia, protanopia or tritanopia (Okabe–Ito's
# closest two under deuteranopia: 7); the first four the most apart. docs/analysis.md, tests/plots/test_palette_contrast.py
PALETTE = ["#0078B4", "#B48700", "#F04B87", "#78874B", "#8778F0", "#962D00", "#960F78", "#784B4B"]
GREY = "rgba(100,100,100,0.25)"
TEXT = "#24292f"  # 14.7:1 on the paper
PAPER = "#fdfdfd"

_LAYOUT: dict[str, Any] = dict(
    paper_bgcolor=PAPER,
    plot_bgcolor=PAPER,
    font=dict(color=TEXT, family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif", size=12),
    colorway=PALETTE,
    hoverlabel=dict(bgcolor="rgba(250,250,250,0.97)", font=dict(color="#1a1a1a"), bordercolor="#6e7781"),
    # under the plot, in rows, from the left: beside it a legend takes half a narrow figure (a notebook at 800 px)
    # from the data; at the figure's foot (the container's) it never meets the x axis' title or ticks
    legend=dict(bgcolor="rgba(0,0,0,0)", orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
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


def money_axis(values: Any) -> dict[str, Any]:
    """Axis settings that read money as dollars with as many decimals as its size needs (``$0.0004``, never ``200μ``)."""
    import math

    finite = []
    for value in values:
        try:
            number = abs(float(value))
        except (TypeError, ValueError):  # None, pd.NA
            continue
        if math.isfinite(number) and number > 0:
            finite.append(number)
    top = max(finite, default=1.0)
    decimals = 2 if top >= 1 else min(8, 2 - math.floor(math.log10(top)) + 1)
    return dict(tickprefix="$", tickformat=f",.{decimals}~f", exponentformat="none")


def seconds_axis(values: Any) -> dict[str, Any]:
    """Axis settings that read durations as seconds with the decimals their size needs (``0.0004 s``, never ``400μ``)."""
    axis = money_axis(values)
    return dict(ticksuffix=" s", tickformat=axis["tickformat"], exponentformat="none")


def say_empty(fig: go.Figure, text: str) -> go.Figure:
    """``fig`` with nothing to draw, saying so in its middle with what to do (a blank grid says neither)."""
    text = text.replace(": ", ":<br>", 1)  # two lines: one long line runs past a narrow figure's edges
    fig.add_annotation(text=text, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False, font=dict(color=TEXT, size=13))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


def color_map(keys: list[Any]) -> dict[Any, str]:
    """Stable colours for categories (in first-seen order)."""
    return {key: PALETTE[i % len(PALETTE)] for i, key in enumerate(dict.fromkeys(keys))}
