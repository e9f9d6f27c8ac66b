"""A live episode view waiting for a decision, in real JupyterLab: squeezed to 150-320px (an output beside a wide
side panel, whatever the window) nothing runs past its edge (Approve, Reject, the reason box and "Stop when calls
finish" stuck out 10-84px at 152px); a reason the card refuses is announced (a live region) and the focus goes to
the reason box, whose name says it was not accepted; a replay's "events" label has no "null" hover text."""

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
noesis_nb.ns.set(runs_dir="squeeze-runs")""",
    """async def deployer(task, ctx):
    return await ctx.tool_async("deploy.release", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

handle = noesis_nb.start("deploy release 1.2", using=deployer, approver="ask")
handle""",
    """def writer(task):
    return "written"

noesis_nb.replay(noesis_nb.solve("write the notes", using=writer))""",
]

# the episode view squeezed to ``width`` px: every visible element of it whose edges run past the view's
_PAST_AT = """(width) => {
  const v = document.querySelector('.noesis-nb-episode-view');
  v.parentElement.style.width = width + 'px'; v.parentElement.style.maxWidth = width + 'px';
  void v.offsetWidth;
  const box = v.getBoundingClientRect();
  return {view: Math.round(box.width), past: [...v.querySelectorAll('*')].filter(e => e.getClientRects().length
      && !e.closest('svg') && e.getBoundingClientRect().width > 0
      && (e.getBoundingClientRect().right > box.right + 1 || e.getBoundingClientRect().left < box.left - 1))
    .map(e => ({tag: e.tagName, cls: String(e.className).slice(0, 40),
                text: (e.textContent || e.placeholder || '').trim().slice(0, 30),
                past: Math.round(e.getBoundingClientRect().right - box.right)}))};
}"""

# where the focus is after the refused Approve, and whether the message is inside a live region
_AFTER_REFUSAL = """() => {
  const v = document.querySelector('.noesis-nb-episode-view');
  const said = [...v.querySelectorAll('span, div')].filter(s => s.textContent.startsWith('could not approve')).pop();
  let live = null;
  for (let e = said; e && e !== v; e = e.parentElement)
    if (e.getAttribute('role') === 'alert' || e.getAttribute('aria-live') === 'assertive') {
      live = e.getAttribute('role'); break;
    }
  const a = document.activeElement, label = a && a.id ? document.querySelector(`label[for="${a.id}"]`) : null;
  return {said: said ? said.textContent.slice(0, 60) : null, live, focused: a ? a.tagName + '|' + (a.type || '') : null,
          name: label ? label.textContent : null};
}"""


def test_a_squeezed_view_keeps_its_controls_in_and_a_refused_reason_is_announced(lab: dict[str, Any], page: Any) -> None:
    (lab["root"] / "squeeze.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "squeeze.ipynb")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=60_000)
    view = page.locator(".noesis-nb-episode-view").first
    card = view.locator(".nnb-card", has_text="deploy.release").first
    card.wait_for(timeout=60_000)
    view.locator("button", has_text="Stop when calls finish").first.wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    for width in (320, 200, 152, 150):
        got = page.evaluate(_PAST_AT, width)
        assert abs(got["view"] - width) <= 2, got
        assert got["past"] == [], f"{width}px wide: parts of the view past its edges: {got['past'][:8]}"
    page.evaluate(_PAST_AT, 700)

    replay = page.locator(".noesis-nb-replay").first
    replay.wait_for(timeout=30_000)
    titles = replay.locator(".widget-slider .widget-label").evaluate_all("ls => ls.map(l => l.getAttribute('title'))")
    assert titles and all(t and t != "null" for t in titles), titles

    box = card.locator("input[type=text]").first
    box.fill("fine \u202eevil")
    button(card, "Approve").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.noesis-nb-episode-view span')]"
        ".some(s => s.textContent.startsWith('could not approve'))",
        timeout=30_000,
    )
    page.wait_for_timeout(1_000)  # the focus message follows the status in the kernel's next messages
    got = page.evaluate(_AFTER_REFUSAL)
    assert got["live"] == "alert", got
    assert got["focused"] == "INPUT|text" and got["name"] and "not accepted" in got["name"], got
