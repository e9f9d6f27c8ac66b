"""Run All on the governance tour in a real JupyterLab: afterwards every earlier view of a run shows how that
run ended — the veto pause overridden and sealed ok, the draft approved and sealed ok — and offers no
button that could still act."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, NOTEBOOKS, button, copy_notebook, open_notebook, run_all, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]


def test_run_all_leaves_every_view_true(lab: dict[str, Any], page: Any) -> None:
    copy_notebook(NOTEBOOKS / "governance-and-resume.ipynb", lab["root"] / "governance.ipynb", RUNS_DIR=str(lab["tmp"] / "gov"))
    open_notebook(page, lab["base"], lab["token"], "governance.ipynb")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=120_000)
    views = page.locator(".noesis-nb-episode-view")
    assert views.count() >= 3  # the veto pause, the draft paused on disk, the same run shown again at the end
    for i in range(views.count()):
        view = views.nth(i)
        view.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).wait_for(timeout=15_000)
        assert view.locator(".nnb-badge", has_text=re.compile(r"^\s*paused\s*$")).count() == 0
        for label in ("Approve", "Reject", "Override", "Uphold", "Resume"):
            # the badge and the cards are separate widgets, each drawn as its own message arrives: a button that
            # is still shown 10 s after the badge reads ok is one the view kept offering
            wait(
                lambda view=view, label=label: not any(b.is_visible() for b in button(view, label).all()),
                10,
                f"view {i} to stop offering {label}",
            )
    veto, draft = views.nth(0), views.nth(1)
    veto.get_by_text(re.compile(r"overridden")).first.wait_for(timeout=10_000)
    assert "overridden by resuming the run (no approver named)" in veto.inner_text()  # no decision file named anyone
    draft.get_by_text(re.compile(r"approved")).first.wait_for(timeout=10_000)
    assert "approved by release-manager" in draft.inner_text() and "checked the diff" in draft.inner_text()
