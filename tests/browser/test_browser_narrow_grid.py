"""The batch grid in a 560px window (the side panel closed): each cell's words and figures stay whole, and nothing runs
past the output area. At that width the grid once broke its cells wherever a column ended ("$0.000" over "28", "adapte"
over "r", "productio" over "n") and its time column hung 8-12px past the output area ("waiting" cut at the edge)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, DARK, LIGHT, notebook, open_notebook, run_all, set_theme

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
from noesis_nb.widgets.meter import CostMeter

CostMeter.ready()
CostMeter.wait()  # prices loaded before the batch: each row reads its cost

def writer(name):
    async def write(task, ctx):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=900, output_tokens=80)  # a cost in each row
        if task.endswith("production"):  # waits for a person: its time reads "waiting"
            await ctx.tool_async("notes.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
        return "written"
    return write

tasks = [f"write the release note for service-{i} to {where}" for i, where in ((3, "staging"), (11, "production"),
         (27, "production"), (35, "staging"))]
b = noesis_nb.batch(tasks, using={"careful": writer("careful"), "quick": writer("quick")}, approver="ask", root="grid-batch")
await b
b""",
]

# every word of every grid cell (the head's too) whose letters sit on more than one line: a word is a run of non-spaces,
# ending at a hyphen (a break after "service-" is a break between words); each cell past the output area's right edge;
# each cell but the task's whose text does not fit it (cut to "…"); every element of the view past the output area
_MEASURE = """() => {
  const lines = [...document.querySelectorAll('.noesis-nb-batch .nnb-grid-line')].filter(l => l.getClientRects().length);
  const broken = [], past = [], cut = [];
  for (const line of lines) {
    const area = line.closest('.jp-OutputArea-output').getBoundingClientRect();
    [...line.children].forEach((cell, i) => {
      const box = cell.getBoundingClientRect(), text = cell.textContent.trim();
      if (box.right > area.right + 0.5) past.push({text, right: Math.round(box.right), area: Math.round(area.right)});
      if (i !== 1 && cell.scrollWidth > cell.clientWidth + 1) cut.push(text);
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.textContent.matchAll(/[^\\s-]+-?/g)) {
          const range = document.createRange();
          range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
          if (tops.size > 1) broken.push({cell: text, word: m[0]});
        }
      }
    });
  }
  const outside = [...document.querySelectorAll('.noesis-nb-batch *')].filter(e => e.getClientRects().length
      && e.getBoundingClientRect().width > 0 && !e.closest('svg')
      && e.getBoundingClientRect().right > e.closest('.jp-OutputArea-output').getBoundingClientRect().right + 0.5)
    .map(e => ({tag: e.tagName, cls: String(e.className).slice(0, 60), text: e.textContent.trim().slice(0, 30)}));
  const areas = [...document.querySelectorAll('.jp-OutputArea-output')].filter(a => a.querySelector('.noesis-nb-batch'))
    .filter(a => a.scrollWidth > a.clientWidth + 1).length;
  return {rows: lines.length, broken, past, cut, outside: outside.slice(0, 10), scrolled: areas,
          costs: lines.slice(1).map(l => l.children[5].textContent.trim())};
}"""


def test_the_batch_grid_keeps_words_and_figures_whole_in_a_560px_window(lab: dict[str, Any], page: Any) -> None:
    (lab["root"] / "grid560.ipynb").write_text(json.dumps(notebook(CELLS)))
    page.set_viewport_size({"width": 560, "height": 1400})
    open_notebook(page, lab["base"], lab["token"], "grid560.ipynb")
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        if (!shell.leftCollapsed) window.jupyterapp.commands.execute('application:toggle-left-area'); }""")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    batch = page.locator(".noesis-nb-batch")
    batch.locator(".nnb-grid-line").nth(8).wait_for(timeout=30_000)  # the head and the 8 episodes
    batch.locator(".nnb-ib-row").nth(3).wait_for(timeout=30_000)  # the 4 drafts of the production tasks
    page.wait_for_function(  # every row priced and its time said ("waiting" for the paused ones)
        """() => { const l = [...document.querySelectorAll('.noesis-nb-batch .nnb-grid-line')].slice(1);
                   return l.length === 8 && l.every(x => x.children[5].textContent.includes('$'))
                          && l.filter(x => x.children[6].textContent.trim() === 'waiting').length === 4; }""",
        timeout=30_000,
    )
    problems = []  # all said at once: each is its own defect
    for theme in (LIGHT, DARK):
        set_theme(page, theme)
        got = page.evaluate(_MEASURE)
        assert got["rows"] == 9 and len(got["costs"]) == 8, got
        if got["broken"]:
            problems.append(f"{theme}: words or figures broken over two lines: {got['broken'][:8]}")
        if got["past"] or got["outside"] or got["scrolled"]:
            problems.append(f"{theme}: past the output area: cells {got['past'][:6]}; elements {got['outside'][:6]}")
        if got["cut"]:
            problems.append(f"{theme}: cells cut short: {got['cut'][:8]}")
    assert problems == [], "\n".join(problems)
