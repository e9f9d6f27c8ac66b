"""A steer sent right after ``start()`` returned, before the episode's task took its first step, comes after the
run's ``start`` event: every reader takes the log's first line for the run's head (its task, seed and adapter)."""

from __future__ import annotations

import asyncio

import noesis_nb
from noesis_nb.store import read_events

from ..compat.checker import check_run


def test_a_steer_sent_before_the_first_step_comes_after_start(runs_dir):
    async def agent(task, ctx):
        return [str(s) for s in ctx.steers()]

    async def main():
        handle = noesis_nb.start("the task", using=agent, runs_dir=runs_dir)
        handle.steer("use staging", sender="human")  # the episode's task has not run yet
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.result() == ["use staging"]  # the agent got the steer
    phases = [e["phase"] for e in read_events(handle.run_dir / "events.jsonl")]
    assert phases[0] == "start" and phases.count("start") == 1
    assert phases.index("steer") > 0
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[handle.episode_id]
    assert row["task"] == "the task" and row["status"] == "ok"
    assert check_run(handle.run_dir) == []
