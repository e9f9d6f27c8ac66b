"""What a screen reader says of a view's controls, and figures that stay whole in a narrow window.

- Every iconed button's name began with its FontAwesome glyph, a private-use character (``'\\uf00c Approve'``):
  ``get_by_role('button', name='Approve', exact=True)`` found nothing. The icon is now hidden from the name.
- An inbox's tick box was named with two ids of 30 characters (``select the t draft draft:ep_…:req_… of ep_…``);
  it now names the tool and the run's task, and when it was asked.
- The inbox's reason box said ``reason for the selection (optional)``, cut at 320px; its name says what for.
- A replay comparison at 480px broke its figures inside a number (``$0.000`` over ``0``): a figure now breaks only at
  the space before its unit, and a table still too wide scrolls in its own box.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, notebook, open_notebook, run_all

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
noesis_nb.ns.set(runs_dir="names-runs")""",
    """async def deployer(task, ctx):
    return await ctx.tool_async("deploy.release", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

handle = noesis_nb.start("deploy release 1.2", using=deployer, approver="ask")
handle""",
    """def writer(task, ctx):
    for _ in range(4):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1208, output_tokens=17)
    return "written"

ep = noesis_nb.solve("write the notes", using=writer)
noesis_nb.replay(ep, compare=ep)""",
    "noesis_nb.inbox()",
]

# every figure cell of the comparison whose words (a number, a unit) do not each sit on one line
_BROKEN = """() => [...document.querySelectorAll('.noesis-nb-compare td.nnb-num')].filter(td => td.getClientRects().length)
  .flatMap(td => { const text = td.firstChild; if (!text || text.nodeType !== 3) return [];
    const out = []; let at = 0;
    for (const word of text.textContent.split(' ')) {
      const r = document.createRange(); r.setStart(text, at); r.setEnd(text, at + word.length); at += word.length + 1;
      if (word && new Set([...r.getClientRects()].map(q => Math.round(q.top))).size > 1) out.push(text.textContent);
    }
    return out; })"""
_FIGURES = "() => [...document.querySelectorAll('.noesis-nb-compare td.nnb-num')].map(td => td.textContent.trim())"
# the compare's table and everything in it end inside the view (a part scrolled out of its own box counts as inside)
_PAST = """() => { const view = document.querySelector('.noesis-nb-compare').closest('.noesis-nb-view');
  const table = view.querySelector('.noesis-nb-compare table'), right = view.getBoundingClientRect().right;
  const box = table.parentElement.classList.contains('nnb-scroll-x') ? table.parentElement : table;
  return box.getBoundingClientRect().right <= right + 1 ? [] : [box.getBoundingClientRect().right, right]; }"""
# the width a placeholder takes against the room its box gives it
_PLACEHOLDER = """(input) => { const s = getComputedStyle(input), c = document.createElement('canvas').getContext('2d');
  c.font = s.font; const room = input.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  return {text: input.placeholder, width: c.measureText(input.placeholder).width, room}; }"""


def test_buttons_tick_boxes_and_figures_read_whole(lab: dict[str, Any], page: Any) -> None:
    (lab["root"] / "names.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "names.ipynb")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    view, inbox = page.locator(".noesis-nb-episode-view").first, page.locator(".noesis-nb-inbox").first
    inbox.get_by_text("1 draft waiting in 1 run").wait_for(timeout=60_000)
    page.locator(".noesis-nb-compare td.nnb-num").first.wait_for(timeout=60_000)

    problems = []  # each said, so one run shows every one
    for name in ("Approve", "Reject"):  # the name is the word, no icon glyph before it
        for where, scope in (("view", view), ("inbox", inbox)):
            if scope.get_by_role("button", name=name, exact=True).count() != 1:
                problems.append(f"no button named exactly {name!r} in the {where}")
    if inbox.get_by_role("button", name="Approve selected…", exact=True).count() != 1:
        problems.append("no button named exactly 'Approve selected…'")
    glyphs = page.evaluate(
        """() => [...document.querySelectorAll('.noesis-nb-view button')].filter(b => b.getClientRects().length)
             .map(b => b.textContent).filter(t => /[\\ue000-\\uf8ff]/.test(t))"""
    )
    assert glyphs == []  # the glyph is drawn by the stylesheet (::before), never in the text itself

    wanted = re.compile(r"^select the deploy\.release draft …\w{6} of “deploy release 1\.2”, asked at \d")
    if inbox.get_by_role("checkbox", name=wanted).count() != 1:
        problems.append("no tick box named 'select the deploy.release draft …<id's end> of “deploy release 1.2”, asked at …'")
    if inbox.get_by_role("checkbox", name=re.compile(r"ep_|draft:|draft draft")).count():
        problems.append("a tick box's name carries an id")
    reason = inbox.get_by_role("textbox", name="reason for the selection", exact=True)  # the inbox's own, in its toolbar
    assert reason.count() == 1

    page.evaluate("""() => { if (!window.jupyterapp.shell.leftCollapsed)
                              window.jupyterapp.commands.execute('application:toggle-left-area'); }""")
    page.set_viewport_size({"width": 480, "height": 1400})
    page.wait_for_timeout(800)
    figures = page.evaluate(_FIGURES)
    assert any(f.startswith("$") for f in figures) and any(f.endswith(" s") for f in figures), figures
    if broken := page.evaluate(_BROKEN):
        problems.append(f"480px: figures broken inside a number: {broken[:6]}")
    page.set_viewport_size({"width": 320, "height": 1400})
    page.wait_for_timeout(800)
    if broken := page.evaluate(_BROKEN):
        problems.append(f"320px: figures broken inside a number: {broken[:6]}")
    if past := page.evaluate(_PAST):
        problems.append(f"320px: the comparison's table runs past its view: {past}")
    said = reason.evaluate(_PLACEHOLDER)
    if said["width"] > said["room"]:
        problems.append(f"320px: the inbox's reason placeholder is cut: {said}")
    assert problems == [], "\n".join(problems)
