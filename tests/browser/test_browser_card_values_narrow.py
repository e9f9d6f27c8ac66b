"""An approval card in a narrow output, in real JupyterLab and Chromium, Light and Dark: every value of the request
(effect, risk, argv, draft, fingerprint) keeps a readable width under its label. At 480px with JupyterLab's file
panel open the card was ~112px wide and the labels' column took it all: each value was 0px wide while Approve and
Reject still took clicks, so a person could approve a request they could not see. A decision control is never
shown while what it decides is hidden."""

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
noesis_nb.ns.set(runs_dir="narrow-card-runs")""",
    """async def deployer(task, ctx):
    argv = [sys.executable, "-c", "print('a quoted \\\\'release\\\\' note')", "--target", "prod"]
    return await ctx.tool_async("deploy.release", {"argv": argv}, effect="write", risk="high")

noesis_nb.start("deploy release 1.2", using=deployer, approver="ask")""",
]

# the pending card's values and buttons, the view's output squeezed to ``width`` px (null: as the page lays it out)
_CARD_AT = """(width) => {
  const v = document.querySelector('.noesis-nb-episode-view');
  if (width !== null) { v.parentElement.style.width = width + 'px'; v.parentElement.style.maxWidth = width + 'px'; }
  void v.offsetWidth;
  const card = [...v.querySelectorAll('.nnb-card')].find(c => c.textContent.includes('wants approval'));
  const cs = getComputedStyle(card);
  const content = card.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility === 'visible';
  return {card: Math.round(card.getBoundingClientRect().width), content: Math.round(content),
          height: Math.round(card.getBoundingClientRect().height),
          values: [...card.querySelectorAll('dd')].map(d => ({label: d.previousElementSibling.textContent,
                   width: Math.round(d.getBoundingClientRect().width)})),
          buttons: [...card.querySelectorAll('button')].filter(b => shown(b) && b.getBoundingClientRect().width > 0)
                   .map(b => b.textContent.trim())};
}"""


def _check(got: dict[str, Any], where: str, share: float) -> None:
    values = got["values"]
    labels = {v["label"] for v in values}
    assert {"effect", "risk", "argv", "draft", "fingerprint"} <= labels, (where, got)
    narrow = [v for v in values if v["width"] < share * got["content"] or v["width"] <= 0]
    assert not narrow, f"{where}: card {got['card']}px, content {got['content']}px, values too narrow: {narrow}"
    assert "Approve" in got["buttons"] and "Reject" in got["buttons"], (where, got)  # offered, and what it decides shown


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_a_narrow_card_shows_every_value_under_its_label(lab: dict[str, Any], page: Any, theme: str) -> None:
    name = f"narrow-card-{theme.split()[-1].lower()}.ipynb"
    (lab["root"] / name).write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], name)
    set_theme(page, theme)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=60_000)
    page.locator(".nnb-card", has_text="wants approval").first.wait_for(timeout=60_000)
    page.locator(".nnb-card button", has_text="Approve").first.wait_for(timeout=30_000)
    for width in (110, 130, 150, 200, 260):
        _check(page.evaluate(_CARD_AT, width), f"{theme}, output {width}px", 0.8)
    wide = page.evaluate(_CARD_AT, 900)  # two columns still: labels beside values, values most of the card
    _check(wide, f"{theme}, output 900px", 0.5)
    assert wide["values"][0]["width"] < 0.95 * wide["content"], wide

    # the newcomer's window: 480px with the file browser open beside the notebook
    page.evaluate("document.querySelector('.noesis-nb-episode-view').parentElement.removeAttribute('style')")
    page.set_viewport_size({"width": 480, "height": 1000})
    page.evaluate("window.jupyterapp.commands.execute('filebrowser:activate')")
    page.wait_for_timeout(1_000)
    got = page.evaluate(_CARD_AT, None)
    assert got["card"] < 260, got  # the panel squeezes the notebook, as it did for the newcomer
    _check(got, f"{theme}, 480px window with the file panel open", 0.8)
