"""render.py: escaping of hostile event text, flags, summaries (pure functions, no widgets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest

from noesis_nb.store.facts import usage_from_events
from noesis_nb.widgets import cards, render, snapshot
from noesis_nb.widgets.state import Tally, format_elapsed, format_tokens
from noesis_nb.widgets.stepview import format_seconds as step_seconds

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
RAW = ("<script", "<img", "onerror=alert(1)>")  # none may survive unescaped


def hostile_event(**extra: Any) -> dict[str, Any]:
    return {
        "id": IMG,
        "timestamp": "2025-01-01T12:00:00.123456+00:00",
        "episode_id": SCRIPT,
        "agent_id": IMG,
        "phase": SCRIPT,
        "caused_by": SCRIPT,
        "payload": {
            "event_name": IMG,
            "text": SCRIPT,
            IMG: SCRIPT,
            "nested": {SCRIPT: [IMG]},
            "status": SCRIPT,
            "message": IMG,
            "output": {"stdout": SCRIPT},
        },
        **extra,
    }


@dataclass(frozen=True)
class HostileDraft:
    draft_id: str = IMG
    request_id: str = "req"
    tool: str = SCRIPT
    protocol: str = IMG
    effect_kind: str = SCRIPT
    risk_tier: str = IMG
    redacted_payload: dict = field(default_factory=lambda: {IMG: SCRIPT, "argv": [SCRIPT, IMG]})
    command_line: str | None = None
    fingerprint: str = SCRIPT
    impact_hash: str | None = IMG
    requested_at: str = SCRIPT


def assert_clean(html: str) -> None:
    for raw in RAW:
        assert raw not in html, f"unescaped {raw!r} in {html[:300]}"
    assert "&lt;script&gt;" in html or "&lt;img" in html  # the text is shown, escaped


def test_live_row_escapes_every_field() -> None:
    html = render.row_html(hostile_event())
    assert_clean(html)
    assert 'class="nnb-p nnb-c-grey"' in html  # a hostile phase never becomes a class name


def test_snapshot_escapes_events_task_pending_and_decisions() -> None:
    tally = Tally(keep=10)
    tally.extend([hostile_event()])
    state = {
        "header": {
            "episode_id": IMG,
            "task": SCRIPT + IMG,
            "using": SCRIPT,
            "status": IMG,
            "elapsed": SCRIPT,
            "tokens": IMG,
            "cost": SCRIPT,
        },
        "recent": list(tally.recent),
        "total": 5,
        "pending": [HostileDraft(), HostileDraft(command_line=SCRIPT + " " + IMG)],
        "decisions": [{"draft_id": IMG, "status": SCRIPT, "approver_id": IMG, "decided_at": SCRIPT, "reason": IMG}],
    }
    html = snapshot.snapshot_html(state)
    assert_clean(html)
    assert "4 earlier events not shown" in html


@pytest.mark.parametrize("fn", [render.header_html])
def test_header_escapes(fn: Any) -> None:
    assert_clean(fn({"episode_id": IMG, "task": SCRIPT, "using": IMG, "status": SCRIPT}))


def test_pending_card_and_decision_escape() -> None:
    assert_clean(cards.pending_html(HostileDraft()))
    assert_clean(cards.pending_html(HostileDraft(command_line=f"rm -rf {SCRIPT}")))
    assert_clean(cards.decision_html({"status": SCRIPT, "approver_id": IMG, "decided_at": SCRIPT, "reason": IMG}))


def test_counts_and_runs_table_escape() -> None:
    assert_clean(render.counts_html(3, 3, {SCRIPT: 2, IMG: 1}, {"pause": 1, "veto": 0, "error": 0}))
    rows = [{"episode_id": IMG, "task": SCRIPT, "status": IMG, "using": SCRIPT, "started_at": IMG, "sealed": True}]
    assert_clean(snapshot.runs_table_html(rows))


def test_command_line_shown_instead_of_payload() -> None:
    html = cards.pending_html(HostileDraft(command_line="git push origin main", redacted_payload={"argv": ["git"]}))
    assert "$ git push origin main" in html


@pytest.mark.parametrize(
    ("event", "flag"),
    [
        ({"phase": "tool", "payload": {"event_name": "tool.approval.pending"}}, "pause"),
        ({"phase": "runtime", "event_type": "run.checkpoint", "payload": {"status": "paused"}}, "pause"),
        ({"phase": "governance", "payload": {"decision": "veto"}}, "veto"),
        ({"phase": "terminate", "payload": {"status": "vetoed"}}, "veto"),
        ({"phase": "tool", "payload": {"event_name": "tool.rejected.governance"}}, "veto"),
        ({"phase": "tool", "payload": {"event_name": "tool.execution.failed"}}, "error"),
        ({"phase": "terminate", "payload": {"status": "error"}}, "error"),
        ({"phase": "error", "payload": {}}, "error"),
        ({"phase": "model", "payload": {"event_name": "model.call"}}, None),
    ],
)
def test_flags(event: dict[str, Any], flag: str | None) -> None:
    assert render.event_flag(event) == flag


def test_names_times_and_short_payloads() -> None:
    event = {
        "phase": "model",
        "timestamp": "2025-01-01T09:08:07.654321+00:00",
        "payload": {"event_name": "model.call", "model": "m", "input_tokens": 3, "text": "x" * 500},
    }
    assert render.event_name(event) == "model.call"
    local = datetime.fromisoformat("2025-01-01T09:08:07.654321+00:00").astimezone()
    assert render.event_time(event) == local.strftime("%H:%M:%S.654")  # the kernel's local time, as cards show it
    # a call's output count it did not report is said unknown, as its step says it, never left out
    assert render.short_payload(event) == "model=m text=" + "x" * 59 + "… input_tokens=3 output_tokens=—"
    long = render.short_payload({"payload": {"blob": "y" * 1000}}, limit=50)
    assert len(long) == 50 and long.endswith("…")
    assert render.event_name({"phase": "runtime", "event_type": "run.resume", "payload": {}}) == "run.resume"


def test_expanded_row_is_cut_but_says_where_the_rest_is() -> None:
    html = render.row_html({"phase": "act", "payload": {"blob": "z" * 10_000}}, detail_limit=500)
    assert "more characters; the whole event is in events.jsonl" in html
    assert len(html) < 1500


def test_text_summary_is_stable() -> None:
    assert snapshot.text_summary("EpisodeHandle", "ok", 23, 0) == "EpisodeHandle(status='ok', events=23, pending=0)"


def test_usage_and_formatting() -> None:
    events = [
        {
            "phase": "model",
            "payload": {"event_name": "model.call", "model": "m", "provider": "p", "input_tokens": 100, "output_tokens": None},
        },
        {
            "phase": "model",
            "payload": {"event_name": "model.call", "model": "m", "provider": "p", "input_tokens": 5, "output_tokens": 7},
        },
        {"phase": "act", "payload": {}},
        {"phase": "model", "payload": {"text": "not a call", "input_tokens": 9}},  # usage_df counts model.call events only
    ]
    totals, calls = usage_from_events(events)
    assert totals["model_calls"] == 2 and totals["input_tokens"] == 105
    assert calls[0]["output_tokens"] is None and totals["output_tokens"] is None  # unknown stays unknown, not 7
    assert format_tokens(totals) == "105 in · — out (2 calls)"  # one call's output is unknown: so is the total
    one, _ = usage_from_events(events[1:])  # one call, and a model event that is none
    assert format_tokens(one) == "5 in · 7 out (1 call)"  # not "(1 calls)"
    assert format_tokens({"model_calls": 0}) == "—"
    assert format_elapsed(100.0, 112.5, "ok") == "12.5 s"
    assert format_elapsed("2025-01-01T00:00:00+00:00", "2025-01-01T00:02:03+00:00", "ok") == "2 min 03.0 s"
    assert format_elapsed(None, None, "running") == "—"


def test_long_durations_read_in_hours_and_days() -> None:
    """A run left running (a crafted or abandoned one, started long ago) once read "running time 1011872 min 47.9 s"."""
    assert format_elapsed("2025-01-01T00:00:00+00:00", "2025-01-01T02:05:00+00:00", "ok") == "2 h 05 min"
    assert format_elapsed("2025-01-01T00:00:00+00:00", "2026-12-04T08:00:00+00:00", "ok") == "702 d 8 h"
    assert format_elapsed("2025-01-01T00:00:00+00:00", "2025-01-01T00:59:59.900000+00:00", "ok") == "59 min 59.9 s"
    assert step_seconds(0.25) == "250 ms" and step_seconds(97_200) == "1 d 3 h"  # a step's own durations alike


def test_counts_line_counts_pauses_and_flagged_events() -> None:
    """Pauses are counted as pauses (``Tally`` counts one however many events it writes); vetoes and errors as events."""
    line = render.counts_html(19, 5, {"tool": 8, "runtime": 2}, {"pause": 1, "veto": 1, "error": 0})
    assert "‖ 1 pause · ⊘ 1 veto event · full log in events.jsonl" in line
    assert "paused" not in line and "error" not in line
    assert "‖ 2 pauses · ✖ 3 error events" in render.counts_html(9, 2, {}, {"pause": 2, "veto": 0, "error": 3})
