"""A real browser: a batch's progress grid with its inbox; two of its episodes wait for approval and
both are approved at once from the inbox (tick two rows, Approve selected…, Confirm) and continue; ▸ on
a line of the grid then opens that episode's own view."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .lab import CHROMIUM, DARK, LIGHT, button, contrast, line_boxes, notebook, open_notebook, run_all, set_theme, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    "%load_ext noesis_nb",
    """import noesis_nb

async def release_agent(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=900, output_tokens=80)
    name = "RELEASED-" + task.split()[-1]
    result = await ctx.tool_async("git.tag@1", {"argv": ["touch", name]}, effect="write", risk="high")
    return f"tagged (exit {result['returncode']})"

b = noesis_nb.batch(["tag release v1", "tag release v2"], using=release_agent, root="runs-inbox", approver="ask")
b""",
    "await b  # returns once every episode has ended or waits for a person",
]


def test_approve_two_drafts_at_once_from_the_batchs_inbox(lab: dict[str, Any], page: Any) -> None:
    root = lab["root"]
    (root / "inbox.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "inbox.ipynb")
    run_all(page)
    grid = page.locator(".noesis-nb-batch").first
    inbox = grid.locator(".noesis-nb-inbox")
    inbox.get_by_text("2 drafts waiting in 2 runs").wait_for(timeout=60_000)
    grid.get_by_text("paused 2").wait_for(timeout=15_000)
    rows = inbox.locator(".nnb-ib-row")
    assert rows.count() == 2 and "tag release v1" in rows.nth(0).inner_text() and "git.tag@1" in rows.nth(1).inner_text()
    for theme in (DARK, LIGHT):  # every text readable (WCAG AA) in both themes
        set_theme(page, theme)
        result = contrast(page, ".noesis-nb-batch")
        assert result["checked"] > 10 and not result["failures"], (theme, result["failures"])
    for i in range(2):
        rows.nth(i).locator("input[type=checkbox]").check()
    button(inbox, "Approve selected…").click()
    inbox.get_by_text("Approve 2 drafts?").wait_for(timeout=15_000)
    assert not list((root / "runs-inbox").glob("*/tool_invocations/approvals/*.json"))  # asking decided nothing
    button(inbox, "Confirm: approve 2").click()
    inbox.get_by_text("approved 2 drafts").wait_for(timeout=15_000)  # what the selection did, in words

    runs = sorted((root / "runs-inbox").glob("ep_*"))
    assert len(runs) == 2
    for run_dir in runs:  # on disk, then both episodes continue to their end
        wait(lambda run_dir=run_dir: (run_dir / "manifest.json").exists(), 30, f"{run_dir.name} to seal")
        [decision] = [json.loads(p.read_text()) for p in (run_dir / "tool_invocations" / "approvals").glob("*.json")]
        assert decision["status"] == "approved" and decision["approver_id"] == "human"
    assert (root / "RELEASED-v1").exists() and (root / "RELEASED-v2").exists()
    inbox.get_by_text("nothing waits for a decision").wait_for(timeout=15_000)
    # each row's line says it (its outcome line, where the focus goes after a click, says it to a screen reader only)
    assert inbox.locator(".nnb-ib-line", has_text=re.compile(r"approved by human")).count() == 2
    grid.get_by_text("ok 2").wait_for(timeout=15_000)  # the grid follows the episodes to their end
    opener = grid.locator(".nnb-grid button.widget-button").first
    boxes = line_boxes(page, ".noesis-nb-batch .nnb-grid button.widget-button")  # ▸ centred in its 20px button
    assert boxes and all(b["line"] <= b["inner"] + 3 for b in boxes), boxes
    opener.click()  # ▸ opens that episode's own view under the grid
    grid.locator(".noesis-nb-episode-view").get_by_text("approved by human").first.wait_for(timeout=30_000)
