"""The plots in a real JupyterLab at the page's width and in a narrow notebook (700px): every title, legend entry
and tick label inside its figure (plotly centres a title over its plot and cuts off what does not fit)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, contrast, notebook, open_notebook, run_all

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
from noesis_nb import plots
from noesis_nb.scripted import ScriptedModel

def make_agent(i):
    async def agent(task, ctx):
        llm = ScriptedModel([f"step {k}" for k in range(3)], model=["gpt-4o-mini", "gpt-4o"][i % 2], provider="openai")
        for k in range(2 + i % 2):
            llm.complete(f"{task}: step {k}", ctx)
        await ctx.tool_async("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
        return "done"
    agent.__name__ = f"agent_{i % 2}"
    return agent

ids = [noesis_nb.solve(f"task {i}", using=make_agent(i), runs_dir="plot-runs", approver="auto") for i in range(4)]
events, usage = noesis_nb.events_df("plot-runs"), noesis_nb.usage_df("plot-runs")""",
    "plots.compare_episodes(events, ids[0], ids[1], usage)",
    "plots.episode_timeline(events, ids[1])",
    'plots.cost_over_time(usage, by="model")',
]

# every text of a figure that is not wholly inside the figure's box (px past its left or right edge)
_CUT = """() => [...document.querySelectorAll('.js-plotly-plot .main-svg text')]
  .filter(t => t.textContent.trim() && t.getClientRects().length).map(t => {
    const box = t.closest('.svg-container').getBoundingClientRect(), r = t.getBoundingClientRect();
    return {text: t.textContent.slice(0, 60), left: Math.round(box.left - r.left), right: Math.round(r.right - box.right)};
  }).filter(o => o.left > 1 || o.right > 1)"""

# per figure with a legend: the legend's box, the plot area's, the figure's, and every x axis text's (titles, ticks)
_LEGENDS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(fig => {
    const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
    const legend = fig.querySelector('g.legend');
    if (!legend || !legend.getClientRects().length) return null;
    const areas = [...fig.querySelectorAll('.nsewdrag')].map(box);
    const texts = [...fig.querySelectorAll('.g-xtitle text, .g-x2title text, .g-x3title text, .xtick text, .x2tick text,'
      + ' .x3tick text')].filter(t => t.textContent.trim() && t.getClientRects().length)
      .map(t => ({text: t.textContent.slice(0, 40), ...box(t)}));
    return {legend: box(legend), figure: box(fig.querySelector('.svg-container')), areas, texts};
  }).filter(Boolean)"""


def _meets(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["l"] < b["r"] and b["l"] < a["r"] and a["t"] < b["b"] and b["t"] < a["b"]


def test_plot_texts_stay_inside_their_figures_at_700_and_1280px(lab: dict[str, Any], page: Any) -> None:
    (lab["root"] / "plots.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "plots.ipynb")
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        if (!shell.leftCollapsed) window.jupyterapp.commands.execute('application:toggle-left-area'); }""")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=60_000)
    page.locator(".js-plotly-plot .main-svg").nth(3 * 2).wait_for(state="attached", timeout=30_000)
    for width in (1280, 700):
        page.set_viewport_size({"width": width, "height": 1400})
        page.wait_for_timeout(1500)  # plotly redraws a responsive figure after the resize
        figures = page.locator(".js-plotly-plot").count()
        assert figures == 3, f"{width}px: {figures} figures"
        cut = page.evaluate(_CUT)
        assert cut == [], f"{width}px wide: plot texts cut off at the figure's edge: {cut}"
        legends = page.evaluate(_LEGENDS)
        assert len(legends) == 3, f"{width}px: {len(legends)} legends"
        for found in legends:  # under the plots, clear of the x axes' titles and ticks; the data keeps the width
            legend, figure = found["legend"], found["figure"]
            assert all(legend["t"] >= area["b"] for area in found["areas"]), f"{width}px: legend beside a plot: {found}"
            assert not [t["text"] for t in found["texts"] if _meets(legend, t)], f"{width}px: legend over an axis: {found}"
            widest = max(area["r"] - area["l"] for area in found["areas"])
            assert widest >= 0.7 * (figure["r"] - figure["l"]), f"{width}px: the plot is {widest:.0f} px of {found}"
    readable = contrast(page, ".jp-RenderedPlotly")  # the comparison's second title line too
    assert readable["checked"] > 30 and readable["failures"] == [], readable["failures"]
