"""A live episode (``start``, a batch) whose adapter walks away from tool calls still awaiting approval
(``asyncio.wait`` with a timeout, nothing cancelled) ends paused, as ``solve`` does: the handle reads ``paused``,
``wait()`` returns, the calls left waiting are cancelled cleanly, and a decision through the handle is written on disk
for ``resume_run`` (a batch continues the run from disk once decided)."""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path
from typing import Any

import noesis_nb
from tests.compat.checker import check_run

written: list[str] = []


def _write(text: str) -> str:
    written.append(text)
    return text


def _call(ctx: Any, name: str) -> Any:
    return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_write, effect="write", risk="high")


async def _walks_away(task: str, ctx: Any) -> str:
    calls = [asyncio.ensure_future(_call(ctx, "a")), asyncio.ensure_future(_call(ctx, "b"))]  # b held behind a's pause
    done, _ = await asyncio.wait(calls, timeout=0.2)
    return f"went on with {len(done)} done"


async def _until(check: Any) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


def _errors_of(loop: asyncio.AbstractEventLoop) -> list[dict[str, Any]]:
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: errors.append(context))
    return errors


def test_a_live_episode_whose_adapter_walks_away_from_its_approvals_ends_paused(runs_dir: Path) -> None:
    written.clear()

    async def main() -> None:
        errors = _errors_of(asyncio.get_running_loop())
        handle = noesis_nb.start("two notes", _walks_away, runs_dir=runs_dir, approver="ask")
        await _until(lambda: handle.ended_paused)
        assert handle.status == "paused" and sorted(p.tool for p in handle.pending) == ["notes.a", "notes.b"]
        for pending in handle.pending:
            handle.approve(pending.draft_id, approver_id="ana")
        await asyncio.wait_for(handle.wait(), 10)  # returns: nothing in this process continues the run
        assert handle.status == "paused" and handle.pending == []
        assert any("ended while its run was paused" in p for p in handle.problems)
        for _ in range(5):
            await asyncio.sleep(0)
        gc.collect()  # a task left with an exception would be reported now
        assert errors == []

    asyncio.run(main())
    assert written == []  # nothing ran in the episode
    (run,) = runs_dir.iterdir()
    decisions = [json.loads(p.read_text()) for p in (run / "tool_invocations" / "approvals").glob("*.json")]
    assert sorted((d["status"], d["approver_id"]) for d in decisions) == [("approved", "ana")] * 2
    assert check_run(run) == []
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert sorted(written) == ["a", "b"]
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert check_run(run) == []


def test_a_batch_episode_whose_adapter_walks_away_from_its_approvals_is_continued_from_disk(tmp_path: Path) -> None:
    written.clear()

    async def main() -> None:
        errors = _errors_of(asyncio.get_running_loop())
        batch = noesis_nb.batch(["two notes"], _walks_away, root=tmp_path, approver="ask")
        (entry,) = batch.entries
        await _until(lambda: entry.handle is not None and entry.handle.ended_paused)
        await asyncio.wait_for(batch, 10)
        assert batch.counts() == {"paused": 1}
        assert sorted(p.tool for _, p in batch.pending()) == ["notes.a", "notes.b"]
        for pending in list(entry.handle.pending):  # as the batch inbox's Approve does
            entry.handle.approve(pending.draft_id, approver_id="ana")
        await asyncio.wait_for(batch.wait(), 20)  # the batch continues the decided run from disk (resume_run)
        assert batch.counts() == {"ok": 1}
        gc.collect()
        assert errors == []

    asyncio.run(main())
    assert sorted(written) == ["a", "b"]
    (run,) = [d for d in tmp_path.iterdir() if d.is_dir() and (d / "events.jsonl").exists()]
    assert check_run(run) == []
