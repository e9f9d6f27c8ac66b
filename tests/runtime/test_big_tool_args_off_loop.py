"""A governed tool call with big arguments leaves the episode's loop free: screening, hashing and writing the draft (work
that grows with the arguments) run on a worker thread, as does the save that marks the draft approved. Measured as
the CPU of the longest callback the loop runs on its own thread (CPU, not wall time: load stretches neither)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from tests.integrations.loop_cpu import loop_cpu

SMALL, BIG = 100_000, 10_000_000  # characters of the one argument


def _size(blob: str) -> int:
    return len(blob)


def _agent(mode: str, blob: str) -> Any:
    options: dict[str, Any] = {"protocol": "python", "fn": _size, "effect": "write", "risk": "high"}
    if mode == "sync":

        def agent(task: str, ctx: Any) -> Any:
            return ctx.tool("t.size", {"args": [blob]}, **options)

        return agent

    async def agent_async(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("t.size", {"args": [blob]}, **options)

    return agent_async


def _loop_and_all_cpu(runs: Path, mode: str, approver: str, chars: int) -> tuple[float, float]:
    """The CPU of the longest callback the loop ran on its thread, and the CPU the whole process spent on the run."""
    blob = "x" * chars

    async def main() -> list[float]:
        with loop_cpu() as spent:
            handle = noesis_nb.start("t", using=_agent(mode, blob), runs_dir=runs, approver=approver)
            await asyncio.wait_for(handle, 300)
            if approver == "ask":
                assert handle.status == "paused", handle.error
                handle.approve(approver_id="ana")
                await asyncio.wait_for(handle.wait(), 300)
            assert handle.status == "ok", handle.error
            assert handle.result() == {"result": chars}  # the tool ran, on the whole argument
        return spent

    started = time.process_time()
    spent = asyncio.run(main())
    return max(spent), time.process_time() - started


@pytest.mark.parametrize("approver", ["auto", "ask"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_10_mb_argument_is_screened_and_written_off_the_loop(tmp_path: Path, mode: str, approver: str) -> None:
    _loop_and_all_cpu(tmp_path / "warm", mode, approver, SMALL)  # imports and first-use caches
    small, _ = _loop_and_all_cpu(tmp_path / "small", mode, approver, SMALL)
    big, everything = _loop_and_all_cpu(tmp_path / "big", mode, approver, BIG)
    # On the loop, the draft's screening, hashing and writing were one callback: most of what the run cost (10-14 s of
    # about 15 s at 10 MB). Off it, what the loop still does with the argument (reading the draft back when it pauses
    # or decides) is a plain parse, a small part of the screening: both shares are CPU time, so load changes neither.
    share = big / everything
    assert share < 0.05, (
        f"{mode} {approver}: longest loop callback {big:.3f}s of {everything:.3f}s the run cost at 10 MB ({small:.3f}s at 0.1 MB)"
    )
