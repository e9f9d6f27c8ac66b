"""The views in a narrow notebook (a 700px window, a side panel): nothing runs past its view, and text that
wraps wraps as text (no 28px widget line under 13px words, which leaves a blank line between the halves of a
sentence), and no button's label is cut short. One notebook: a decided card with a reason (its head line wraps) and a
small batch paused for a person (its Cancel button, its inbox, its grid), and a replay comparison.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, button, notebook, open_notebook, run_all

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
noesis_nb.ns.set(runs_dir="narrow-runs")""",
    """async def deployer(task, ctx):
    return await ctx.tool_async("deploy.release", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

ep = noesis_nb.solve("deploy release 1.2", using=deployer, approver="ask")
noesis_nb.show(ep)""",
    """noesis_nb.approve_draft(ep, approver_id="release-manager", reason="checked the diff and the changelog with the team")
noesis_nb.resume_run(ep)""",
    "noesis_nb.replay(ep, compare=ep)  # a comparison: its step slider spans the view",
    """from noesis_nb.scripted import ScriptedModel

async def label(task, ctx):
    ScriptedModel(["Label chosen."]).complete(task, ctx)  # tokens and cost: the header's figures line is a long one
    if "ticket 0" in task:  # one draft waits in the inbox: the batch stays paused, its Cancel button shown
        await ctx.tool_async("notes.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return {"label": task.split()[-1]}

tasks = [f"classify ticket {i}: the export is slow again" for i in range(4)]
b = noesis_nb.batch(tasks, using=label, approver="ask", root="narrow-batch")
await b
b""",
]

# every element of a view that holds words and wraps them: its line box against its font, and how many lines it has
_GAPPED = """() => [...document.querySelectorAll('.noesis-nb-view *')].filter(e => {
    if (!e.getClientRects().length || e.closest('button, svg')) return false;
    if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) return false;
    const s = getComputedStyle(e), line = parseFloat(s.lineHeight), font = parseFloat(s.fontSize);
    const range = document.createRange(); range.selectNodeContents(e);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    return tops.size > 1 && line > 1.8 * font;
  }).map(e => ({text: e.textContent.trim().slice(0, 60), line: getComputedStyle(e).lineHeight,
                font: getComputedStyle(e).fontSize}))"""

# every visible element of a view whose right edge runs past the view's (its text is cut off or hangs outside)
_PAST = """() => [...document.querySelectorAll('.noesis-nb-view *')].filter(e => e.getClientRects().length
    && !e.closest('svg') && e.getBoundingClientRect().width > 0
    && e.getBoundingClientRect().right > e.closest('.noesis-nb-view').getBoundingClientRect().right + 1)
  .map(e => ({tag: e.tagName, cls: e.className, text: e.textContent.trim().slice(0, 40),
              past: Math.round(e.getBoundingClientRect().right - e.closest('.noesis-nb-view').getBoundingClientRect().right)}))"""

# every visible button of a view whose label does not fit it (ipywidgets cuts it to "…")
_CUT = """() => [...document.querySelectorAll('.noesis-nb-view button')]
  .filter(b => b.getClientRects().length && b.scrollWidth > b.clientWidth + 1).map(b => b.textContent.trim())"""

# an inbox row whose buttons and reason sit beside what it asks and leave that text under half the row (an episode
# id broken in two, a task over four lines): the buttons belong under the text then
_SQUEEZED = """() => [...document.querySelectorAll('.nnb-ib-row')].filter(r => r.getClientRects().length).map(r => {
    const body = r.querySelector('.widget-html').getBoundingClientRect(), row = r.getBoundingClientRect();
    const controls = r.querySelector('button').getBoundingClientRect();
    return {text: r.textContent.trim().slice(0, 40), body: Math.round(body.width), row: Math.round(row.width),
            beside: controls.top < body.bottom - 2};
  }).filter(o => o.beside && o.body < o.row / 2)"""

