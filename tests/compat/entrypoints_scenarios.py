"""Runs of the paths an episode can take inside one entry point: steers of each mode, stops while a draft
waits, a rejected tool the episode gets past, each governance mode with each decision, model calls of
unknown usage, adapters failing after their first event, a run resumed twice, two tool calls paused at
once, and an AG-UI agent behind a real HTTP server answering in each of its ways.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.errors import NoesisVeto, ToolRejected
from tests.runtime.agents import write_argv

from .entrypoints import Builder, _runs, _second_process

LIST = {"argv": [sys.executable, "-c", "print('a')"]}


async def two_writes(task: str, ctx: Any) -> str:
    """Two tools that each need an approval (importable, so another process resumes it)."""
    out = Path(ctx.run_dir).parent.parent / "out.txt"
    for text in ("one", "two"):
        await ctx.tool_async("fs.append", {"argv": write_argv(out, text)}, effect="write", risk="high")
    return "wrote two"


async def write_then_list(task: str, ctx: Any) -> str:
    """A write that may be refused, then a harmless tool and an event of its own: the episode goes on."""
    out = Path(ctx.run_dir).parent.parent / "out.txt"
    try:
        await ctx.tool_async("fs.append", {"argv": write_argv(out, task)}, effect="write", risk="high")
    except ToolRejected:
        ctx.emit("reason", {"text": "refused; listing instead"})
    await ctx.tool_async("fs.list", LIST)
    return "listed"


async def hears_rounds(task: str, ctx: Any) -> str:
    await asyncio.sleep(0.3)
    heard = ctx.steers(at="between-rounds")
    ctx.emit("reason", {"text": f"heard {len(heard)}"})
    return "heard"


async def deaf(task: str) -> str:
    await asyncio.sleep(0.3)
    return "heard nothing"


def steers(root: Path) -> list[Path]:
    """A steer of each mode taken at a round boundary, and a steer nobody takes."""

    async def main() -> None:
        for agent in (hears_rounds, deaf):
            handle = noesis_nb.start("Listen", using=agent, runs_dir=root / "runs")
            await asyncio.sleep(0.05)
            handle.steer("use staging", mode="between-rounds")
            handle.steer("and be brief", mode="next-item")
            await handle.wait()

    asyncio.run(main())
    return _runs(root / "runs")


def stopped_while_pending(root: Path) -> list[Path]:
    """A draft waits for a human; the episode is cancelled, then another one stopped with a drain."""

    async def main() -> None:
        for drain in (None, 0.5):
            handle = noesis_nb.start("Write a note", using=two_writes, runs_dir=root / "runs", approver="ask")
            await handle
            assert handle.status == "paused", handle.status
            if drain is None:
                handle.cancel()
                await handle.wait()
            else:
                await handle.stop(drain_s=drain)

    asyncio.run(main())
    return _runs(root / "runs")


def rejected_then_continued(root: Path) -> list[Path]:
    async def main() -> None:
        handle = noesis_nb.start("Write a note", using=write_then_list, runs_dir=root / "runs", approver="ask")
        await handle
        handle.reject(reason="not now", approver_id="ana")
        await handle.wait()

    asyncio.run(main())
    noesis_nb.solve("Write a note", using=write_then_list, runs_dir=root / "runs", approver="deny")
    return _runs(root / "runs")


def governance_modes(root: Path) -> list[Path]:
    """Every governance mode with a task each rule decides (veto, audit, allow)."""
    for mode in ("off", "audit", "enforce"):
        for task in ("Wipe the staging database", "Write a note", "Summarise the notes"):
            try:
                noesis_nb.solve(task, using=write_then_list, runs_dir=root / "runs", governance=mode, approver="auto")
            except NoesisVeto:
                pass
    return _runs(root / "runs")


def unknown_usage(root: Path) -> list[Path]:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini")
        ctx.model_call("mistral-small", provider="mistral", input_tokens=12)
        return "counted what is known"

    noesis_nb.solve("Count", using=agent, runs_dir=root / "runs")
    return _runs(root / "runs")


def failing_late(root: Path) -> list[Path]:
    """Adapters that fail after their first event, and after a tool ran."""

    def after_event(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "starting"})
        raise RuntimeError("broke after an event")

    async def after_tool(task: str, ctx: Any) -> str:
        await ctx.tool_async("fs.list", LIST)
        raise RuntimeError("broke after a tool")

    for agent in (after_event, after_tool):
        noesis_nb.solve("Break late", using=agent, runs_dir=root / "runs")
    return _runs(root / "runs")


def resumed_twice(root: Path) -> list[Path]:
    """Paused twice: each draft approved and the run resumed by a fresh process."""
    runs = root / "runs"
    ep = noesis_nb.solve("Write two notes", using="tests.compat.entrypoints_scenarios:two_writes", runs_dir=runs, approver="ask")
    for _ in range(2):
        _second_process(
            f"noesis_nb.approve_draft({ep!r}, approver_id='ops', runs_dir={str(runs)!r})\n"
            f"noesis_nb.resume_run({ep!r}, runs_dir={str(runs)!r})"
        )
    return _runs(runs)


async def two_at_once(task: str, ctx: Any) -> list[str]:
    """Two tool calls at the same time, each needing an approval; a rejected one is reported, not raised."""
    out = Path(ctx.run_dir).parent.parent

    async def call(name: str) -> str:
        try:
            await ctx.tool_async(f"fs.{name}", {"argv": write_argv(out / f"{name}.txt", name)}, effect="write", risk="high")
        except ToolRejected:
            return f"{name}: rejected"
        return f"{name}: done"

    return list(await asyncio.gather(call("left"), call("right")))


def concurrent_pauses(root: Path) -> list[Path]:
    """Both calls pause a live episode and are decided in the other order; then ``solve`` pauses on the first
    of them after the second wrote its pending approval: both are decided on disk (a resume refuses one left
    undecided), and ``resume_run`` runs them."""

    async def main() -> None:
        handle = noesis_nb.start("Write two notes", using=two_at_once, runs_dir=root / "runs")
        for _ in range(200):
            if len(handle.pending) == 2:
                break
            await asyncio.sleep(0.02)
        drafts = {p.tool: p.draft_id for p in handle.pending}
        handle.reject(drafts["fs.right"], reason="not that one")
        handle.approve(drafts["fs.left"], approver_id="ana")
        await handle.wait()

    asyncio.run(main())
    ep = noesis_nb.solve("Write two notes", using=two_at_once, runs_dir=root / "runs")
    drafts = dict(zip(*noesis_nb.tools_df(root / "runs" / ep)[["tool", "draft_id"]].T.values))  # both wait
    noesis_nb.approve_draft(ep, drafts["fs.left"], approver_id="ops", runs_dir=root / "runs")
    noesis_nb.reject_draft(ep, drafts["fs.right"], reason="one note is enough", approver_id="ops", runs_dir=root / "runs")
    noesis_nb.resume_run(ep, runs_dir=root / "runs")
    return _runs(root / "runs")


def agui_server(root: Path) -> list[Path]:
    """The scripted AG-UI agent served on 127.0.0.1: answers, errors, usage, approved and rejected tool calls."""
    import pytest

    pytest.importorskip("ag_ui")
    pytest.importorskip("httpx")
    from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent
    from tests.integrations.scripted_agui import AGUITestServer

    async def one(url: str, decide: str | None, **opts: Any) -> None:
        handle = noesis_nb.start("delete x.txt", using=AGUIAdapter(AGUIHttpAgent(url), **opts), runs_dir=root / "runs")
        await handle
        if handle.status == "paused":
            handle.approve(approver_id="ana") if decide == "approve" else handle.reject(reason="no")
            await handle.wait()

    async def main(server: AGUITestServer) -> None:
        for behaviour in ("answer", "raise", "usage", "hostile"):
            await one(server.url(f"agent/{behaviour}"), None)
        for decide in ("approve", "reject"):
            await one(server.url("agent/tool"), decide)
            await one(server.url("agent/legacy_tool"), decide, resume_style="forwarded_props")
        await one(server.url("raw/malformed"), None)

    with AGUITestServer() as server:
        asyncio.run(main(server))
    return _runs(root / "runs")


ENTRY_POINTS: dict[str, Builder] = {
    "steers": steers,
    "stopped-while-pending": stopped_while_pending,
    "rejected-then-continued": rejected_then_continued,
    "governance-modes": governance_modes,
    "unknown-usage": unknown_usage,
    "failing-late": failing_late,
    "resumed-twice": resumed_twice,
    "concurrent-pauses": concurrent_pauses,
    "agui-server": agui_server,
}
