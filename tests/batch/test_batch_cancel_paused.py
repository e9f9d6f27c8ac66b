"""``batch.cancel()`` with episodes paused for a person, running and queued: each paused one leaves its pause (a
``run.resume`` saying why) before its run is sealed ``cancelled``, so Noēsis derives every sealed run as ended, not
paused; ``counts()`` tells the entries cancelled before they started (``not_started``) from the episodes stopped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import read_events, read_json
from tests.compat.checker import check_run


def _note(text: str) -> str:
    return text


async def writer(task: str, ctx: Any) -> Any:
    return await ctx.tool_async("notes.w", {"args": [task]}, protocol="python", fn=_note, effect="write", risk="high")


async def slow(task: str, ctx: Any) -> Any:
    await asyncio.sleep(30)
    return task


def test_cancel_leaves_each_pause_before_sealing_and_counts_the_unstarted_apart(runs_dir: Path) -> None:
    async def main() -> Any:
        b = noesis_nb.batch([f"t{i}" for i in range(3)], using={"w": writer, "s": slow}, concurrency=2, root=runs_dir)
        for _ in range(1000):
            if b.counts().get("paused") == 2 and b.counts().get("running") == 2:
                break
            await asyncio.sleep(0.01)
        assert b.counts() == {"paused": 2, "running": 2, "queued": 2}
        b.cancel()
        await asyncio.wait_for(b.wait(), 30)
        return b

    b = asyncio.run(main())
    assert b.counts() == {"cancelled": 4, "not_started": 2}
    runs = sorted(p for p in runs_dir.iterdir() if p.name.startswith("ep_"))
    assert len(runs) == 4
    for run in runs:
        assert read_json(run / "final.json")["outcome"] == "cancelled"
        assert check_run(run) == []
    paused = [e.run_dir for e in b.entries if e.adapter == "w" and e.run_dir is not None]
    assert len(paused) == 2
    for run in paused:
        events = read_events(run / "events.jsonl")
        kinds = [e.get("event_type") or e["phase"] for e in events]
        at = kinds.index("terminate")
        assert kinds[at - 2 : at] == ["run.checkpoint", "run.resume"]
        assert events[at - 1]["payload"]["reason"].startswith("closed while paused")
