"""One pause, one wait: the header's '(+ … waiting for people)' and the tool step's 'approved by … (waited …)' are the
same span (the run's pause, interrupt to resume, as runs_df.waiting_s counts it) said with the same rounding. The
step counted from its draft's ask to its decision and said it in ms: '+ 0.4 s' above '(waited 368 ms)', '+ 7.0 s'
above '(waited 7.1 s)'."""

from __future__ import annotations

import html
import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.frames.waits import waiting_seconds
from noesis_nb.widgets.state import format_seconds
from tests.plots.test_duration_meaning import paused_then_approved


def test_the_header_and_the_tool_step_give_one_wait(tmp_path: Path, comm_log: list) -> None:
    runs = tmp_path / "runs"
    episode = paused_then_approved(runs)
    view: Any = noesis_nb.show(runs / episode)
    text = html.unescape(re.sub(r"<[^>]+>", "", view.snapshot_html()))
    header = re.findall(r"\(\+ ([^()]+) waiting for people\)", text)
    step = re.findall(r"approved by [^()]+\(waited ([^()]+)\)", text)
    waiting_s = noesis_nb.runs_df(runs).set_index("episode_id").loc[episode, "waiting_s"]
    assert header == step == [format_seconds(waiting_s)], (header, step, waiting_s)


def test_a_draft_asked_for_before_its_pause_says_the_pause(tmp_path: Path, comm_log: list) -> None:
    """The draft asked for half a second before the run paused (a live pause's checkpoint written late): the step's
    wait is still the pause the header counts, not its ask-to-decision time."""
    runs = tmp_path / "runs"
    episode = paused_then_approved(runs)
    log = runs / episode / "events.jsonl"
    events = [json.loads(line) for line in log.read_text().splitlines()]
    asked = next(i for i, e in enumerate(events) if e["payload"].get("event_name") == "tool.approval.pending")
    for event in events[: asked + 1]:
        event["timestamp"] = (datetime.fromisoformat(event["timestamp"]) - timedelta(seconds=0.5)).isoformat()
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    text = html.unescape(re.sub(r"<[^>]+>", "", noesis_nb.show(runs / episode).snapshot_html()))
    header = re.findall(r"\(\+ ([^()]+) waiting for people\)", text)
    step = re.findall(r"approved by [^()]+\(waited ([^()]+)\)", text)
    assert header == step == [format_seconds(waiting_seconds(events))], (header, step)
