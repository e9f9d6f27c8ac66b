"""A graceful stop right after an approval: the tool the approval let through is refused (``EpisodeStopping``), and
that expected ending of the adapter's task is read by the episode, not left to asyncio to log as "Task exception was
never retrieved" when the task is collected."""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import read_events, read_final
from tests.compat.checker import check_run


async def _writer(task: str, ctx: Any) -> int:
    await ctx.tool_async("fs.write_file", {"argv": [sys.executable, "-c", "print(1)"]}, effect="write", risk="high")
    return 1


def test_a_stop_right_after_an_approval_ends_cancelled_with_nothing_unretrieved(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    said: list[dict[str, Any]] = []

    async def main() -> list[Any]:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: said.append(context))
        handles = []
        for _ in range(3):  # it raced: seen on every try before the fix
            handle = noesis_nb.start("t", using=_writer, runs_dir=tmp_path, approver="ask")
            await handle  # paused on its draft
            handle.approve(approver_id="ana")
            handle.cancel(drain_s=1)  # at once, from the same cell
            await handle.wait()
            handles.append(handle)
        gc.collect()  # the adapter's finished task goes: an unread exception would be said now
        await asyncio.sleep(0.2)
        return handles

    handles = asyncio.run(main())
    gc.collect()
    assert [c.get("message") for c in said] == []
    assert "never retrieved" not in capfd.readouterr().err
    for handle in handles:
        assert handle.status == "cancelled" and (read_final(handle.run_dir) or {}).get("outcome") == "cancelled"
        assert check_run(handle.run_dir) == []
        events = read_events(handle.run_dir / "events.jsonl")
        refused = [e for e in events if e["payload"].get("event_name") == "drain.refused"]
        assert [e["payload"].get("name") for e in refused] in ([], ["fs.write_file"])


def test_an_adapter_failing_as_it_is_cancelled_is_said_on_the_handle_not_left_to_asyncio(tmp_path: Path) -> None:
    said: list[dict[str, Any]] = []

    async def fails_when_stopped(task: str, ctx: Any) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            raise ValueError("cleanup went wrong") from None
        return task

    async def main() -> Any:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: said.append(context))
        handle = noesis_nb.start("t", using=fails_when_stopped, runs_dir=tmp_path)
        while handle.status != "running":
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        assert handle.cancel()
        await handle.wait()
        gc.collect()
        await asyncio.sleep(0.05)
        return handle

    handle = asyncio.run(main())
    gc.collect()
    assert [c.get("message") for c in said] == []
    assert handle.status == "cancelled" and check_run(handle.run_dir) == []
    assert any("raised ValueError after the episode stopped: cleanup went wrong" in p for p in handle.problems), handle.problems
