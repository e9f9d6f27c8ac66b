"""What the views say in words a newcomer reads, while the stored events keep their Noēsis names."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import read_events
from noesis_nb.widgets import cards, render
from noesis_nb.widgets.controls import StopControls
from noesis_nb.widgets.snapshot import timeline_text
from noesis_nb.widgets.state import Tally
from noesis_nb.widgets.steps import group_steps
from noesis_nb.widgets.stepview import StepFacts, plan_words, summary_html


def run_with_tool(runs_dir: Path, approver: str) -> tuple[str, list[dict[str, Any]]]:
    async def agent(task: str, ctx: Any) -> Any:
        out = await ctx.tool_async("git.tag@1", {"argv": [sys.executable, "-c", "print('tagged')"]}, effect="write", risk="high")
        return out["returncode"]

    episode = noesis_nb.solve("tag the release", using=agent, runs_dir=runs_dir, approver=approver)
    if approver == "ask":
        noesis_nb.approve_draft(episode, runs_dir=runs_dir, approver_id="ana")
        noesis_nb.resume_run(episode, runs_dir=runs_dir)
    return episode, read_events(runs_dir / episode / "events.jsonl")


def counts_line(events: list[dict[str, Any]]) -> str:
    tally = Tally()
    tally.extend(events)
    return render.counts_html(tally.total, 5, tally.counts, tally.flags)


def test_an_auto_approved_tool_claims_no_pause_and_names_no_policy_id(runs_dir: Path) -> None:
    _, events = run_with_tool(runs_dir, "auto")
    assert any((e.get("payload") or {}).get("event_name") == "tool.approval.pending" for e in events)  # asked, at once answered
    line = counts_line(events)
    assert "‖" not in line and "pause" not in line
    tool = next(s for s in group_steps(events) if s.kind == "tool")
    decision = {"status": "approved", "approver_id": "policy:auto", "reason": "approved by approver policy 'auto'"}
    summary = summary_html(tool, StepFacts(decisions={tool.draft_id: decision}))
    assert "approved automatically by the approver policy &#x27;auto&#x27;" in summary
    assert "policy:auto" not in summary and "waited" not in summary  # nobody waited for a policy
    words = cards.decision_words({**decision, "decided_at": "2025-01-01T12:00:00+00:00"})
    assert words.startswith("approved automatically by the approver policy 'auto' at ") and "—" not in words  # no echo


def test_a_pause_for_a_person_counts_once(runs_dir: Path) -> None:
    _, events = run_with_tool(runs_dir, "ask")
    assert "‖ 1 pause ·" in counts_line(events)  # approval pending, interrupt and checkpoint: one pause
    tool = next(s for s in group_steps(events) if s.kind == "tool")
    decided = StepFacts(decisions={tool.draft_id: {"status": "approved", "approver_id": "ana"}})
    assert "approved by ana" in summary_html(tool, decided)


def test_the_opening_step_tells_the_plan_without_stored_prefixes(runs_dir: Path) -> None:
    _, events = run_with_tool(runs_dir, "auto")
    plan = next(e for e in events if e["phase"] == "plan")
    assert plan["payload"]["steps"] == ["act:Execute goal: tag the release"]  # the stored plan is unchanged
    opening = summary_html(group_steps(events)[0])
    assert "task tag the release" in opening and "act:" not in opening and "Execute goal" not in opening
    assert plan_words(["act:Outline the note", "act:Write it"], "note") == "plan: 1. Outline the note; 2. Write it"
    assert plan_words(["act:Execute goal: deploy"], None) == "plan: deploy"


def test_proposals_are_called_so_and_stay_action_candidate_on_disk(runs_dir: Path) -> None:
    _, events = run_with_tool(runs_dir, "auto")
    candidates = [e for e in events if e["phase"] == "action_candidate"]
    assert candidates
    text = timeline_text(events)
    assert "action_candidate " not in text and " proposal " in text
    row = render.row_html(candidates[0])
    assert ">proposal</span>" in row and 'title="stored as phase action_candidate"' in row
    assert "proposal" in counts_line(events) and "action_candidate" not in counts_line(events)


def test_stopping_gracefully_says_calls_already_running() -> None:
    button = StopControls(lambda _s: None, drain_s=10).drain_button
    assert button.description == "Stop when calls finish (≤ 10 s)" and "in flight" not in button.tooltip
    step = group_steps([{"phase": "drain", "timestamp": "2025-01-01T12:00:00+00:00", "payload": {"drain_s": 5}}])[0]
    line = summary_html(step)
    assert "calls already running get ≤ 5 s to finish" in line and "in-flight" not in line
