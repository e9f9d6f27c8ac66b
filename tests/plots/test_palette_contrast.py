"""Every colour a figure draws with holds 3:1 against the paper it is drawn on (WCAG 1.4.11, graphical objects): the
Okabe–Ito palette's yellow was 1.3:1 on the plots' light paper, its orange 2.2:1, its sky blue 2.3:1, and the usage
and timeline figures named those colours themselves. And the palette stays colour-blind safe: any two of its colours
differ (CIELAB ΔE) as seen with each of the three dichromacies (Machado, Oliveira and Fernandes 2009, severity 1)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import plotly.graph_objects as go

from noesis_nb.plots import _theme

PLOTS = Path(_theme.__file__).parent
HEX = re.compile(r"[\"'](#[0-9A-Fa-f]{6})[\"']")
# linear-RGB simulation matrices of the three dichromacies, severity 1.0 (Machado et al. 2009)
SEEN_WITH = {
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
    "typical vision": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
}


def _linear(colour: str) -> list[float]:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]


def _luminance(rgb: list[float]) -> float:
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def _contrast(a: str, b: str) -> float:
    x, y = sorted((_luminance(_linear(a)), _luminance(_linear(b))))
    return (y + 0.05) / (x + 0.05)


def _lab(rgb: list[float]) -> tuple[float, float, float]:
    rgb = [min(1.0, max(0.0, c)) for c in rgb]
    xyz = [
        (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047,
        0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2],
        (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883,
    ]
    f = [v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def _papers() -> set[str]:
    """The backgrounds a styled figure has: its paper and its plot area, read from a figure the module styles."""
    layout = _theme.new_figure().layout
    return {layout.paper_bgcolor, layout.plot_bgcolor}


def test_every_colour_drawn_holds_3_to_1_against_the_paper() -> None:
    papers = _papers()
    assert papers and all(p.startswith("#") for p in papers), papers
    drawn = {(path.name, c) for path in PLOTS.glob("*.py") for c in HEX.findall(path.read_text())} - {
        ("_theme.py", p) for p in papers
    }
    assert {c for _, c in drawn} >= set(_theme.PALETTE)
    low = [(where, c, paper, round(_contrast(c, paper), 2)) for where, c in drawn for paper in papers if _contrast(c, paper) < 3]
    assert not low, f"colours under 3:1 against the plots' paper: {low}"


def test_a_figure_draws_with_the_palette() -> None:
    fig = _theme.style(go.Figure(go.Bar(x=[1], y=[1])))
    assert list(fig.layout.colorway) == _theme.PALETTE


def test_the_palette_stays_apart_for_each_kind_of_colour_vision() -> None:
    closest = {}
    for vision, matrix in SEEN_WITH.items():
        seen = {}
        for colour in _theme.PALETTE:
            rgb = _linear(colour)
            seen[colour] = _lab([sum(m * c for m, c in zip(row, rgb, strict=True)) for row in matrix])
        closest[vision] = min(
            (sum((p - q) ** 2 for p, q in zip(seen[a], seen[b], strict=True)) ** 0.5, a, b)
            for a, b in itertools.combinations(_theme.PALETTE, 2)
        )
    assert all(d >= 15 for d, _, _ in closest.values()), closest
    assert len(set(_theme.PALETTE)) == len(_theme.PALETTE) >= 6
