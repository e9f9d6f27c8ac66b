"""An adapter's input mapper (``__noesis_input_mapper__``, ``AGUIAdapter(input_mapper=…)``) is the user's code and
may block (a lookup that builds the agent's input): it runs on a thread of its own, in the caller's context, so
the episode's loop runs on meanwhile. Run on the loop, the task below that releases it could never run."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

WHO = contextvars.ContextVar("who", default="nobody")


class Looked:
    """An adapter whose input mapper waits for a lookup."""

    def __init__(self) -> None:
        self.asked, self.found = threading.Event(), threading.Event()

    def __noesis_input_mapper__(self, task: str) -> dict[str, Any]:
        self.asked.set()
        return {"task": task, "found": self.found.wait(5), "who": WHO.get()}

    async def invoke(self, payload: dict[str, Any], ctx: Any) -> Any:
        return payload


def test_a_blocking_input_mapper_leaves_the_loop_free(tmp_path: Path) -> None:
    agent = Looked()

    async def main() -> Any:
        async def finding() -> None:
            while not agent.asked.is_set():
                await asyncio.sleep(0.01)
            agent.found.set()

        WHO.set("the caller")
        handle = noesis_nb.start("look it up", using=agent, runs_dir=tmp_path / "runs")
        helper = asyncio.ensure_future(finding())
        await asyncio.wait_for(handle, 20)
        helper.cancel()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok", handle.error
    assert handle.result() == {"task": "look it up", "found": True, "who": "the caller"}


def test_a_failing_input_mapper_still_ends_the_run_error(tmp_path: Path) -> None:
    class Broken(Looked):
        def __noesis_input_mapper__(self, task: str) -> dict[str, Any]:
            raise ValueError(f"no record for {task}")

    with pytest.raises(ValueError, match="no record for missing"):  # as raised on the loop: the same error
        noesis_nb.solve("missing", using=Broken(), runs_dir=tmp_path / "runs")
    [run] = noesis_nb.list_runs(runs_dir=tmp_path / "runs")
    assert run["status"] == "error"
