"""Many sync adapters calling approved tools at once all finish (no thread pool can be exhausted)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import noesis_nb
from noesis_nb.store import is_sealed, read_events

from .report import figures

ADAPTERS = 100


def echo(value: int) -> int:
    time.sleep(0.01)  # a tool that takes a moment, as real ones do
    return value * 2


def make_agent(marker: Path):
    def agent(task, ctx):  # sync: it blocks its own thread until each tool has run
        number = int(task.split()[-1])
        doubled = ctx.tool("calc.double", {"args": [number]}, fn=echo, effect="write", risk="high")["result"]
        if number % 10 == 0:  # some go through a subprocess as well
            ctx.tool(
                "fs.append",
                {"argv": [sys.executable, "-c", "import sys; open(sys.argv[1], 'a').write('x\\n')", str(marker)]},
                effect="write",
                risk="high",
            )
        return doubled

    return agent


def test_a_hundred_concurrent_sync_adapters_with_approved_tools_all_seal(runs_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "subprocess-tools.txt"
    agent = make_agent(marker)

    async def main():
        handles = [noesis_nb.start(f"double {i}", using=agent, runs_dir=runs_dir, approver="auto") for i in range(ADAPTERS)]
        await asyncio.wait_for(asyncio.gather(*(h.wait() for h in handles)), 120)
        return handles

    started = time.monotonic()
    handles = asyncio.run(main())
    elapsed = time.monotonic() - started
    assert [h.status for h in handles] == ["ok"] * ADAPTERS
    assert [h.result() for h in handles] == [2 * i for i in range(ADAPTERS)]
    assert all(is_sealed(h.run_dir) for h in handles)
    assert len(marker.read_text().splitlines()) == ADAPTERS // 10
    for h in handles:  # each run holds exactly its own tool calls
        succeeded = [
            e
            for e in read_events(h.run_dir / "events.jsonl")
            if e["phase"] == "tool" and e["payload"]["event_name"] == "tool.execution.succeeded"
        ]
        assert len(succeeded) == (2 if int(h.task.split()[-1]) % 10 == 0 else 1)
    figures("concurrent sync adapters", {"adapters": ADAPTERS, "sealed ok": ADAPTERS, "seconds": round(elapsed, 1)})
