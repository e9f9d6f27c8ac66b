"""What an inbox's tick box and a decided card say name the tool and the task, not ids.

A tick box was named ``select the fs.sync draft draft:ep_…:req_… of ep_…`` (two ids of 30 characters a screen reader
reads out at each box), and a decided card's disclosure read ``what fs.sync asked (draft draft:ep_…:req_…)``. They
now say the tool, the run's task and when it was asked; the ids stay in the details."""

from __future__ import annotations

import re
import sys
from html import unescape
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import InboxView
from noesis_nb.widgets.cards import pending_html


def _syncer(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.sync", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_a_tick_box_and_a_decided_card_name_the_tool_and_task(runs_dir: Path, comm_log: list) -> None:
    episode = noesis_nb.solve("sync the build", using=_syncer, runs_dir=runs_dir, approver="ask")
    view = InboxView(runs_dir, approver_id="ana")
    view.refresh()
    (row,) = view.rows.values()
    name = row.check.description
    assert re.fullmatch(r"select the fs\.sync draft …\w{6} of “sync the build”, asked at \d\d:\d\d:\d\d\.\d{3}", name), name
    assert str(episode) not in name and "draft:" not in name and name.count("draft") == 1
    row.decide(True)
    decided = pending_html(row.pending, row.decision)  # what the run's own card shows once decided
    view.close()
    (summary,) = [_text(s) for s in re.findall(r"<summary>(.*?)</summary>", decided, flags=re.S)]
    assert re.fullmatch(r"what fs\.sync asked at \d\d:\d\d:\d\d\.\d{3} \(draft …\w{6}\)", summary), summary
    assert row.pending.draft_id in _text(decided)  # the id is still there, among the details
