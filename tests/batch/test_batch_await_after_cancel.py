"""``batch.cancel(); await batch`` as ``handle.cancel(); await handle``: the live paused episodes the cancel ends are
waited for, so the counts ``await`` leaves are the ones on disk (not ``paused``), and ``pending()`` offers no draft
of a run being cancelled, from the cancel on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import read_json


def _note(text: str) -> str:
    return text


async def agent(task: str, ctx: Any) -> Any:
    if task.startswith("w"):
        return await ctx.tool_async("notes.w", {"args": [task]}, protocol="python", fn=_note, effect="write", risk="high")
    return task


def test_await_after_cancel_leaves_the_paused_episodes_cancelled(tmp_path: Path) -> None:
    async def main() -> tuple[Any, dict[str, int], int, dict[str, int]]:
        b = noesis_nb.batch(["a", "w1", "w2", "b"], using=agent, runs_dir=tmp_path, batch_id="c", concurrency=2)
        await b  # every entry ended or paused
        before = b.counts()
        assert before == {"ok": 2, "paused": 2} and len(b.pending()) == 2
        b.cancel()
        offered = len(b.pending())  # drafts of runs being cancelled: none
        await asyncio.wait_for(b, 30)
        after = b.counts()
        await asyncio.wait_for(b.wait(), 30)
        return b, after, offered, b.counts()

    b, after, offered, settled = asyncio.run(main())
    assert offered == 0 and b.pending() == []
    assert after == settled == {"ok": 2, "cancelled": 2}
    for entry in b.entries:  # each entry's status is its run's, as sealed on disk
        outcome = read_json(Path(entry.run_dir) / "final.json")["outcome"]
        assert (entry.status, outcome) in {("ok", "success"), ("cancelled", "cancelled")}, (entry.status, outcome)
