"""A draft whose call the adapter gave up while it waited for approval (``tool.approval.abandoned``: never run, its
decision written rejected by ``adapter``) had no status or step of its own: ``tools_df`` counted it ``rejected``, with
the people's rejections, and the timeline kept its step "pending" under a pause mark (‖) after the run went on. It is
now ``abandoned`` in ``tools_df`` and a step "given up by the adapter … never ran" marked ↷; the inbox, while the run
pauses on the next draft, lists that draft alone."""

from __future__ import annotations

import asyncio
import contextlib
import re
from html import unescape
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import InboxView
from noesis_nb.widgets.view import EpisodeView


def _note(text: str) -> str:
    return text


def _call(ctx: Any, name: str) -> Any:
    return ctx.tool_async(f"notes.{name}", {"args": [name]}, protocol="python", fn=_note, effect="write", risk="high")


async def _until(check: Any) -> None:
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<style.*?</style>", "", html, flags=re.S))))


def test_an_abandoned_draft_has_its_own_status_step_and_leaves_the_inbox(runs_dir: Path) -> None:
    release = asyncio.Event()

    async def agent(task: str, ctx: Any) -> Any:
        paused = asyncio.ensure_future(_call(ctx, "b"))
        held = asyncio.ensure_future(_call(ctx, "a"))  # asked second: held behind b's pause
        await release.wait()
        paused.cancel()  # the adapter gives b up and goes on
        with contextlib.suppress(asyncio.CancelledError):
            await paused
        return await held

    async def main() -> Any:
        handle = noesis_nb.start("two notes", agent, runs_dir=runs_dir, approver="ask")
        await _until(lambda: len(handle.pending) == 2)
        release.set()
        await _until(lambda: [p.tool for p in handle.pending] == ["notes.a"] and handle.status == "paused")
        inbox = InboxView(runs_dir, approver_id="ana")
        try:
            assert len(inbox.pending) == 1 and [item.pending.tool for item in inbox.pending if item.pending] == [
                "notes.a"
            ]  # b was decided (abandoned), not waiting
        finally:
            inbox.close()
        handle.approve(approver_id="ana")
        await asyncio.wait_for(handle.wait(), 30)
        assert handle.status == "ok"
        return handle

    handle = asyncio.run(main())
    tools = noesis_nb.tools_df(runs_dir).set_index("tool")
    assert tools.loc["notes.b", "status"] == "abandoned" and tools.loc["notes.a", "status"] == "succeeded"
    assert (tools.loc["notes.b", "approver_id"], tools.loc["notes.b", "reason_code"]) == ("adapter", "tool.call_abandoned")
    assert (tools["status"] == "rejected").sum() == 0  # nobody rejected anything
    figure = noesis_nb.plots.approval_waits(tools.reset_index())  # b waited for nobody's decision: no point of its own
    assert [(t.name, list(t.x)) for t in figure.data] == [("approved", ["notes.a"])]

    for run in (handle, noesis_nb.show(handle.episode_id, runs_dir=runs_dir).source):
        view = EpisodeView(run)
        view.flush()
        snapshot = _text(view.mimebundle(widget=False)["text/html"])
        (row,) = re.findall(r"\S+ tool notes\.b · [^·]*· [^·]*· [^·]*· never ran", snapshot) or [snapshot[-800:]]
        assert row.startswith("↷ ") and "given up by the adapter while it waited for approval" in row, row
        assert "waiting for approval" not in snapshot.replace("while it waited for approval", "")
