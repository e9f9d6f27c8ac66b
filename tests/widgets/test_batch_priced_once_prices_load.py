"""A batch that ends (or pauses for a person) before the price table has loaded showed "cost …" in its header and
each row for as long as nothing else changed: the grid redrew only while episodes ran. It now looks again while the
prices load, and prices every row once they are there."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.scripted import ScriptedModel
from noesis_nb.widgets import batch_view
from noesis_nb.widgets.meter import CostMeter


async def deployer(task: str, ctx: Any) -> Any:
    ScriptedModel(["Plan.", "Done."], latency_ms=0).complete(task, ctx)
    await ctx.tool_async("fs.append", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return "deployed"


def test_a_paused_batch_prices_its_rows_once_the_prices_have_loaded(
    runs_dir: Path, nnb: Any, comm_log: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = threading.Event()  # the real price table loads once the batch has paused (as on a slow first import)
    load = CostMeter._load.__func__  # type: ignore[attr-defined]
    for name, value in (("_module", None), ("_pricer", None), ("_loader", None), ("_failed", False)):
        monkeypatch.setattr(CostMeter, name, value)
    monkeypatch.setattr(CostMeter, "_load", classmethod(lambda cls: (loaded.wait(10), load(cls))))

    async def main() -> None:
        b = noesis_nb.batch(["deploy d1", "deploy d2"], using=deployer, root=runs_dir)
        view = batch_view(b, rows=5, interval=0.05)
        await b  # both wait for a person: nothing of the batch changes any more
        await nnb.until(lambda: "paused 2" in view.header.value, timeout=5)
        assert "cost …" in view.header.value
        await asyncio.sleep(1.5)  # well past the batch's last change
        assert "cost …" in view.header.value
        loaded.set()
        await nnb.until(lambda: "cost $" in view.header.value, timeout=5)
        lines = [s.line.value for s in view._slots if s.entry is not None]
        assert len(lines) == 2 and all("$0.0" in line and "…" not in line for line in lines), lines
        view.close()

    asyncio.run(main())
