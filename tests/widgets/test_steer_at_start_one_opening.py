"""A steer sent as a run starts (``handle.steer`` right after ``start``: its ``steer.sent`` lands between the
lifecycle's ``start`` and ``observe``) is a step of its own, and the run's opening stays one step: the view and each
side of a replay comparison showed two steps called "start" for one run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import read_events
from noesis_nb.widgets.steps import group_steps
from noesis_nb.widgets.stepview import step_title


def _steered_at_start(runs_dir: Path) -> Any:
    async def listener(task: str, ctx: Any) -> str:
        heard = await ctx.next_steer_async(timeout=30)
        return f"heard {heard.text}"

    async def main() -> Any:
        handle = noesis_nb.start("listen", using=listener, runs_dir=runs_dir)
        handle.steer("use staging")  # before the episode's task has run a line: as the run starts
        await handle
        return handle

    return asyncio.run(main())


def test_a_steer_sent_as_the_run_starts_leaves_one_start_step(runs_dir: Path) -> None:
    handle = _steered_at_start(runs_dir)
    events = list(read_events(Path(handle.run_dir) / "events.jsonl"))
    phases = [e.get("phase") for e in events]
    # the case itself: the steer was recorded inside the lifecycle's opening
    assert phases.index("start") < phases.index("steer") < phases.index("observe"), phases
    titles = [step_title(step) for step in group_steps(events)]
    assert titles.count("start") == 1, titles
    opening = next(s for s in group_steps(events) if s.kind == "opening")
    assert [e.get("phase") for e in opening.events][:4] == ["start", "observe", "interpret", "plan"]
    assert titles.count("steer") == 1, titles


def test_the_replay_of_such_a_run_shows_one_start_step_at_every_moment(runs_dir: Path) -> None:
    handle = _steered_at_start(runs_dir)
    view = noesis_nb.replay(handle.episode_id, runs_dir=runs_dir)
    for k in range(1, view.total + 1):
        view.seek(k)
        view.view.flush()
        shown = [step_title(row.step) for row in view.view.steps.rows() if row.step is not None]
        assert shown.count("start") <= 1, (k, shown)
