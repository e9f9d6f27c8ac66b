"""A ``CancelledError``, ``KeyboardInterrupt`` or ``SystemExit`` that user code raises of its own (a python tool,
an input mapper) is that code's failure, as it is the adapter's: only a cancellation of the episode is a stop."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import is_sealed, read_json
from noesis_nb.tools.errors import ToolExecutionFailedError

from ..compat.checker import check_run


def _gives_up() -> str:
    raise asyncio.CancelledError("the tool gave up")


async def _tool_agent(task: str, ctx: Any) -> Any:
    return await ctx.tool_async("py.gives_up", {"args": []}, protocol="python", fn=_gives_up, effect="read", risk="low")


def _sync_tool_agent(task: str, ctx: Any) -> Any:
    return ctx.tool("py.gives_up", {"args": []}, protocol="python", fn=_gives_up, effect="read", risk="low")


async def _caught_tool_agent(task: str, ctx: Any) -> Any:
    try:
        await _tool_agent(task, ctx)
    except ToolExecutionFailedError as exc:
        return {"tool_failed": str(exc)}
    return {"tool_failed": None}


def _events(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("agent", [_tool_agent, _sync_tool_agent], ids=["async-adapter", "sync-adapter"])
def test_a_python_tool_raising_cancelled_error_fails_that_call(runs_dir: Path, agent) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("t", using=agent, runs_dir=runs_dir, approver="auto")
        await asyncio.wait_for(handle.wait(), 60)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "error"  # the adapter let the failed call end it, as any failed tool call
    with pytest.raises(ToolExecutionFailedError, match="CancelledError: the tool gave up"):
        handle.result()
    run_dir = Path(handle.run_dir)
    assert is_sealed(run_dir) and check_run(run_dir) == []
    assert read_json(run_dir / "summary.json")["x-noesis_nb"]["reasons"] == ["adapter_error"]
    kinds = [e["payload"].get("event") for e in _events(run_dir) if e["phase"] == "tool"]
    assert "tool.execution.outcome_unknown" not in kinds


def test_an_adapter_that_catches_the_failed_call_ends_ok(runs_dir: Path) -> None:
    run_id = noesis_nb.solve("t", using=_caught_tool_agent, runs_dir=runs_dir, approver="auto")
    run_dir = runs_dir / run_id
    summary = read_json(run_dir / "summary.json")
    assert summary["status"] == "ok" and check_run(run_dir) == []
    [terminate] = [e for e in _events(run_dir) if e["phase"] == "terminate"]
    assert "CancelledError: the tool gave up" in terminate["payload"]["message"]


def _sync_mapper(exc: BaseException) -> Any:
    def mapper(task: str) -> str:
        raise exc

    return mapper


def _async_mapper(exc: BaseException) -> Any:
    async def mapper(task: str) -> str:
        raise exc

    return mapper


@pytest.mark.parametrize("make", [_sync_mapper, _async_mapper], ids=["sync-mapper", "async-mapper"])
@pytest.mark.parametrize(
    "exc",
    [KeyboardInterrupt("mapper"), SystemExit(5), asyncio.CancelledError("mapper"), ValueError("mapper")],
    ids=["KeyboardInterrupt", "SystemExit", "CancelledError", "ValueError"],
)
def test_an_input_mapper_raising_seals_error_and_raises_it(runs_dir: Path, make, exc: BaseException) -> None:
    def agent(task: str) -> str:
        return "never"

    agent.__noesis_input_mapper__ = make(exc)  # type: ignore[attr-defined]
    with pytest.raises(type(exc)):  # as the adapter's own exit: raised again once the run is sealed
        noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    [run] = noesis_nb.list_runs(runs_dir=runs_dir)
    run_dir = Path(run["run_dir"]) if "run_dir" in run else runs_dir / run["episode_id"]
    summary = read_json(run_dir / "summary.json")
    assert summary["status"] == "error" and summary["x-noesis_nb"]["reasons"] == ["adapter_error"]
    assert is_sealed(run_dir) and check_run(run_dir) == []
    [terminate] = [e for e in _events(run_dir) if e["phase"] == "terminate"]
    message = terminate["payload"]["message"]
    assert "cancelled by" not in message and "stopped" not in message  # never taken for the user's stop
    assert type(exc).__name__ in message or str(exc) == message
