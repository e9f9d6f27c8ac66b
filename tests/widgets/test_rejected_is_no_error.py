"""A tool call a person rejects ends the episode ``vetoed`` (Noēsis' word): its events read as a veto, none as an error.
The view said "⊘ 3 veto events · ✖ 1 error event" of a run where nothing failed: the act carrying the adapter's
``ToolRejected`` was flagged an error. An adapter that fails still reads as one."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets.render import event_flag


async def _writes(task: str, ctx: Any) -> Any:
    return await ctx.tool_async("fs.write", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


def _flags(run_dir: Path) -> Counter[str | None]:
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    return Counter(event_flag(e) for e in events)


def test_a_person_rejecting_a_tool_reads_as_a_veto_not_an_error(runs_dir: Path) -> None:
    async def main() -> Path:
        handle = noesis_nb.start("write it", using=_writes, runs_dir=runs_dir)
        while handle.status != "paused":
            await asyncio.sleep(0.02)
        handle.reject(reason="not now")
        await handle
        assert handle.status == "vetoed"
        return handle.run_dir

    flags = _flags(asyncio.run(main()))
    assert flags["error"] == 0 and flags["veto"] >= 3, flags


def test_an_adapter_that_fails_still_reads_as_an_error(runs_dir: Path) -> None:
    def fails(task: str) -> str:
        raise RuntimeError("the disk is full")

    episode = noesis_nb.solve("fail", using=fails, runs_dir=runs_dir)
    assert _flags(runs_dir / episode)["error"] >= 1
