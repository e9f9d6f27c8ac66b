"""Cutting off a stubborn subprocess tool does not freeze the loop: other cells' views and episodes go on.

The tool ignores SIGTERM and starts 300 children that ignore it too (killing and reaping them all takes a while).
While it is cut off by ``handle.cancel()``, a ticker on the same loop keeps ticking; afterwards none of those
processes lives (read from /proc) and the run is sealed cancelled with the tool's outcome unknown.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.store import read_events, read_final

_CHILDREN = 300


def _tree(root: int) -> set[int]:
    """``root`` and its living descendants, from /proc."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] not in ("Z", "X"):
                parents[int(name)] = int(fields[1])
    found, queue = set(), [root]
    while queue:
        pid = queue.pop()
        if pid in parents and pid not in found:
            found.add(pid)
            queue += [p for p, parent in parents.items() if parent == pid]
    return found


def test_the_loop_ticks_while_a_stubborn_tool_tree_is_cut_off(tmp_path: Path) -> None:
    script = (
        f"trap '' TERM; i=0; while [ $i -lt {_CHILDREN} ]; do sh -c \"trap '' TERM; sleep 60; :\" & i=$((i+1)); done; "
        f"echo $$ > {tmp_path}/pid.tmp; mv {tmp_path}/pid.tmp {tmp_path}/pid; sleep 60; :"
    )

    async def calls(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"argv": ["/bin/sh", "-c", script]}, effect="write", risk="low")

    async def main() -> tuple[Path, set[int], float, list[float]]:
        loop = asyncio.get_running_loop()
        ticks: list[float] = []
        handle = noesis_nb.start("cut off", using=calls, runs_dir=tmp_path / "runs")
        while not (tmp_path / "pid").exists():
            await asyncio.sleep(0.005)
        tool = int((tmp_path / "pid").read_text())
        while len(tree := _tree(tool)) < _CHILDREN + 1:  # every child started
            await asyncio.sleep(0.01)

        async def tick() -> None:
            while True:
                ticks.append(loop.time())
                await asyncio.sleep(0.002)

        ticker = asyncio.ensure_future(tick())
        await asyncio.sleep(0.05)
        cut_at = loop.time()
        handle.cancel()
        await handle.wait()
        took = loop.time() - cut_at
        ticker.cancel()
        return handle.run_dir, tree, took, [b - a for a, b in zip(ticks, ticks[1:]) if b > cut_at]

    run_dir, tree, took, gaps = asyncio.run(main())
    assert [pid for pid in tree if _tree(pid)] == [], "a process of the cut-off tool outlived its run's seal"
    assert (read_final(run_dir) or {}).get("outcome") == "cancelled"
    names = [str((e.get("payload") or {}).get("event_name") or e["phase"]) for e in read_events(run_dir / "events.jsonl")]
    assert "tool.execution.outcome_unknown" in names, names
    assert max(gaps) < took / 2, f"the loop stood still {max(gaps):.3f} s of the {took:.3f} s the cut took"
