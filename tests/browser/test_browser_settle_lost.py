"""A run whose writer was SIGKILLed, shown in JupyterLab: its view reads ``lost`` and offers "Settle lost run";
clicking it in the browser settles the run as ``resume_run`` does (sealed ``error``, ``process_lost``) and the
view follows it there: the badge reads ``error``, the button is gone, one line says what was done. The lost view
reads in JupyterLab Light and Dark (every text at 4.5:1 at least)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.widgets.lostruns import lost_while_running

from .lab import CHROMIUM, DARK, LIGHT, button, contrast, notebook, open_notebook, run_all, set_theme, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = ["%load_ext noesis_nb", "import noesis_nb\nnoesis_nb.show('ep_lost_in_browser', runs_dir='runs-lost')"]


def test_settle_a_lost_run_from_its_view(lab: dict[str, Any], page: Any) -> None:
    runs = lab["root"] / "runs-lost"
    runs.mkdir()
    lost_while_running(runs, "ep_lost_in_browser")
    (lab["root"] / "lost.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "lost.ipynb")
    run_all(page)
    view = page.locator(".noesis-nb-episode-view").first
    view.locator(".nnb-badge", has_text=re.compile(r"^\s*lost\s*$")).wait_for(timeout=60_000)
    settle = button(view, "Settle lost run")
    settle.wait_for(timeout=30_000)
    try:  # the lost badge, its note and the button read in either theme
        for theme in (DARK, LIGHT):
            set_theme(page, theme)
            result = contrast(page, ".noesis-nb-episode-view")
            assert result["checked"] > 5 and not result["failures"], (theme, result["failures"])
    finally:
        set_theme(page, LIGHT)
    settle.click()
    view.locator(".nnb-badge", has_text=re.compile(r"^\s*error\s*$")).wait_for(timeout=30_000)
    view.get_by_text(re.compile("sealed as error")).first.wait_for(timeout=30_000)
    settle.wait_for(state="hidden", timeout=10_000)
    run_dir = runs / "ep_lost_in_browser"
    wait(lambda: (run_dir / "manifest.json").exists(), 30, "the run sealed")
    assert "process_lost" in (run_dir / "summary.json").read_text()
