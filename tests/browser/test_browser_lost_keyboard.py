"""After a real kernel restart, Tab passes by every control of a view and an inbox that lost their kernel.

The stylesheet stopped the mouse only (``pointer-events:none``): Tab still reached the dead Approve, Reject, the
reason box and the inbox's tick boxes, where Enter raised "Cannot send" in the page and typed text went nowhere.
The walk is made before the restart too, where it must reach those controls (so it can tell them apart).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, LIGHT, button, notebook, open_notebook, run_all, set_theme

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

_CONTROL = "button,input,textarea,select,[tabindex]"
# where the focus is: a control of one of the views (a view or an inbox), or past them (out of the outputs)
_WHERE = f"""() => {{
  const a = document.activeElement, views = '.noesis-nb-episode-view, .noesis-nb-inbox';
  const view = a && a.closest(views);
  return {{tag: a ? a.tagName : null, text: a ? (a.textContent || a.placeholder || '').trim().slice(0, 40) : '',
          control: !!(view && a.matches({_CONTROL!r})), dead: !!(view && view.closest('.jupyter-widgets-disconnected')),
          past: !(a && a.closest('.jp-OutputArea'))}};
}}"""


def _walk(page: Any) -> list[dict[str, Any]]:
    """Tab from a mark put before the first view until the focus leaves the cells' outputs; each stop."""
    page.evaluate("""() => {
      const mark = document.createElement('button'); mark.id = 'nnb-walk'; mark.textContent = 'start';
      const view = document.querySelector('.noesis-nb-episode-view'); view.parentElement.insertBefore(mark, view);
      mark.focus(); }""")
    stops = []
    for _ in range(80):
        page.keyboard.press("Tab")
        where: dict[str, Any] = page.evaluate(_WHERE)
        stops.append(where)
        if where["past"]:
            break
    page.evaluate("() => document.getElementById('nnb-walk').remove()")
    assert stops[-1]["past"], f"Tab never got past the views: {stops}"
    return stops


def test_tab_never_lands_on_a_control_of_a_view_that_lost_its_kernel(lab: dict[str, Any], page: Any) -> None:
    runs = lab["tmp"] / "runs-lost-keyboard"
    setup = f"""%load_ext noesis_nb
import sys
import noesis_nb
RUNS = {str(runs)!r}

async def release(task, ctx):
    return await ctx.tool_async("git.tag", {{"argv": [sys.executable, "-c", "pass"]}}, effect="write", risk="high")"""
    cells = [
        setup,
        'one = noesis_nb.start("tag the release", using=release, approver="ask", runs_dir=RUNS)\none',
        "ib = noesis_nb.inbox(RUNS)\nib",
    ]
    (lab["root"] / "lost-keyboard.ipynb").write_text(json.dumps(notebook(cells)))
    open_notebook(page, lab["base"], lab["token"], "lost-keyboard.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    view, inbox = page.locator(".noesis-nb-episode-view").first, page.locator(".noesis-nb-inbox").first
    button(view, "Approve").wait_for(timeout=60_000)
    inbox.get_by_text("1 draft waiting in 1 run").wait_for(timeout=60_000)

    live = {s["text"] for s in _walk(page) if s["control"]}  # with the kernel: the walk reaches the controls
    assert {"Approve", "Reject", "Select all shown"} <= live, live

    page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    for lost in (view, inbox):
        lost.locator(".nnb-stale").first.wait_for(state="visible", timeout=30_000)
        assert "lost its kernel" in lost.locator(".nnb-stale").first.inner_text()
    stops = _walk(page)
    dead = [s for s in stops if s["control"]]
    assert not dead, f"Tab landed on controls of views that lost their kernel: {dead}"
    approve = button(view, "Approve").first
    assert approve.is_visible()  # still shown (struck through), only out of reach
    approve.evaluate("b => b.focus()")
    assert not approve.evaluate("b => b === document.activeElement")  # nor can a script focus it
    reason = view.locator("input[type=text]").first
    reason.evaluate("i => i.focus()")
    assert not reason.evaluate("i => i === document.activeElement")
