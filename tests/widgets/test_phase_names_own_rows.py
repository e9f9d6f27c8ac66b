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


def _compare_runs(root: Path) -> None:
    from tests.frames.runkit import event, write_run

    t = [f"2025-03-01T10:00:{s:02d}+00:00" for s in range(0, 60, 5)]
    tool = {"event_name": "tool.requested", "tool": "fs.write", "request_id": "req_1"}
    done = {"event_name": "tool.execution.succeeded", "tool": "fs.write", "request_id": "req_1"}
    runs = {
        # a: a real call of fs.write, just after a phase named like that call's step (with its request id)
        "ep_cmp_tool": [("start", {"task": "t"}), ("tool:fs.write|req_1", {}), ("tool", tool), ("tool", done)],
        # b: no tool call, only phases named like a tool step, a model step and an unknown phase
        "ep_cmp_named": [("start", {"task": "t"}), ("tool:fs.write", {}), ("model:gpt-4o", {}), ("?", {})],
    }
    for ep, rows in runs.items():
        events = [event(ep, i, phase, payload, ts=t[i]) for i, (phase, payload) in enumerate(rows)]
        events.append(event(ep, len(rows), "terminate", {"status": "ok"}, ts=t[len(rows)]))
        summary = {"episode_id": ep, "task": "t", "status": "ok", "started_at": t[0], "duration_sec": 20.0}
        write_run(root, ep, events, summary=summary)


def test_user_phases_never_align_with_a_call_in_the_comparison(tmp_path: Path) -> None:
    from noesis_nb.plots import compare_steps

    _compare_runs(tmp_path / "runs")
    events = noesis_nb.events_df(tmp_path / "runs")
    table = compare_steps(events, "ep_cmp_tool", "ep_cmp_named")
    rows = dict(zip(table["step"], zip(table["seconds_a"], table["seconds_b"])))
    a_only = [step for step, (a, b) in rows.items() if a == a and b != b]  # NaN where a side lacks the step
    b_only = [step for step, (a, b) in rows.items() if b == b and a != a]
    assert any(step.startswith("tool:fs.write") for step in a_only), rows  # the call: only in a
    assert len([s for s in a_only if "fs.write" in s]) == 2, rows  # the phase before it is a step of its own
    assert len([s for s in b_only if "fs.write" in s or "gpt-4o" in s]) == 2, rows  # b's phases align with nothing
    assert not any(step.startswith(("tool:", "model:")) for step in b_only), rows
