"""Views after a kernel restart, in JupyterLab Light and Dark: each says what is true of its run then. The episode
the kernel was running reads ``lost`` and is to be settled with ``%noesis resume`` (its badge said ``running``
and its notice said to approve a draft it never had); an ended one has nothing left to decide; the note of a cell
run again no longer says its earlier episode goes on in the background; an inbox names the command that lists its
runs again; a batch's grid says what became of its running and queued episodes and how to continue the batch.
Every text shown reads at 4.5:1 at least."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import CHROMIUM, DARK, LIGHT, contrast, notebook, open_notebook, run_all, set_theme, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

SETUP = """%load_ext noesis_nb
import asyncio, sys
import noesis_nb

async def asks(task, ctx):
    return await ctx.tool_async("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

async def slow(task, ctx):
    ctx.emit("reason", {"text": "thinking"})
    await asyncio.sleep(120)

def quick(task, ctx):
    return "done"
"""
CELLS = [
    SETUP,
    "p = noesis_nb.start('asks first', using=asks, runs_dir=RUNS)\np",
    "s = noesis_nb.start('slow one', using=slow, runs_dir=RUNS)\ns",
    "q = noesis_nb.start('quick one', using=quick, runs_dir=RUNS)\nq",
    "noesis_nb.inbox(RUNS)",
    "b = noesis_nb.batch(['slow in batch', 'queued in batch'], using=slow, runs_dir=RUNS, concurrency=1)\nb",
]
_RUN_AGAIN = """i => { const nb = window.jupyterapp.shell.currentWidget; nb.content.activeCellIndex = i;
  return window.jupyterapp.commands.execute('notebook:run-cell'); }"""


def test_views_say_what_is_true_once_the_kernel_restarted(lab: dict[str, Any], page: Any) -> None:
    runs = lab["tmp"] / "advice-runs"
    (lab["root"] / "advice.ipynb").write_text(json.dumps(notebook([f"RUNS = {str(runs)!r}", *CELLS])))
    open_notebook(page, lab["base"], lab["token"], "advice.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    views = page.locator(".noesis-nb-episode-view")
    wait(lambda: views.count() == 3, 60, "three views")
    page.locator(".noesis-nb-inbox").first.wait_for(timeout=60_000)
    asking, slow, quick = (views.nth(i) for i in range(3))
    asking.get_by_text("wants approval").first.wait_for(timeout=60_000)
    quick.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).wait_for(timeout=60_000)
    slow.locator(".nnb-badge", has_text=re.compile(r"^\s*running\s*$")).wait_for(timeout=60_000)
    grid = page.locator(".noesis-nb-batch").first
    grid.get_by_text("running 1").wait_for(timeout=60_000)
    assert not grid.locator(".nnb-stale").is_visible()  # with its kernel the grid says nothing of the sort
    page.evaluate(_RUN_AGAIN, 2)  # the cell that started "asks first" runs again: its new view names the earlier one
    again = page.locator(".jp-Cell").nth(2).locator(".noesis-nb-episode-view")
    again.get_by_text("goes on in the background").wait_for(timeout=60_000)  # with the kernel: true
    again.get_by_text("wants approval").first.wait_for(timeout=60_000)
    page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    inbox = page.locator(".noesis-nb-inbox").first
    for view in (slow, quick, again, inbox, grid):
        view.locator(".nnb-stale").wait_for(state="visible", timeout=30_000)
    # the reason boxes and tick boxes take nothing any more (what was typed there went nowhere)
    inputs = page.evaluate(
        "() => [...document.querySelectorAll('.jupyter-widgets-disconnected :is(input, textarea)')]"
        ".map(e => getComputedStyle(e).pointerEvents)"
    )
    assert inputs and set(inputs) == {"none"}, inputs
    said = inbox.locator(".nnb-stale").inner_text()
    assert "%load_ext noesis_nb" in said and "import noesis_nb" in said, said  # a new kernel needs both first
    assert "stay paused on disk" in said and "%noesis inbox --runs-dir" in said, said
    badges = slow.locator(".nnb-badge:visible")
    assert [b.strip() for b in badges.all_inner_texts()] == ["lost"], badges.all_inner_texts()
    said = slow.locator(".nnb-stale").inner_text()
    assert "lost" in said and "%noesis resume" in said and "approve" not in said, said
    said = quick.locator(".nnb-stale").inner_text()
    assert "nothing is left to decide" in said and "%noesis" not in said, said
    said = grid.locator(".nnb-stale").inner_text()
    assert "1 running in this kernel are lost" in said and "1 queued never start" in said, said
    assert "noesis_nb.batch(tasks, using=…, batch_id=" in said, said
    note = again.locator(".nnb-msg", has_text="This cell ran").inner_text()
    assert "background" not in note and "%noesis stop" not in note and "stays paused on disk" in note, note
    try:
        for theme in (LIGHT, DARK):
            set_theme(page, theme)
            result = contrast(page, ".noesis-nb-episode-view, .noesis-nb-inbox, .noesis-nb-batch")
            assert result["checked"] > 10 and not result["failures"], (theme, result["failures"])
    finally:
        set_theme(page, LIGHT)
