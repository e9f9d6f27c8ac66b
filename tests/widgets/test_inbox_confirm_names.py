"""The inbox's "Approve selected…" bar names what it asks about (tool, draft and run of the first few, then how many
more), escaped; and at a narrow width its buttons keep their labels whole under the question (they were cut to
"Confirm: appro…" / "Can…", and the question said only "Approve 1 draft?")."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import InboxView

HOSTILE = "<img src=x onerror=alert(1)>\nline two"


def _paused(runs_dir: Path, n: int, tool: str = "fs.touch") -> list[str]:
    def agent(task: str, ctx: Any) -> Any:
        return ctx.tool(tool, {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

    return [noesis_nb.solve(f"task {i}", using=agent, runs_dir=runs_dir, approver="ask") for i in range(n)]


def test_the_question_names_the_drafts_it_asks_about(runs_dir: Path, comm_log: list) -> None:
    eps = _paused(runs_dir, 5)
    inbox = InboxView(runs_dir)
    rows = list(inbox.rows.values())
    for row in rows:
        row.check.value = True
    inbox.approve_selected.click()
    question = inbox.question.value
    assert question.startswith("<b>Approve 5 drafts?</b>"), question
    named = [row for row in rows if f"fs.touch in {row.item.episode_id}" in question]
    assert len(named) == 3, question  # the first few by name
    assert question.count(" in ep") == 3 and "and 2 more" in question, question
    assert {row.item.episode_id for row in rows} == set(eps)


def test_a_hostile_tool_name_is_escaped_in_the_question(runs_dir: Path, comm_log: list) -> None:
    """A draft crafted on disk (a run's files can say anything): its tool's name is shown escaped, one line."""
    [ep] = _paused(runs_dir, 1)
    [draft] = (runs_dir / ep / "tool_invocations" / "prepared").glob("*.json")
    record = json.loads(draft.read_text())
    record["tool"] = {"namespace": "fs", "name": HOSTILE, "version": None}
    draft.write_text(json.dumps(record))
    inbox = InboxView(runs_dir)
    [row] = inbox.rows.values()
    row.check.value = True
    inbox.reject_selected.click()
    question = inbox.question.value
    assert "<img" not in question and "\n" not in question and "&lt;img src=x" in question, question
    assert f" in {ep}</span>" in question and "more" not in question, question


def test_the_bar_wraps_and_keeps_its_buttons_whole(runs_dir: Path, comm_log: list) -> None:
    _paused(runs_dir, 1)
    inbox = InboxView(runs_dir)
    bar = inbox.confirm_box.layout
    assert "wrap" in (bar.flex_flow or ""), bar.flex_flow  # the buttons go under the question when narrow
    for button in (inbox.confirm_button, inbox.cancel_button):
        assert button.layout.flex == "0 0 auto"  # never shrunk below their label
        assert button.layout.max_width is None and button.layout.width in (None, "auto")
    question = inbox.question.layout
    assert question.min_width == "0" and question.max_width is None and question.width is None  # it wraps, not cut
