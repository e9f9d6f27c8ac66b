"""The batch grid in a 1280px window, in a real JupyterLab: each line of the grid stays one line (its time with its
``(+ … waiting for people)`` mark wrapped over three lines of a 12ch column before), and the inbox's shared reason,
refused, is ``aria-invalid`` and described by the refusal under it, as a card's own reason box is, until a reason is
taken. The whole view, the grid's buttons too, has one key guard: its own (the inbox in it carries none)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, button, notebook, open_notebook, run_all, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb
from noesis_nb.widgets.meter import CostMeter

CostMeter.ready()
CostMeter.wait()  # prices loaded before the batch: each row reads its cost

async def write(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=900, output_tokens=80)
    if task.endswith("production"):  # waits for a person: once decided, its time says the wait apart
        await ctx.tool_async("notes.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return "written"

tasks = [f"write the release note for service-{i} to {where}" for i, where in ((3, "staging"), (11, "production"),
         (27, "production"), (35, "staging"))]
b = noesis_nb.batch(tasks, using=write, approver="ask", root="wide-batch")
await b
b""",
]

# each grid line's cells whose text sits on more than one line, or is cut ("…"), but the task's
_MEASURE = """() => {
  const lines = [...document.querySelectorAll('.noesis-nb-batch .nnb-grid-line')].filter(l => l.getClientRects().length);
  const wrapped = [], cut = [];
  for (const line of lines) {
    [...line.children].forEach((cell, i) => {
      if (i === 1) return;
      const text = cell.textContent.trim(), range = document.createRange();
      range.selectNodeContents(cell);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) wrapped.push(text);
      if (cell.scrollWidth > cell.clientWidth + 1) cut.push(text);
    });
  }
  const area = lines[0].closest('.jp-OutputArea-output').getBoundingClientRect().width;
  return {rows: lines.length, wrapped, cut, area: Math.round(area),
          times: lines.slice(1).map(l => l.children[6].textContent.trim()),
          unguarded: [...document.querySelectorAll('.noesis-nb-batch button')]
            .filter(b => !b.hasAttribute('data-lm-suppress-shortcuts')).map(b => b.textContent.trim()).slice(0, 5),
          guards: document.querySelectorAll('.noesis-nb-batch .nnb-keyguard').length};
}"""


def _said_within(check: Any, seconds: float, what: str, problems: list[str]) -> None:
    """Wait for ``check``; a defect it names is kept in ``problems`` (each is its own: the test goes on)."""
    try:
        wait(check, seconds, what)
    except AssertionError as exc:
        problems.append(str(exc)[:300])


def _refuse_then_take_the_shared_reason(batch: Any, root: Path) -> list[str]:
    """Reject one row with a refused shared reason: nothing decided, the box invalid and described by the refusal;
    the reason emptied, the confirmation decides it and the box is valid again. Returns what was not so."""
    problems: list[str] = []
    decisions = lambda: sorted(root.glob("wide-batch/**/tool_invocations/approvals/*.json"))  # noqa: E731
    before = decisions()
    batch.locator(".nnb-ib-row .nnb-ib-check input").first.check()
    box = batch.get_by_role("textbox", name="reason for the selection", exact=True)
    box.fill("fine \u202eevil")
    button(batch, "Reject selected…").click()
    button(batch, "Confirm: reject 1").click()
    _said_within(lambda: box.get_attribute("aria-invalid") == "true", 15, "the refused shared reason marked invalid", problems)
    alert = batch.locator(".nnb-refusal-scope [role=alert]")
    if alert.count() != 1 or not alert.first.text_content().startswith("nothing decided"):
        problems.append(f"no refusal beside the shared reason ({alert.count()} alerts)")
    else:
        said = alert.first.get_attribute("id")
        _said_within(lambda: box.get_attribute("aria-describedby") == said, 15, "the box described by the refusal", problems)
    if decisions() != before:
        problems.append("a draft was decided with the refused reason")
    box.fill("")
    confirm = button(batch, "Confirm: reject 1")
    if not confirm.is_visible():  # the question stays open for the reason to be corrected
        problems.append("the question closed on the refused reason")
        batch.locator(".nnb-ib-row .nnb-ib-check input").first.check()
        button(batch, "Reject selected…").click()
    confirm.click()
    wait(lambda: len(decisions()) == len(before) + 1, 30, "the rejection, once the reason is taken")
    _said_within(lambda: box.get_attribute("aria-invalid") is None, 15, "the box valid again", problems)
    if box.get_attribute("aria-describedby") is not None:
        problems.append("the box is still described by a refusal")
    return problems


def test_the_grid_keeps_each_line_whole_at_1280px_and_says_a_refused_shared_reason(lab: dict[str, Any], page: Any) -> None:
    (lab["root"] / "grid1280.ipynb").write_text(json.dumps(notebook(CELLS)))
    page.set_viewport_size({"width": 1280, "height": 1400})
    open_notebook(page, lab["base"], lab["token"], "grid1280.ipynb")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    batch = page.locator(".noesis-nb-batch")
    batch.locator(".nnb-grid-line").nth(4).wait_for(timeout=30_000)  # the head and the 4 episodes
    batch.locator(".nnb-ib-row").nth(1).wait_for(timeout=30_000)  # the 2 drafts of the production tasks
    problems = _refuse_then_take_the_shared_reason(batch, lab["root"])
    button(batch, "Select all shown").click()
    button(batch, "Approve selected…").click()
    button(batch, "Confirm: approve 1").click()
    page.wait_for_function(  # every row ended, priced, the approved one's time with its wait apart
        """() => { const l = [...document.querySelectorAll('.noesis-nb-batch .nnb-grid-line')].slice(1);
                   return l.length === 4 && l.every(x => x.children[5].textContent.includes('$'))
                          && l.some(x => x.children[6].textContent.includes('waiting for people')); }""",
        timeout=60_000,
    )
    got = page.evaluate(_MEASURE)
    assert got["rows"] == 5, got
    if got["wrapped"] or got["cut"]:  # one line each, nothing lost to "…"
        problems.append(f"grid cells over two lines {got['wrapped']}, cut {got['cut']} (output area {got['area']}px)")
    if got["guards"] != 1 or got["unguarded"]:
        problems.append(f"{got['guards']} key guards; buttons without one: {got['unguarded']}")
    assert problems == [], "\n".join(problems)
