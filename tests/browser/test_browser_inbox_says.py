"""A real browser: what an inbox says after a click is what that click did.

``%noesis inbox --runs-dir D``: Resume on a run decided on disk sealed it and wrote its file, yet the inbox read only
"nothing waits for a decision"; it now says "resumed run ep_…: ran 1 approved tool, sealed ok". A batch's inbox kept
"approved 2 drafts" on show after two later Rejects on their own rows; each row's decision now takes the line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .lab import ALL_RAN, CHROMIUM, button, notebook, open_notebook, run_all

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

CELLS = [
    """%load_ext noesis_nb
import sys
import noesis_nb

async def writer(task, ctx):
    name = task.split()[-1] + ".txt"
    argv = [sys.executable, "-c", f"open({name!r}, 'w').write('x')"]
    return await ctx.tool_async("notes.write", {"argv": argv}, effect="write", risk="high")

ep = noesis_nb.solve("write note-0", using=writer, runs_dir="said-runs", approver="ask")
noesis_nb.approve_draft(ep, runs_dir="said-runs", approver_id="ana")  # decided on disk: Resume is left to do
ep""",
    "%noesis inbox --runs-dir said-runs",
    """b = noesis_nb.batch([f"write note-{i}" for i in range(1, 5)], using=writer, approver="ask", root="said-batch")
await b
b""",
]


def test_resume_and_a_rows_own_decision_say_what_they_did(lab: dict[str, Any], page: Any) -> None:
    root = lab["root"]
    (root / "said.ipynb").write_text(json.dumps(notebook(CELLS)))
    open_notebook(page, lab["base"], lab["token"], "said.ipynb")
    run_all(page)
    page.wait_for_function(ALL_RAN, timeout=90_000)
    [run_dir] = (root / "said-runs").glob("ep_*")

    inbox = page.locator(".noesis-nb-inbox").first  # the magic's
    button(inbox, "Resume").click()
    inbox.get_by_text(f"resumed run {run_dir.name}: ran 1 approved tool, sealed ok").wait_for(timeout=30_000)
    assert (root / "note-0.txt").read_text() == "x" and (run_dir / "final.json").is_file()
    assert inbox.locator("[role=status]", has_text="resumed run").count() == 1  # a screen reader hears it

    batch = page.locator(".noesis-nb-batch .noesis-nb-inbox")
    rows = batch.locator(".nnb-ib-row:not(.nnb-decided)")
    rows.nth(3).wait_for(timeout=30_000)
    for i in range(2):
        rows.nth(i).locator("input[type=checkbox]").check()
    button(batch, "Approve selected…").click()
    button(batch, "Confirm: approve 2").click()
    batch.get_by_text("approved 2 drafts").wait_for(timeout=30_000)
    batch.get_by_text("2 drafts waiting in 2 runs").wait_for(timeout=30_000)
    for _ in range(2):  # the two left, each on its own row
        row = rows.first
        episode = row.locator("b.nnb-mono").first.inner_text().strip()
        button(row, "Reject").click()
        batch.get_by_text(f"rejected the notes.write draft of {episode}").wait_for(timeout=30_000)
        assert batch.get_by_text("approved 2 drafts").count() == 0
    batch.get_by_text("nothing waits for a decision · 4 decided here").wait_for(timeout=30_000)
