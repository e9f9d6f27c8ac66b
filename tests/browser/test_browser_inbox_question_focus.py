"""The inbox's "Approve selected…" from the keyboard keeps the focus in the inbox, in the Light and the Dark theme.

The button disables itself while its question is open, and the question hides again after Cancel or Confirm: each
dropped the keyboard focus to the page's body, so a keyboard or screen-reader user had to Tab through the notebook
again to find the question. Now the question's Confirm takes the focus, Cancel gives it back to the button that
asked, and Confirm moves it to the line saying what was decided.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, DARK, LIGHT, button, notebook, open_notebook, run_all, set_theme, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

# the focused element: its tag, its text, whether it is in the inbox, and how its ring shows
_FOCUS = """() => {
  const a = document.activeElement, s = a ? getComputedStyle(a) : null;
  return {tag: a ? a.tagName : null, text: a ? a.textContent.trim().slice(0, 80) : '',
          inbox: !!(a && a.closest('.noesis-nb-inbox')),
          ring: s && s.outlineStyle !== 'none' ? parseFloat(s.outlineWidth) : 0};
}"""


def _focus(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(_FOCUS)
    return found


def _focus_on(page: Any, text: str, what: str) -> dict[str, Any]:
    """Wait (the focus is sent from the kernel) until the focused element in the inbox reads ``text``."""
    try:
        return dict(wait(lambda: (lambda f: f if f["inbox"] and f["text"] == text else None)(_focus(page)), 30, what))
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the focus is on {_focus(page)}") from None


@pytest.fixture(params=[LIGHT, DARK])
def theme(page: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param
    if page.locator(".jp-Notebook").count():
        set_theme(page, LIGHT)


def test_approve_selected_from_the_keyboard_keeps_the_focus_in_the_inbox(lab: dict[str, Any], page: Any, theme: str) -> None:
    slug = f"inbox-question-{theme.split()[-1].lower()}"
    runs = lab["tmp"] / f"runs-{slug}"
    setup = f"""%load_ext noesis_nb
import asyncio, sys
import noesis_nb
RUNS = {str(runs)!r}

async def notes(task, ctx):  # two drafts waiting at once
    calls = [ctx.tool_async(f"notes.w{{i}}", {{"argv": [sys.executable, "-c", "pass"]}}, effect="write", risk="high")
             for i in range(2)]
    return await asyncio.gather(*calls)"""
    paused = 'two = noesis_nb.start("write two notes", using=notes, approver="ask", runs_dir=RUNS)\nawait two'
    (lab["root"] / f"{slug}.ipynb").write_text(json.dumps(notebook([setup, paused, "ib = noesis_nb.inbox(RUNS)"])))
    open_notebook(page, lab["base"], lab["token"], f"{slug}.ipynb")
    set_theme(page, theme)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    inbox = page.locator(".noesis-nb-inbox").first
    inbox.get_by_text("2 drafts waiting in 1 run").wait_for(timeout=60_000)

    button(inbox, "Select all shown").focus()
    page.keyboard.press("Enter")
    inbox.locator(".nnb-ib-row input[type=checkbox]:checked").nth(1).wait_for(timeout=30_000)
    assert _focus(page)["text"] == "Select all shown", _focus(page)
    page.keyboard.press("Tab")
    assert _focus(page)["text"] == "Approve selected…", _focus(page)
    page.keyboard.press("Enter")
    focus = _focus_on(page, "Confirm: approve 2", "the question's Confirm")
    assert inbox.get_by_text("Approve 2 drafts?").is_visible()
    assert focus["ring"] >= 2, f"the focused Confirm shows no ring in {theme}: {focus}"
    page.keyboard.press("Tab")
    assert _focus(page)["text"] == "Cancel", _focus(page)
    page.keyboard.press("Enter")
    focus = _focus_on(page, "Approve selected…", "the button that asked, after Cancel")
    assert focus["ring"] >= 2, f"the focused button shows no ring in {theme}: {focus}"
    assert not inbox.get_by_text("Approve 2 drafts?").is_visible()
    assert not list(runs.glob("*/tool_invocations/approvals/*.json"))  # Cancel decided nothing

    page.keyboard.press("Space")  # asked again, with the other key that presses a button
    _focus_on(page, "Confirm: approve 2", "the question's Confirm, asked again")
    page.keyboard.press("Enter")
    focus = _focus_on(page, "approved 2 drafts", "the line saying what the confirmation decided")
    assert focus["tag"] != "BODY" and focus["ring"] >= 2, f"the line shows no ring in {theme}: {focus}"
    wait(lambda: len(list(runs.glob("*/tool_invocations/approvals/*.json"))) == 2, 30, "the two decisions on disk")
    inbox.get_by_text("nothing waits for a decision").wait_for(timeout=30_000)
    assert _focus(page)["text"] == "approved 2 drafts", _focus(page)  # still there once the inbox settled
