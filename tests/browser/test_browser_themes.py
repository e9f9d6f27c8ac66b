"""The live view in a real JupyterLab, in the Light and the Dark theme (and Dark High Contrast): readable
(WCAG AA contrast of every text against its background, measured from computed styles), decided from its
buttons (a draft, a veto pause), and honest once its kernel is gone.

One notebook: the quickstart up to its view (a person must click Approve), a run paused by a governance
veto shown with its adapter, a plot and a replay comparison (two narrow players). Checked paused, then
decided, in both themes; laid out (no label cut short, no gapped lines) at the page's width and at 900px.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .lab import (
    ALL_RAN,
    CHROMIUM,
    DARK,
    HIGH_CONTRAST,
    LIGHT,
    NOTEBOOKS,
    approve_draft_of,
    button,
    contrast,
    copy_notebook,
    line_boxes,
    open_notebook,
    run_all,
    set_theme,
    step_toggle,
    wait,
    wait_until_settled,
)

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

EXTRA = [
    """import noesis_nb.ns as ns
from noesis_nb import plots

ns.set(governance_pause_on_veto=True)

def janitor(task):
    return f"done: {task}"

vetoed = ns.solve("wipe the build cache", using=janitor, governance="enforce")
ns.set(governance_pause_on_veto=False)
noesis_nb.show(vetoed, using=janitor)""",
    "plots.episode_timeline(noesis_nb.events_df(RUNS_DIR), handle.episode_id)",
    "noesis_nb.replay(handle.run_dir, compare=handle.run_dir)  # two players side by side: each half is narrow",
]


def notebook_with_views(src: Path, dest: Path, runs: Path) -> Path:
    copy_notebook(src, dest, upto='noesis_nb.start("Write the release notes"', RUNS_DIR=str(runs))
    data = json.loads(dest.read_text())
    for i, source in enumerate(EXTRA):
        data["cells"].append(
            {"cell_type": "code", "execution_count": None, "id": f"extra{i}", "metadata": {}, "outputs": [], "source": source}
        )
    dest.write_text(json.dumps(data, indent=1))
    return dest


def readable(page: Any, theme: str, when: str) -> None:
    result = contrast(page)
    assert result["checked"] > 40, f"{theme}, {when}: only {result['checked']} texts found"
    assert result["failures"] == [], f"{theme}, {when}: texts below 4.5:1 — {result['failures'][:8]}"


def lines_fit(page: Any) -> None:
    """The step counts line wraps without gaps (not ipywidgets' 28px line under 12px text); at the page's width,
    900px and 700px no button's label is cut short and no control runs past its view (a card's Approve/Reject,
    the Stop column), and a replay's event count stays inside its view (each half of a comparison is narrow);
    every step ▸ sits inside its 20px button."""
    lines = line_boxes(page, ".noesis-nb-episode-view div:not(:has(div))")
    counts = [b for b in lines if re.match(r"[\d,]+ steps from", b["text"])]
    assert len(counts) >= 2 and all(b["line"] <= 1.7 * b["font"] for b in counts), counts
    size = page.viewport_size
    for width in (size["width"], 900, 700):  # a narrower notebook squeezes the header, never the buttons beside it
        page.set_viewport_size({"width": width, "height": size["height"]})
        page.wait_for_timeout(300)
        clipped = page.evaluate("""() => [...document.querySelectorAll('.noesis-nb-view button')]
            .filter(b => b.getClientRects().length && b.scrollWidth > b.clientWidth + 1).map(b => b.textContent.trim())""")
        assert clipped == [], f"{width}px wide: button labels cut short: {clipped}"
        # controls stay inside their view (a comparison's halves too: they stack where each would be under 360px)
        outside = page.evaluate("""() => [...document.querySelectorAll('.noesis-nb-view button, .noesis-nb-view input')]
            .filter(e => e.getClientRects().length && e.getBoundingClientRect().right
                         > e.closest('.noesis-nb-view').getBoundingClientRect().right + 1)
            .map(e => e.textContent.trim() || e.placeholder)""")
        assert outside == [], f"{width}px wide: controls past the right edge of their view: {outside}"
        past = page.evaluate("""() => [...document.querySelectorAll('.noesis-nb-replay .widget-readout')].map(r =>
            r.getBoundingClientRect().right - r.closest('.noesis-nb-replay').getBoundingClientRect().right)""")
        assert len(past) == 2 and max(past) <= 1, f"{width}px: a replay's count runs {past} px past its view"
    page.set_viewport_size(size)
    toggles = line_boxes(page, ".noesis-nb-episode-view button.nnb-toggle")
    assert toggles and all(b["line"] <= b["inner"] + 3 for b in toggles), toggles


def test_views_and_a_plot_read_in_light_and_dark_and_decide_from_their_buttons(lab: dict[str, Any], page: Any) -> None:
    runs = lab["tmp"] / "themes-runs"
    notebook_with_views(NOTEBOOKS / "quickstart.ipynb", lab["root"] / "themes.ipynb", runs)
    open_notebook(page, lab["base"], lab["token"], "themes.ipynb")
    set_theme(page, LIGHT)
    run_all(page)
    quick, veto = page.locator(".noesis-nb-episode-view").nth(0), page.locator(".noesis-nb-episode-view").nth(1)
    button(quick, "Approve").wait_for(timeout=60_000)
    button(veto, "Override").wait_for(timeout=60_000)
    page.locator(".jp-RenderedPlotly .main-svg").first.wait_for(timeout=60_000)
    page.wait_for_function(ALL_RAN, timeout=60_000)
    step_toggle(quick, "waiting for approval").click()  # expand the paused tool step: its raw events are checked too
    quick.get_by_text("tool.approval.pending").first.wait_for(timeout=10_000)

    probe = "v => { const s = document.createElement('span'); s.id = 'nnb-probe'; s.textContent = 'grey on grey';"
    probe += " s.style.color = '#777'; s.style.background = '#888'; v.appendChild(s); }"
    quick.evaluate(probe)  # the check itself can fail: a low-contrast text it must find
    assert [f["text"] for f in contrast(page)["failures"]] == ["grey on grey"]
    page.evaluate("document.getElementById('nnb-probe').remove()")
    readable(page, LIGHT, "paused")
    lines_fit(page)
    set_theme(page, DARK)
    readable(page, DARK, "paused")

    # decide both from their buttons, in the dark theme
    approve_draft_of(page, "fs.write_file")
    wait_until_settled(quick, "ok", "✔ approved")
    veto.locator("input[placeholder='reason (optional)']").fill("a build cache, not production")
    button(veto, "Override").click()
    veto.get_by_text(re.compile("overridden")).first.wait_for(timeout=30_000)
    button(veto, "Resume").click()
    veto.locator(".nnb-badge", has_text=re.compile(r"^\s*ok\s*$")).wait_for(timeout=30_000)
    decision = wait(lambda: next(runs.glob("*/checkpoints/*/decision.json"), None), 10, "the veto decision on disk")
    assert json.loads(decision.read_text())["reason"] == "a build cache, not production"
    assert button(veto, "Override").count() == 0 or not button(veto, "Override").first.is_visible()
    readable(page, DARK, "decided")
    set_theme(page, HIGH_CONTRAST)
    readable(page, HIGH_CONTRAST, "decided")
    set_theme(page, LIGHT)
    readable(page, LIGHT, "decided")

    # the kernel goes away: every view says so, and its buttons take no click that could not arrive
    page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    notice = quick.locator(".nnb-stale")
    notice.wait_for(state="visible", timeout=30_000)
    assert "lost its kernel" in notice.inner_text()
    toggle = quick.locator("button.widget-toggle-button").first
    assert toggle.evaluate("b => getComputedStyle(b).pointerEvents") == "none"
    readable(page, LIGHT, "kernel restarted")
