"""An adapter may name its phases anything, including the names the views use for their own rows and words:
the figure's marker rows (``approvals``, ``pauses``) and the live view's renamed phase (``proposal`` for
``action_candidate``). A user's phase keeps a row and a label of its own, never shared with the view's."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.plots import episode_timeline
from noesis_nb.widgets import EpisodeView

PHASES = ["approvals", "pauses", "proposal", "'proposal'", "<i>approvals</i>", "marks"]


def _agent(marker: Path, argv: list[str]) -> Any:
    async def agent(task: str, ctx: Any) -> Any:
        for phase in PHASES:
            ctx.emit(phase, {"text": f"the adapter's own {phase} phase"})
        return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")

    return agent


def _run(runs_dir: Path, tmp_path: Path, nnb: Any) -> tuple[str, EpisodeView]:
    argv = nnb.side_effect_argv(tmp_path / "marker.txt")

    async def main() -> tuple[str, EpisodeView]:
        handle = noesis_nb.start("a task", using=_agent(tmp_path, argv), runs_dir=runs_dir)
        view = EpisodeView(handle, rows=200)
        await nnb.until(lambda: handle.status == "paused", timeout=20)
        handle.approve(approver_id="ana")
        await handle
        await nnb.until(lambda: view.settled is not None, timeout=10)
        view.mode.value = "events"
        view.flush()
        return handle.episode_id, view

    return asyncio.run(main())


def test_user_phases_never_share_the_figures_marker_rows(runs_dir: Path, tmp_path: Path, nnb: Any) -> None:
    episode_id, _view = _run(runs_dir, tmp_path, nnb)
    fig = episode_timeline(noesis_nb.events_df(runs_dir), episode_id)
    bars = [t for t in fig.data if t.type == "bar"]
    marks = [t for t in fig.data if t.type == "scatter"]
    assert {t.name for t in marks} >= {"approval pending", "approved", "interrupt", "resumed"}  # the run paused
    bar_rows = {y for t in bars for y in t.y}
    mark_rows = {y for t in marks for y in t.y}
    assert len(mark_rows) == 2 and not bar_rows & mark_rows, (bar_rows, mark_rows)
    for phase in ("approvals", "pauses"):  # the user's phase has its bar, on its own row
        assert any(t.name == phase for t in bars)
    rows = list(fig.layout.yaxis.categoryarray)
    assert len(rows) == len(set(rows)) and mark_rows <= set(rows) and bar_rows <= set(rows)
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))
    shown = [ticks[row] for row in rows]
    assert len(shown) == len(set(shown)), shown  # and every row reads apart


def test_user_phases_never_read_as_the_views_renamed_phase(runs_dir: Path, tmp_path: Path, nnb: Any) -> None:
    _episode_id, view = _run(runs_dir, tmp_path, nnb)
    stored = {str(e.get("phase")) for e in view.source.events}
    assert {"action_candidate", "proposal", "'proposal'"} <= stored
    rows = "".join(str(child.value) for child in view.timeline.widgets() if hasattr(child, "value"))
    labels = set(re.findall(r'<span class="nnb-p [^"]*"[^>]*>([^<]*)</span>', rows))
    assert len(labels) == len(stored), (sorted(labels), sorted(stored))  # one label per stored phase, none shared
