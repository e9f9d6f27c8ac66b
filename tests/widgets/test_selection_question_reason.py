"""The inbox's "Approve 2 drafts? — reason: …" question shows the typed reason as every view shows text:
secrets removed, one bounded line, escaped. It echoed the reason box whole, so a pasted token (or a whole
log pasted by mistake) went into an HTML widget as it was, before anything was decided."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import InboxView

TOKEN = "ghp_" + "Qm7Lx2Vb9Nc4Zr8Tw1Ys6Hd3Kf5Jg0Pa2Ue4"


def _agent(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


def test_the_confirmation_question_shows_the_reason_redacted_bounded_and_escaped(runs_dir: Path, comm_log: list) -> None:
    for i in range(2):
        noesis_nb.solve(f"task {i}", using=_agent, runs_dir=runs_dir, approver="ask")
    inbox = InboxView(runs_dir)
    for row in inbox.rows.values():
        row.check.value = True
    inbox.reason.value = f"<img src=x onerror=alert(1)> ok, deploy with token {TOKEN} " + "x" * 20_000
    inbox.reject_selected.click()
    question = inbox.question.value
    assert question.startswith("<b>Reject 2 drafts?</b> <span"), question[:200]
    assert "</span> — reason: &lt;img src=x" in question, question[:300]
    assert TOKEN[4:14] not in question and TOKEN[-10:] not in question, question[:300]
    assert "<img" not in question and "&lt;img src=x" in question
    assert len(question) < 1_000, len(question)
    assert question.rstrip().endswith("…")  # cut, and says so
