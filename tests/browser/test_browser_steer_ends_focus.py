"""A steer that ends the run (the agent hears it and returns) keeps the keyboard focus in the view.

The run's end hides the steer row and re-renders the view's output; the focus, on the box (Enter) or on Send (a
click from the keyboard), fell to the page's body, and a keyboard or screen-reader user had to Tab through the
notebook again. It now goes to the view's line saying how the run ended, as a decision's goes to its card's outcome.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, notebook, open_notebook, run_all, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

_FOCUS = """() => { const a = document.activeElement, view = a && a.closest('.noesis-nb-episode-view');
  return {tag: a ? a.tagName : null, text: a ? a.textContent.trim().slice(0, 80) : '', in_view: !!view}; }"""


@pytest.mark.parametrize("how", ["Enter", "Send"])
def test_the_focus_goes_to_the_end_line_when_a_steer_ends_the_run(lab: dict[str, Any], page: Any, how: str) -> None:
    runs = lab["tmp"] / f"runs-steer-ends-{how}"
    cells = [
        f"%load_ext noesis_nb\nimport noesis_nb\nRUNS = {str(runs)!r}",
        """async def listener(task, ctx):
    heard = await ctx.next_steer_async(timeout=120)
    return f"heard {heard.text}"

h = noesis_nb.start("listen", using=listener, runs_dir=RUNS)
h""",
    ]
    name = f"steer-ends-{how}.ipynb"
    (lab["root"] / name).write_text(json.dumps(notebook(cells)))
    open_notebook(page, lab["base"], lab["token"], name)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    view = page.locator(".noesis-nb-episode-view").first
    box = view.locator(".nnb-steer input")
    box.wait_for(timeout=60_000)
    box.fill("use staging")
    if how == "Enter":
        box.press("Enter")
    else:
        box.press("Tab")  # to Send, from the keyboard
        assert page.evaluate(_FOCUS)["text"] == "Send"
        page.keyboard.press("Enter")
    wait(lambda: next(iter(runs.glob("ep_*/manifest.json")), None), 60, "the run to seal")

    def landed() -> dict[str, Any] | None:
        focus: dict[str, Any] = page.evaluate(_FOCUS)
        return focus if focus["in_view"] and "ended" in focus["text"] else None

    try:
        focus = wait(landed, 30, "the focus on the view's end line")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the focus is on {page.evaluate(_FOCUS)}") from None
    assert focus["text"] == "the run ended ok"
    page.wait_for_timeout(2500)  # the output re-rendered at the run's end: the focus is held there too
    assert page.evaluate(_FOCUS) == focus
