"""The timeline's approvals row reads tool lines only, as tools_df and the view's badge do."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb import plots
from noesis_nb.frames import clear_cache, events_df, tools_df

from ..frames.runkit import writer_adapter


def _notes_named_like_approvals(task: str, ctx: Any) -> Any:
    ctx.emit("note", {"event_name": "tool.approval.pending", "text": "my own note"})
    ctx.emit("note", {"event_name": "tool.approved", "text": "my own note"})
    return writer_adapter(task, ctx)


def test_a_note_named_like_an_approval_is_no_approval_mark(tmp_path: Path) -> None:
    clear_cache()
    runs = tmp_path / "runs"
    with contextlib.redirect_stdout(io.StringIO()):
        episode = noesis_nb.solve("write a file", using=_notes_named_like_approvals, runs_dir=runs, approver="auto")
    events = events_df(runs)
    assert len(tools_df(runs)) == 1
    fig = plots.episode_timeline(events, episode)
    marks = {t.name: [row[1] for row in t.customdata] for t in fig.data if t.type == "scatter"}
    tool_names = events[(events["episode_id"] == episode) & (events["phase"] == "tool")]["event_name"].tolist()
    # the one approval the tool line says was given is marked once; the notes so named are not
    assert marks.get("approved", []) == [n for n in tool_names if n == "tool.approved"]
    assert marks.get("approval pending", []) == [n for n in tool_names if n == "tool.approval.pending"]
