"""A batch grid line's time is its episode's running time, as the episode view's header says it (``runs_df``'s
``duration_s - waiting_s``): counted from the run's own start, not from when the batch handed the entry to the loop
(a loop busy elsewhere delayed the run's start, and the grid said 0.3 s for a run of a few milliseconds)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets.batchgrid import BatchFigures
from noesis_nb.widgets.state import Tally, format_seconds, view_state


async def _quick(task: str, ctx: Any) -> int:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=100, output_tokens=10)
    return 1


def test_a_grid_line_says_its_runs_running_time_not_the_entrys_wall_clock(runs_dir: Path) -> None:
    async def main() -> Any:
        b = noesis_nb.batch(["t1"], using=_quick, root=runs_dir, concurrency=1)
        while b.entries[0].started_at is None:  # handed to the loop: the run begins at the loop's next turn
            await asyncio.sleep(0)
        time.sleep(0.3)  # the notebook's loop busy with something else meanwhile: the run begins late
        await b.wait()
        return b

    b = asyncio.run(main())
    entry = b.entries[0]
    figures = BatchFigures()
    figures.update(b.entries)
    row = noesis_nb.runs_df(runs_dir).iloc[0]
    assert row["status"] == "ok" and row["waiting_s"] == 0.0
    said = figures.time_text(entry)
    assert said == format_seconds(row["duration_s"]), (said, row["duration_s"])
    run = noesis_nb.DiskRun(entry.run_dir)
    tally = Tally()
    tally.extend(run.events)
    assert said == view_state(run, tally)["header"]["elapsed"]  # the episode view's header, word for word
