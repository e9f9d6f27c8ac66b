"""A graceful stop asked right after ``start()`` returned, before the episode's task took its first step: the run's
``start`` event is still the log's first line (every reader takes it for the run's head), once, and the drain's
events come after it."""

from __future__ import annotations

import asyncio
import threading

import pytest

import noesis_nb
from noesis_nb.store import read_events

from ..compat.checker import check_run


async def _agent(task, ctx):
    await asyncio.sleep(0.05)
    return "done"


def _phases(handle):
    events = read_events(handle.run_dir / "events.jsonl")
    return [(e["phase"], e["payload"].get("event_name")) for e in events]


@pytest.mark.parametrize("how", ["await handle.stop(drain_s)", "handle.cancel(drain_s) from another thread"])
def test_a_drain_before_the_first_step_comes_after_start(runs_dir, how):
    async def main():
        handle = noesis_nb.start("the task", using=_agent, runs_dir=runs_dir)
        if how.startswith("await"):
            report = await handle.stop(drain_s=2.0)  # the episode's task has not run yet
        else:
            stopper = threading.Thread(target=handle.cancel, kwargs={"drain_s": 2.0})
            stopper.start()
            stopper.join()
            await handle  # returns once the episode has ended
            report = handle.drain_report
        return handle, report

    handle, report = asyncio.run(main())
    phases = _phases(handle)
    assert phases[0] == ("start", None) and [p for p, _ in phases].count("start") == 1
    assert phases.index(("drain", "drain.started")) > 0
    assert ("drain", "drain.report") in phases and report is not None
    row = noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[handle.episode_id]
    assert row["task"] == "the task" and row["status"] == "cancelled"
    assert check_run(handle.run_dir) == []