# the share of each batch grid row that its task column gets (the other columns could take so much that a short task
# wraps over five lines)
_TASK_SHARE = """() => [...document.querySelectorAll('.nnb-grid-line:not(.nnb-grid-head)')].filter(l => l.getClientRects().length)
  .map(l => Math.round(100 * l.children[1].getBoundingClientRect().width / l.getBoundingClientRect().width) / 100)"""


def _run_narrow(lab: dict[str, Any], page: Any, name: str, cells: list[str]) -> None:
    """Open ``cells`` as notebook ``name`` in a 700px window with the side panel closed, and run them all."""
    (lab["root"] / name).write_text(json.dumps(notebook(cells)))
    page.set_viewport_size({"width": 700, "height": 1400})
    open_notebook(page, lab["base"], lab["token"], name)
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        if (!shell.leftCollapsed) window.jupyterapp.commands.execute('application:toggle-left-area'); }""")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=60_000)


def test_views_fit_a_narrow_notebook_and_wrapped_lines_have_no_gaps(lab: dict[str, Any], page: Any) -> None:
    _run_narrow(lab, page, "narrow.ipynb", CELLS)
    page.locator(".noesis-nb-episode-view .nnb-decided").first.wait_for(timeout=30_000)
    page.locator(".noesis-nb-batch .nnb-grid-line").nth(4).wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    page.locator(".noesis-nb-batch .nnb-ib-row").first.wait_for(timeout=30_000)
    gapped, past, cut = page.evaluate(_GAPPED), page.evaluate(_PAST), page.evaluate(_CUT)
    assert cut == [], f"700px wide: button labels cut short: {cut}"
    tasks = page.evaluate(_TASK_SHARE)
    assert tasks and min(tasks) >= 0.25, f"700px wide: the batch grid's task column gets {tasks} of its row"
    squeezed = page.evaluate(_SQUEEZED)
    assert squeezed == [], f"700px wide: inbox rows whose text gets under half the row beside their buttons: {squeezed}"
    assert gapped == [], f"700px wide: wrapped text with a blank line between its lines: {gapped}"
    assert past == [], f"700px wide: parts of a view past its right edge: {past[:8]}"


TIDY_CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
noesis_nb.ns.set(runs_dir="tidy-runs")""",
    """def writer(task):
    return "written"

task = ("summarise the quarterly export incidents for the platform team, with the slow queries, the retries "
        "and the customers who noticed them first")
ep = noesis_nb.solve(task, using=writer)  # its opening step's line (time, task, plan) wraps at 700px
noesis_nb.show(ep)""",
    "noesis_nb.replay(ep, compare=ep)  # its titles, its clocks and its table of aligned steps: small text too",
    """async def noter(task, ctx):
    await ctx.tool_async("notes.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return "noted"

b = noesis_nb.batch([f"ticket {i}" for i in range(4)], using=noter, approver="ask", root="tidy-batch")
b""",
]

# a step's summary line that wraps: where its second line box starts against where the text after its time starts
# (a hanging indent keeps them level; without one the text runs on under the time)
_HANGING = """() => [...document.querySelectorAll('.noesis-nb-episode-view .nnb-sum')].filter(s => s.getClientRects().length)
  .map(s => { const time = s.querySelector('.nnb-t'), kind = s.querySelector('.nnb-k');
    const range = document.createRange(); range.setStartAfter(time); range.setEndAfter(s.lastChild);
    const boxes = [...range.getClientRects()].filter(r => r.width > 0);
    const top = Math.min(...boxes.map(r => r.top));
    const later = boxes.filter(r => r.top > top + 4);
    return {text: s.textContent.trim().slice(0, 50), start: Math.round(kind.getBoundingClientRect().left),
            wrapped: later.length > 0, next: later.length ? Math.round(Math.min(...later.map(r => r.left))) : null}; })"""

