"""A newcomer's odd sequences in a real JupyterLab: a cell run again while its episode waits for approval,
views of a rejected, a failed, a stopped run and of a draft with long arguments read in Light and Dark, and
the notebook closed and opened again while drafts wait (its views come back and their buttons still act).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, DARK, LIGHT, button, contrast, notebook, open_notebook, run_all, set_theme, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import asyncio, noesis_nb

async def tool_agent(task, ctx):
    ctx.emit("reason", {"text": "about to write"})
    return await ctx.tool_async("fs.touch", {"argv": ["touch", task.split()[-1]]}, effect="write", risk="high")

async def long_agent(task, ctx):  # a command of ~2,000 characters: it wraps inside its card
    argv = ["sh", "-c", "touch long-done", "x" * 900, "word " * 200]
    return await ctx.tool_async("shell.run", {"argv": argv}, effect="write", risk="high")

def fail_agent(task, ctx):
    raise ValueError("the model answered nonsense: " + "y" * 300)

async def slow_agent(task, ctx):
    await asyncio.sleep(120)""",
    'h = %noesis run tool_agent "write first" --runs-dir runs',
    'r = %noesis run tool_agent "write rejected" --runs-dir runs',
    'await r\nr.reject(reason="too risky: it touches production")',
    'f = %noesis run fail_agent "fail" --runs-dir runs',
    's = %noesis run slow_agent "slow" --runs-dir runs',
    "await asyncio.sleep(0.5)\ns.cancel()",
    'l = %noesis run long_agent "long" --runs-dir runs',
]
VIEW = ".noesis-nb-episode-view"


def status_of(view: Any) -> str:
    return str(view.locator(".nnb-badge").first.inner_text().strip())


def readable(page: Any, theme: str, when: str) -> None:
    result = contrast(page, VIEW)
    assert result["checked"] > 100, f"{theme}, {when}: only {result['checked']} texts found"
    assert result["failures"] == [], f"{theme}, {when}: texts below 4.5:1 — {result['failures'][:8]}"


def test_a_cell_run_again_every_ending_in_both_themes_and_a_reopened_notebook(lab: dict[str, Any], page: Any) -> None:
    root = lab["root"]
    (root / "clickpath.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "clickpath.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    views = page.locator(VIEW)
    views.nth(4).wait_for(timeout=60_000)
    wait(
        lambda: [status_of(views.nth(i)) for i in range(5)] == ["paused", "rejected", "error", "cancelled", "paused"],
        30,
        "each run's end",
    )
    first = min((root / "runs").glob("ep_*"))  # ids sort by creation: the first cell's run

    # Shift+Enter on the first cell again: a second episode; the first one's view is gone, the new one names it
    page.evaluate(
        "() => { const nb = window.jupyterapp.shell.currentWidget.content; nb.activeCellIndex = 1;"
        " return window.jupyterapp.commands.execute('notebook:run-cell'); }"
    )
    note = views.first.locator(".nnb-msg", has_text="This cell ran again")
    note.wait_for(timeout=60_000)
    assert first.name in note.inner_text() and f"%noesis stop {first.name}" in note.inner_text()
    assert first.name not in views.first.locator(".nnb-h").first.inner_text()  # the view is the new episode's

    rejected = views.nth(1)
    assert "too risky: it touches production" in rejected.inner_text()
    for theme in (LIGHT, DARK):  # a pause, a rejection with its reason, an error, a stop, long arguments, the note
        set_theme(page, theme)
        readable(page, theme, "every ending")
    long_card = views.nth(4).locator(".nnb-card")
    overflow = long_card.evaluate("c => c.scrollWidth - c.clientWidth")
    assert overflow <= 1, f"the long command runs {overflow}px past its card"

    # closed and opened again while two drafts wait: the views come back from the kernel and still act
    page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
    page.evaluate("window.jupyterapp.commands.execute('application:close-all')")
    page.wait_for_function("() => !document.querySelector('.jp-Notebook')", timeout=30_000)
    page.evaluate("window.jupyterapp.commands.execute('docmanager:open', {path: 'clickpath.ipynb'})")
    approve = button(page.locator(VIEW).nth(4), "Approve")
    approve.wait_for(timeout=60_000)
    approve.click()
    wait(lambda: (root / "long-done").exists(), 30, "the approved long command to run")
    page.locator(VIEW).nth(4).get_by_text(re.compile("approved by human")).first.wait_for(timeout=30_000)
