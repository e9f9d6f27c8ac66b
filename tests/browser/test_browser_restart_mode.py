"""After a kernel restart the view's "steps / raw events" switch was struck through whole, like the buttons: the
switch is redrawn by the kernel, so it cannot switch any more (honest), but the mode shown read as an action
refused too. The mode shown now reads as a state; the other stays struck through."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import CHROMIUM, LIGHT, notebook, open_notebook, run_all, set_theme
from .test_browser_restart_layout import CELLS

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

_MODES = """v => [...v.querySelectorAll('.widget-toggle-buttons .widget-toggle-button')].map(b => {
  const s = getComputedStyle(b);
  return {text: b.textContent.trim(), active: b.classList.contains('mod-active'),
          line: s.textDecorationLine, border: s.borderTopStyle, events: s.pointerEvents}; })"""


def test_the_mode_shown_reads_as_a_state_after_a_kernel_restart(lab: dict[str, Any], page: Any) -> None:
    runs = lab["tmp"] / "restart-mode-runs"
    (lab["root"] / "restart-mode.ipynb").write_text(json.dumps(notebook([f"RUNS = {str(runs)!r}", *CELLS])))
    open_notebook(page, lab["base"], lab["token"], "restart-mode.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    view = page.locator(".noesis-nb-episode-view").first
    view.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).wait_for(timeout=60_000)
    page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    view.locator(".nnb-stale").wait_for(state="visible", timeout=30_000)
    modes = {m["text"]: m for m in view.evaluate(_MODES)}
    assert set(modes) == {"steps", "raw events"}, modes
    shown, other = modes["steps"], modes["raw events"]
    assert shown["active"] and "line-through" not in shown["line"] and shown["border"] == "solid", shown
    assert "line-through" in other["line"] and other["events"] == "none", other  # switching needs the kernel
