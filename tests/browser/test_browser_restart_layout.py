"""An episode view after a kernel restart, in JupyterLab Light and Dark: its step rows keep their columns.

On a restart ipywidgets marks every widget ``jupyter-widgets-disconnected`` and draws a red icon before each
(a ``::before``). The view says it lost its kernel in its own notice, so those icons stay out of it; and the
step list's ▸ toggles, taken out of the two-column grid, once let each step's line slide into the toggle's
24px column: a model's name drawn one letter per line, times over the kind of the step beside them.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from .lab import CHROMIUM, DARK, LIGHT, notebook, open_notebook, run_all, set_theme

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import noesis_nb

async def write_note(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1208, output_tokens=9)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1208, output_tokens=17)
    return "noted"
""",
    "handle = noesis_nb.start('Write the release notes', using=write_note, runs_dir=RUNS)\nhandle",
]

# per step row of the view: the boxes of its time, kind and each name (<b>), and how many lines each takes
_ROWS = """v => [...v.querySelectorAll('.nnb-steps .nnb-sum')].map(s => {
  const box = e => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height,
            lines: e.getClientRects().length, line: parseFloat(getComputedStyle(e).lineHeight),
            text: e.textContent.trim()}; };
  return {time: box(s.querySelector('.nnb-t')), kind: box(s.querySelector('.nnb-k')),
          names: [...s.querySelectorAll('.nnb-line b')].map(box), row: box(s)}; })"""

# every element of the view (itself included) that ipywidgets marked disconnected, with what its ::before draws
_ICONS = """v => [v, ...v.querySelectorAll('*')].filter(e => e.classList.contains('jupyter-widgets-disconnected'))
  .map(e => { const s = getComputedStyle(e, '::before');
    return {cls: e.className, content: s.content, display: s.display, width: parseFloat(s.width) || 0}; })"""


def _one_line(box: dict[str, Any]) -> bool:
    return box["height"] <= box["line"] * 1.5


def _check(view: Any, theme: str) -> None:
    rows = view.evaluate(_ROWS)
    names = [n for r in rows for n in r["names"]]
    assert any(n["text"] == "gpt-4o-mini" for n in names), (theme, rows)
    for row in rows:
        time, kind = row["time"], row["kind"]
        assert _one_line(time) and _one_line(kind), (theme, row)
        assert time["right"] <= kind["left"], (theme, "the time runs over the kind", row)
        assert kind["width"] >= 40, (theme, "the kind squeezed", row)
        for name in row["names"]:
            chars = len(name["text"])
            assert _one_line(name) and name["width"] >= 4 * min(chars, 8), (theme, "a name squeezed", row)
    tops = sorted((r["row"]["top"], r["row"]["bottom"]) for r in rows)
    assert all(a[1] <= b[0] + 1 for a, b in zip(tops, tops[1:])), (theme, "step rows overlap", tops)
    icons = view.evaluate(_ICONS)
    assert len(icons) > 5, (theme, icons)  # the restart marked the view's widgets: the case this test is about
    shown = [i for i in icons if i["display"] != "none" and i["content"] not in ("none", "normal", '""')]
    assert not shown, (theme, shown[:5])


def test_step_rows_keep_their_columns_after_a_kernel_restart(lab: dict[str, Any], page: Any) -> None:
    runs = lab["tmp"] / "restart-runs"
    (lab["root"] / "restart.ipynb").write_text(json.dumps(notebook([f"RUNS = {str(runs)!r}", *CELLS])))
    open_notebook(page, lab["base"], lab["token"], "restart.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    view = page.locator(".noesis-nb-episode-view").first
    view.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).wait_for(timeout=60_000)
    view.locator(".nnb-sum", has_text="gpt-4o-mini").first.wait_for(timeout=30_000)
    page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    view.locator(".nnb-stale").wait_for(state="visible", timeout=30_000)
    try:
        for theme in (LIGHT, DARK):
            set_theme(page, theme)
            _check(view, theme)
    finally:
        set_theme(page, LIGHT)


SAVED = [
    *CELLS[:1],
    "handle = noesis_nb.start('Write the release notes', using=write_note, runs_dir=RUNS)\nawait handle.wait()\n"
    "noesis_nb.show(handle.episode_id, runs_dir=RUNS)",
    "b = noesis_nb.batch(['refund request', 'login fails'], using=write_note, root=RUNS, batch_id='saved')\nawait b\nb",
]

# per saved step (a <details>): the height of its summary and of the step's line inside it
_SUMMARIES = """() => [...document.querySelectorAll('details.nnb-step>summary')].map(s => ({
  text: s.textContent.trim().slice(0, 40), summary: s.getBoundingClientRect().height,
  line: s.querySelector('.nnb-sum').getBoundingClientRect().height}))"""

# the saved batch grid: each column's heading and how its cells align
_ALIGNS = """() => { const t = document.querySelector('table.nnb-grid-table');
  return [...t.querySelectorAll('th')].map((h, i) => ({head: h.textContent.trim(),
    cells: [...t.querySelectorAll(`tbody td:nth-child(${i + 1})`)].map(c => getComputedStyle(c).textAlign)})); }"""


def test_a_saved_view_reads_in_a_notebooks_html(page: Any, tmp_path: Path) -> None:
    """A saved notebook's views as a page of HTML (nbconvert's, with JupyterLab's own styles; nbviewer's alike; the
    widgets' state not saved, JupyterLab's default): each step's ▸ on the step's line, not alone on a line above it;
    the batch grid's words from the left (the notebook's table style puts every cell on the right)."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.from_dict(notebook([f"RUNS = {str(tmp_path / 'runs')!r}", *SAVED]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOESIS_")}
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=env)
    nb.metadata.pop("widgets", None)
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    page.set_content(body)
    summaries = page.evaluate(_SUMMARIES)
    assert len(summaries) >= 3 and any("gpt-4o-mini" in s["text"] for s in summaries), summaries
    assert all(s["summary"] <= s["line"] + 2 for s in summaries), summaries
    aligns = {c["head"]: set(c["cells"]) for c in page.evaluate(_ALIGNS)}
    assert all(aligns[h] == {"left"} for h in ("task", "adapter", "status", "score")), aligns
    assert all(aligns[h] == {"right"} for h in ("#", "cost", "time")), aligns