# every text of a view against the line its block gives it: a widget's HTML inherits ipywidgets' 28px line, loose
# under 12-13px words (a message, a title, a small note), even when it does not wrap
_LOOSE = """() => [...document.querySelectorAll('.noesis-nb-view *')].filter(e => {
    if (!e.getClientRects().length || e.closest('button, svg, select, input, .jupyter-button, .widget-readout, .widget-label'))
      return false;  // controls and their labels: one line, level with the control beside them
    return [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
  }).map(e => { let block = e;
    while (block.parentElement && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
    return {text: e.textContent.trim().slice(0, 50), line: parseFloat(getComputedStyle(block).lineHeight),
            font: parseFloat(getComputedStyle(e).fontSize)}; })
  .filter(o => o.line > 1.8 * o.font)"""

# a status pill of the batch grid against its own text: it hugs the text (plus its padding and border)
_PILLS = """() => [...document.querySelectorAll('.nnb-grid-line .nnb-badge')].filter(b => b.getClientRects().length)
  .map(b => { const range = document.createRange(); range.selectNodeContents(b); const s = getComputedStyle(b);
    const room = parseFloat(s.paddingLeft) + parseFloat(s.paddingRight) + parseFloat(s.borderLeftWidth)
                 + parseFloat(s.borderRightWidth);
    return {text: b.textContent.trim(), width: Math.round(b.getBoundingClientRect().width),
            hug: Math.round(range.getBoundingClientRect().width + room)}; })"""


# a raw event's row (the view's "raw events" timeline) that wraps: the same measure, after its time
_RAW_HANGING = """() => [...document.querySelectorAll('.noesis-nb-episode-view .nnb-r > summary')]
  .filter(s => s.getClientRects().length).map(s => { const rest = s.querySelector('.nnb-line');
    const range = document.createRange();
    if (rest) range.selectNodeContents(rest);
    else { range.setStartAfter(s.querySelector('.nnb-t')); range.setEndAfter(s.lastChild); }
    const boxes = [...range.getClientRects()].filter(r => r.width > 0);
    const top = Math.min(...boxes.map(r => r.top));
    const later = boxes.filter(r => r.top > top + 4);
    return {text: s.textContent.trim().slice(0, 50), start: Math.round(boxes[0].left),
            time: Math.round(s.querySelector('.nnb-t').getBoundingClientRect().right),
            wrapped: later.length > 0, next: later.length ? Math.round(Math.min(...later.map(r => r.left))) : null}; })"""

# a widget of a view with nothing in it (a message not said, the stylesheet's widget, an empty list) that still takes
# room: its margins leave blank space between the texts around it
_EMPTY_ROOM = """() => [...document.querySelectorAll('.noesis-nb-view .widget-html, .noesis-nb-view .widget-box')]
  .filter(e => e.getClientRects().length && !e.innerText.trim() && !e.querySelector('button, input, select, svg, canvas, img'))
  .map(e => { const s = getComputedStyle(e), r = e.getBoundingClientRect();
    return {html: (e.querySelector('.widget-html-content') || e).innerHTML.slice(0, 120),
            room: Math.round(r.height + parseFloat(s.marginTop) + parseFloat(s.marginBottom))}; })
  .filter(o => o.room > 0)"""


