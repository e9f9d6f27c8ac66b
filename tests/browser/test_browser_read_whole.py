"""What a reviewer approves reads whole in JupyterLab, and labels and figures never break one letter per line.

- An inbox row cut its command to one line ending in "…" (the rest only in a ``title`` no keyboard reaches): its
  ``what … asked, in full`` disclosure is reached by Tab, opened by Enter, and shows the whole command in the row.
- The "Approve 1 draft?" question listed each detail's label (``argv``, ``effect``) one letter per line: the
  question's ``overflow-wrap:anywhere`` shrank the labels' column. Every label stays on one line.
- A replay comparison's figures broke between number and unit ("0.03" over "s") in an 800px window.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, button, cell, notebook, open_notebook, run_all

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

TARGET = "/home/ana/IMPORTANT-DELETE-TARGET"
CELLS = [
    f"""%load_ext noesis_nb
import sys
import noesis_nb
noesis_nb.ns.set(runs_dir="read-whole-runs")
CODE = ("import pathlib, shutil, sys; src = pathlib.Path(sys.argv[1]); dst = pathlib.Path(sys.argv[2]); "
        "shutil.rmtree(dst, ignore_errors=True)")

async def syncer(task, ctx):
    argv = [sys.executable, "-c", CODE, "/srv/build", {TARGET!r}]
    return await ctx.tool_async("fs.sync", {{"argv": argv}}, effect="write", risk="high")

ep = await noesis_nb.solve_async("sync the build", using=syncer, approver="ask")""",
    "%noesis inbox",
    """def lister(task, ctx):
    ctx.emit("reason", {"text": "listing"})
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200, output_tokens=30)
    return "listed"

a = noesis_nb.solve("list the tables", using=lister)
b = noesis_nb.solve("list the tables again", using=lister)
noesis_nb.replay(a, compare=b)""",
]

# every element of ``selector`` whose text takes more than one line (by the tops of its text's line boxes)
_BROKEN = """(selector) => [...document.querySelectorAll(selector)].filter(e => e.getClientRects().length).map(e => {
    const range = document.createRange(); range.selectNodeContents(e);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
    return {text: e.textContent.trim(), lines: tops.size, width: Math.round(e.getBoundingClientRect().width)};
  }).filter(o => o.text && o.lines > 1)"""

# the focused element and whether it sits in the inbox
_FOCUS = """() => { const a = document.activeElement;
  return {tag: a ? a.tagName : null, text: a ? a.textContent.trim().slice(0, 60) : '',
          open: !!(a && a.parentElement && a.parentElement.open)}; }"""


@pytest.fixture(scope="module")
def ran(lab: dict[str, Any]) -> str:
    (lab["root"] / "read-whole.ipynb").write_text(json.dumps(notebook(CELLS)))
    return "read-whole.ipynb"


def _open(lab: dict[str, Any], page: Any, name: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1400})
    open_notebook(page, lab["base"], lab["token"], name)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=120_000)


@pytest.mark.parametrize("width", [1280, 800])
def test_an_inbox_row_opens_its_whole_command_from_the_keyboard(lab: dict[str, Any], page: Any, ran: str, width: int) -> None:
    _open(lab, page, ran, width)
    inbox = cell(page, 1).locator(".jp-Cell-outputArea").first
    row = inbox.locator(".nnb-ib-row").first
    row.wait_for(timeout=60_000)
    assert TARGET not in row.inner_text()  # the row's line is cut: the case this is about
    row.locator("input[type=checkbox]").focus()
    for _ in range(4):  # from the row's box, Tab on until the disclosure (the text after the box)
        page.keyboard.press("Tab")
        if page.evaluate(_FOCUS)["tag"] == "SUMMARY":
            break
    focus = page.evaluate(_FOCUS)
    assert focus["tag"] == "SUMMARY" and focus["text"] == "what fs.sync asked, in full", focus
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert page.evaluate(_FOCUS)["open"], page.evaluate(_FOCUS)
    assert not page.locator(".jp-Notebook.jp-mod-editMode").count()  # Enter opened it, not the cell's editor
    shown = row.locator("dd", has_text=TARGET).first
    box, body = shown.bounding_box(), row.bounding_box()
    assert box is not None and body is not None and box["height"] > 0
    assert box["x"] + box["width"] <= body["x"] + body["width"] + 1  # in the row, not cut at its edge
    assert TARGET in row.inner_text()


@pytest.mark.parametrize("width", [1280, 800])
def test_the_question_breaks_no_label(lab: dict[str, Any], page: Any, ran: str, width: int) -> None:
    _open(lab, page, ran, width)
    inbox = cell(page, 1).locator(".jp-Cell-outputArea").first
    inbox.locator(".nnb-ib-row input[type=checkbox]").first.check()
    button(inbox, "Approve selected…").first.click()
    inbox.locator(".nnb-ib-asked dt").first.wait_for(timeout=30_000)
    labels = page.evaluate(_BROKEN, ".nnb-ib-asked dt")
    assert not labels, f"labels of the question broken over lines: {labels}"
    assert TARGET in inbox.locator(".nnb-ib-asked").inner_text()


@pytest.mark.parametrize("width", [1280, 800])
def test_the_comparison_breaks_no_figure(lab: dict[str, Any], page: Any, ran: str, width: int) -> None:
    _open(lab, page, ran, width)
    compare = cell(page, 2).locator(".noesis-nb-compare table").first
    compare.wait_for(timeout=60_000)
    compare.scroll_into_view_if_needed()
    figures = page.evaluate(_BROKEN, ".noesis-nb-compare table td:not(:first-child)")
    assert not figures, f"figures of the comparison broken over lines: {figures}"
