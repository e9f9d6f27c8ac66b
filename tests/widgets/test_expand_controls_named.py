"""Every ▸ says what it expands: a step's toggle names its step (number and what it is) and what a press does;
a batch grid row's opener names its episode, queued ones too. A list of controls all called the same
("show this step's events") tells a screen reader's user nothing about which is which."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.scripted import ScriptedModel
from noesis_nb.widgets import batch_view, show
from noesis_nb.widgets.cards import pending_html, veto_html


async def _agent(task: str, ctx: Any) -> Any:
    ScriptedModel(["Plan.", "Done."], latency_ms=0).complete(task, ctx)
    await ctx.tool_async("fs.run", {"argv": [sys.executable, "-c", "pass"]}, effect="read", risk="low")
    ScriptedModel(["Again."], latency_ms=0).complete(task, ctx)
    return "done"


def test_each_step_toggle_names_its_step(runs_dir: Path, comm_log: list) -> None:
    ep = noesis_nb.solve("several steps", using=_agent, runs_dir=runs_dir)
    view = show(runs_dir / ep)
    view.flush()
    toggles = [r.toggle for r in view.steps._rows if r.step is not None]
    names = [t.tooltip for t in toggles]
    assert len(toggles) >= 4 and len(set(names)) == len(names), names
    assert all(n.startswith("show the events of step ") for n in names), names
    assert any("(tool run)" in n for n in names) and any("model " in n for n in names), names
    third = toggles[2]
    third.value = True  # a press: the name says what the next press does, to the same step
    assert third.tooltip == names[2].replace("show", "hide", 1)
    view.close()


def test_each_batch_row_opener_names_its_episode(runs_dir: Path, comm_log: list) -> None:
    async def main() -> None:
        b = noesis_nb.batch([f"task {i}" for i in range(6)], using={"a": _agent}, concurrency=1, root=runs_dir)
        view = batch_view(b, rows=6)
        view.flush()
        queued = [s.button.tooltip for s in view._slots if s.entry is not None]
        assert len(queued) == 6 and len(set(queued)) == 6, queued  # queued ones have no id yet, and differ anyway
        await b
        view.flush()
        done = {s.entry.episode_id: s.button.tooltip for s in view._slots if s.entry is not None}
        assert all(eid in name and name.startswith("open episode #") for eid, name in done.items()), done
        view.close()

    asyncio.run(main())


def test_each_decided_card_names_what_it_folds(runs_dir: Path) -> None:
    async def asks(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

    eps = [noesis_nb.solve(f"task {i}", using=asks, runs_dir=runs_dir, approver="ask") for i in range(2)]
    drafts = [DiskRun(runs_dir / ep).pending[0] for ep in eps]
    decision = {"status": "approved", "approver_id": "ana", "decided_at": "2025-01-01T00:00:00Z"}
    summaries = [re.findall(r"<summary>(.*?)</summary>", pending_html(p, decision))[0] for p in drafts]
    assert summaries[0] != summaries[1], summaries
    # the tool and the id's end (the whole id, twice "draft", is among the details)
    assert all(p.draft_id[-6:] in s and p.draft_id not in s and "fs.append" in s for p, s in zip(drafts, summaries, strict=True))
    veto = {"payload": {"rule_id": "no-rm", "message": "m"}, "timestamp": ""}
    assert "<summary>the veto of rule no-rm</summary>" in veto_html(veto, decision)