def test_wrapped_steps_hang_pills_hug_their_text_and_messages_have_tight_lines(lab: dict[str, Any], page: Any) -> None:
    """At 700px: a step's wrapped summary, and a raw event's row under it, keep a hanging indent after their time;
    the batch grid's status pills are as wide as their words; the inbox's messages ("rejected 4 drafts", "decided,
    newest first") and every other text of the views sit on lines as tall as their font, not ipywidgets' 28px, and
    no empty widget leaves a gap between them."""
    _run_narrow(lab, page, "tidy.ipynb", TIDY_CELLS)
    episode = page.locator(".noesis-nb-episode-view").first
    episode.locator(
        "button", has_text="raw events"
    ).first.click()  # the timeline of raw events: the opening event's task wraps at 700px
    episode.locator(".nnb-r").first.wait_for(timeout=30_000)
    batch = page.locator(".noesis-nb-batch")
    batch.locator(".nnb-ib-row").nth(3).wait_for(timeout=30_000)
    button(batch, "Select all shown").click()
    page.wait_for_function(  # ticked in the page before the rejection asks which rows
        "() => document.querySelectorAll('.noesis-nb-batch .nnb-ib-row input[type=checkbox]:checked').length === 4",
        timeout=30_000,
    )
    button(batch, "Reject selected…").click()
    button(batch, "Confirm: reject 4").click()  # its label names the verb and the count once it asks
    batch.get_by_text("rejected 4 drafts").wait_for(timeout=30_000)
    batch.get_by_text("decided, newest first").wait_for(timeout=30_000)
    batch.locator(".nnb-grid-line .nnb-badge", has_text="rejected").nth(3).wait_for(timeout=30_000)
    page.wait_for_timeout(500)

    sums, pills, loose = page.evaluate(_HANGING), page.evaluate(_PILLS), page.evaluate(_LOOSE)
    raw, empty = page.evaluate(_RAW_HANGING), page.evaluate(_EMPTY_ROOM)
    wrapped = [s for s in sums if s["wrapped"]]
    raw_wrapped = [r for r in raw if r["wrapped"]]
    assert wrapped, f"no step summary wraps at 700px: {sums}"
    assert raw_wrapped, f"no raw event row wraps at 700px: {raw}"
    assert len(pills) >= 4, pills
    problems = []  # all said at once: each is its own defect
    if any(abs(s["next"] - s["start"]) > 1 for s in wrapped):
        problems.append(f"wrapped step lines without a hanging indent: {wrapped}")
    if any(abs(r["next"] - r["start"]) > 1 or r["start"] <= r["time"] for r in raw_wrapped):
        problems.append(f"wrapped raw event rows without a hanging indent: {raw_wrapped}")
    if empty:
        problems.append(f"empty widgets taking room: {empty[:12]}")
    if any(p["width"] > p["hug"] + 2 for p in pills):
        problems.append(f"status pills wider than their text: {pills}")
    if loose:
        problems.append(f"texts on lines over 1.8× their font: {loose[:12]}")
    assert problems == [], "\n".join(problems)


RERUN_CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb""",
    """async def deployer(task, ctx):
    return await ctx.tool_async("deploy.release", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

h = noesis_nb.start("deploy release 1.2", using=deployer, approver="ask",
                    runs_dir="runs-of-the-quarterly-release-rehearsal-notebook")
h""",
]


def test_the_note_of_a_cell_run_again_wraps_its_commands_in_a_narrow_notebook(lab: dict[str, Any], page: Any) -> None:
    """The note naming the earlier episode a cell run again left waiting holds the commands to copy (``show`` with its
    runs folder, ``%noesis stop``): in an 800px window with the file browser open they wrap inside the view, none
    cut off at its edge."""
    (lab["root"] / "rerun-narrow.ipynb").write_text(json.dumps(notebook(RERUN_CELLS)))
    page.set_viewport_size({"width": 800, "height": 1200})
    open_notebook(page, lab["base"], lab["token"], "rerun-narrow.ipynb")
    page.evaluate("""() => { const shell = window.jupyterapp.shell;
        if (shell.leftCollapsed) window.jupyterapp.commands.execute('filebrowser:activate'); }""")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=60_000)
    view = page.locator(".noesis-nb-episode-view").first
    button(view, "Approve").first.wait_for(timeout=60_000)
    page.evaluate(
        "() => { const nb = window.jupyterapp.shell.currentWidget.content; nb.activeCellIndex = 1;"
        " return window.jupyterapp.commands.execute('notebook:run-cell'); }"
    )
    note = page.locator(".noesis-nb-episode-view .nnb-msg", has_text="This cell ran again")
    note.wait_for(timeout=60_000)
    page.wait_for_timeout(300)
    assert "runs-of-the-quarterly-release-rehearsal-notebook" in note.inner_text()
    past = page.evaluate(_PAST)
    assert past == [], f"800px, file browser open: parts of the note past the view's right edge: {past[:8]}"
