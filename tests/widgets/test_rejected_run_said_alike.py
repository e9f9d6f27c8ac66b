"""A run a rejected tool call ended is ``vetoed`` on disk (Noēsis' word, with reason ``tool_rejected``); its episode
view says "rejected". The other places that name how a run ended said "vetoed" for it: the notice a view shows once
its kernel is gone ("The run ended vetoed"), the batch grid's badge and counts, ``%noesis show --text``'s status line.
Each now says what the view says, by the view's one rule; a governance veto still reads "vetoed" everywhere, and the
tables (``runs_df``) keep the status as stored."""

from __future__ import annotations

import asyncio
import re
import sys
from html import unescape
from pathlib import Path
from typing import Any

from IPython.utils.capture import capture_output

import noesis_nb
from noesis_nb.widgets import batch_view
from noesis_nb.widgets.view import EpisodeView


async def _agent(task: str, ctx: Any) -> Any:
    if "write" in task:  # the approver policy rejects it: the run ends vetoed, reason tool_rejected
        return await ctx.tool_async("fs.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return "done"


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_a_rejected_run_reads_rejected_in_the_grid_the_stale_notice_and_show_text(runs_dir: Path, ip: Any) -> None:
    async def main() -> Any:
        b = noesis_nb.batch(["write it", "read it"], using=_agent, root=runs_dir, approver="deny")
        view = batch_view(b)
        await b
        view.flush()
        return b, view

    b, view = asyncio.run(main())
    rejected, plain = sorted(b.entries, key=lambda e: e.index)
    assert (rejected.status, plain.status) == ("vetoed", "ok")  # the batch's own record: the run's status as stored
    # the README's way to pick the runs the views call rejected out of runs_df
    runs = noesis_nb.runs_df(runs_dir, columns=[noesis_nb.frames.Column("reasons", path="summary.x-noesis_nb.reasons")])
    assert runs.set_index("episode_id").loc[rejected.episode_id, "status"] == "vetoed"
    picked = runs[runs.status.eq("vetoed") & runs.reasons.map(lambda r: "tool_rejected" in (r or []))]
    assert list(picked.episode_id) == [rejected.episode_id]

    header = _text(view.header.value)
    assert "rejected 1" in header and "vetoed" not in header, header
    (line,) = [s.line.value for s in view._slots if s.entry is rejected]
    assert " rejected " in _text(line) and "vetoed" not in line, line

    episode = EpisodeView(noesis_nb.show(rejected.episode_id, runs_dir=runs_dir).source)
    episode.flush()
    notice = _text(episode.stale.value)  # shown once the kernel is gone
    assert "The run ended rejected" in notice and "vetoed" not in notice, notice

    with capture_output() as captured:
        ip.run_line_magic("noesis", f"show {rejected.episode_id} --runs-dir {runs_dir} --text")
    assert "status: rejected" in captured.stdout and "status: vetoed" not in captured.stdout, captured.stdout[-400:]


def test_a_governance_veto_still_reads_vetoed_there(runs_dir: Path, ip: Any) -> None:
    episode = noesis_nb.solve("destroy the staging copy", using=lambda task: "done", runs_dir=runs_dir, governance="enforce")
    view = EpisodeView(noesis_nb.show(episode, runs_dir=runs_dir).source)
    view.flush()
    assert "The run ended vetoed" in _text(view.stale.value)
    with capture_output() as captured:
        ip.run_line_magic("noesis", f"show {episode} --runs-dir {runs_dir} --text")
    assert "status: vetoed" in captured.stdout
