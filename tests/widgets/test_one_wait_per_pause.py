"""One pause, one wait: the header's '(+ … waiting for people)' and the tool step's 'approved by … (waited …)' are the
same span (the run's pause, interrupt to resume, as runs_df.waiting_s counts it) said with the same rounding. The
step counted from its draft's ask to its decision and said it in ms: '+ 0.4 s' above '(waited 368 ms)', '+ 7.0 s'
above '(waited 7.1 s)'."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import noesis_nb
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
