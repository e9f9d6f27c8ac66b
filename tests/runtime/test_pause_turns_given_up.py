"""A live episode's tool call given up (its task cancelled, or dropped by ``asyncio.wait_for``) while it waits for an
approval: held behind another draft's pause, its draft is pending in the handle no more; paused on, its pause stays
open on disk and the drafts held behind it do not pause on top (a run paused on one draft at a time, as Noēsis
resumes it), so that the run stays valid under tests/compat's checker."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import read_events
from tests.compat.checker import check_run


def _note(text: str) -> str:
    return text


def _call(ctx: Any, name: str) -> Any:
    return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high")


async def _until(check: Any) -> None:
    for _ in range(400):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


def _interrupts(run: Path) -> int:
    return sum(e.get("event_type") == "run.interrupt" for e in read_events(run / "events.jsonl"))


def test_a_held_call_given_up_leaves_the_handles_pending(runs_dir: Path) -> None:
    give_up = asyncio.Event()

    async def agent(task: str, ctx: Any) -> Any:
        first = asyncio.ensure_future(_call(ctx, "a"))
        held = asyncio.ensure_future(_call(ctx, "b"))
        await asyncio.sleep(0)
        await give_up.wait()  # the test says when to give b up
        held.cancel()
        return await first

    async def main() -> None:
        handle = noesis_nb.start("two notes", agent, runs_dir=runs_dir, approver="ask")
        await _until(lambda: len(handle.pending) == 2)
        give_up.set()
        await _until(lambda: len(handle.pending) == 1)
        assert [p.tool for p in handle.pending] == ["notes.a"]
        handle.approve(approver_id="ana")
        await asyncio.wait_for(handle.wait(), 30)
        assert handle.status == "ok"

    asyncio.run(main())
    (run,) = runs_dir.iterdir()
    assert check_run(run) == []


def test_a_paused_call_given_up_keeps_the_run_paused_on_its_draft(runs_dir: Path) -> None:
    give_up, gave_up = asyncio.Event(), asyncio.Event()

    async def agent(task: str, ctx: Any) -> Any:
        paused = asyncio.ensure_future(_call(ctx, "b"))
        held = asyncio.ensure_future(_call(ctx, "a"))
        await give_up.wait()  # the test says when to give b up
        paused.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await paused  # its turn handed on (or kept): a draft that would pause next is scheduled now
        gave_up.set()
        return await held

    async def main() -> None:
        handle = noesis_nb.start("two notes", agent, runs_dir=runs_dir, approver="ask")
        await _until(lambda: len(handle.pending) == 2)
        run = handle.run_dir
        give_up.set()
        await gave_up.wait()
        for _ in range(5):  # the loop runs what it scheduled: a draft handed the turn would pause on top now
            await asyncio.sleep(0)
        held = next(p for p in handle.pending if p.tool == "notes.a")
        handle.approve(held.draft_id, approver_id="ana")
        for _ in range(5):
            await asyncio.sleep(0)
        assert _interrupts(run) == 1 and handle.status == "paused"
        assert check_run(run) == []  # still paused on b, one pending draft
        handle.cancel()
        await asyncio.wait_for(handle.wait(), 30)

    asyncio.run(main())
    (run,) = runs_dir.iterdir()
    assert check_run(run) == []
