"""A sync approver may block (a review service asked over blocking HTTP): it is asked on a thread of its own, so the
episode's loop runs on meanwhile. Asked on the loop, the task below that answers it could never run."""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
from pathlib import Path
from typing import Any

import noesis_nb

WHO = contextvars.ContextVar("who", default="nobody")


def test_a_blocking_sync_approver_leaves_the_loop_free_and_sees_the_callers_context(tmp_path: Path) -> None:
    asked, answer = threading.Event(), threading.Event()
    seen: list[str] = []

    def reviewer(pending: Any) -> bool:
        seen.append(WHO.get())
        asked.set()
        return answer.wait(5)  # approved only if a task on the loop answered meanwhile

    async def agent(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", "print('written')"]
        return await ctx.tool_async("fs.write", {"argv": argv}, effect="write", risk="high")

    async def main() -> Any:
        async def answering() -> None:
            while not asked.is_set():
                await asyncio.sleep(0.01)
            answer.set()

        WHO.set("the caller")
        handle = noesis_nb.start("review", using=agent, approver=reviewer, runs_dir=tmp_path / "runs")
        helper = asyncio.ensure_future(answering())
        await asyncio.wait_for(handle, 20)
        helper.cancel()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok", handle.error
    assert "written" in handle.result()["stdout"]
    assert seen == ["the caller"]
