"""How an AG-UI run ends decides how the episode ends.

``RUN_FINISHED.outcome`` (AG-UI 1.0) is ``success`` (or absent; with ``pendingToolCallIds`` too: a completed run that
left frontend tool calls for the application), ``interrupt`` (asked, then resumed: see test_agui_interrupt_ids) or
``cancelled`` (stopped before it completed, no result, nothing waited for). A cancelled run is sealed ``cancelled``,
never counted a success, whichever run of the episode it is and whether the agent is in process or over HTTP.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("ag_ui.core")
pytest.importorskip("httpx")

from noesis_nb import runs_df, solve
from noesis_nb.integrations import start
from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent, AGUIRunCancelled
from noesis_nb.store import read_json
from tests.compat.checker import check_run

from . import scripted_agui
from .helpers import disk_events, run
from .scripted_agui import AGUITestServer


class Agent:
    """An in-process AG-UI agent: ``first(ids)`` gives run 1's events, ``later(ids, resume)`` those of each next run."""

    def __init__(self, first: Any, later: Any = None):
        self.first, self.later = first, later
        self.inputs: list[dict[str, Any]] = []

    async def run(self, run_input: Any):
        body = run_input.model_dump(by_alias=True, exclude_none=True, mode="json")
        self.inputs.append(body)
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        made = self.first(ids) if len(self.inputs) == 1 else self.later(ids, body.get("resume") or body["forwardedProps"])
        for event in made:
            yield event


def _call(ident: str, name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "TOOL_CALL_START", "toolCallId": ident, "toolCallName": name},
        {"type": "TOOL_CALL_ARGS", "toolCallId": ident, "delta": json.dumps(args)},
        {"type": "TOOL_CALL_END", "toolCallId": ident},
    ]


def _interrupting(*interrupts: dict[str, Any], before: list[dict[str, Any]] | None = None) -> Any:
    return lambda ids: [
        {"type": "RUN_STARTED", **ids},
        *(before or []),
        {"type": "RUN_FINISHED", **ids, "outcome": {"type": "interrupt", "interrupts": list(interrupts)}},
    ]


def _done(ids: dict[str, Any], resume: Any) -> list[dict[str, Any]]:
    return [{"type": "RUN_STARTED", **ids}, {"type": "RUN_FINISHED", **ids, "result": "done"}]


def _sealed(handle: Any) -> dict[str, Any]:
    [row] = runs_df(handle.run_dir.parent).to_dict("records")
    final = read_json(handle.run_dir / "final.json")
    return {"status": row["status"], "success": bool(row["success"]), "final": final["outcome"]}


def _ending(outcome: Any) -> Any:
    extra = {} if outcome is None else {"outcome": outcome}
    return lambda ids: [{"type": "RUN_STARTED", **ids}, {"type": "RUN_FINISHED", **ids, "result": "r", **extra}]


@pytest.mark.parametrize(
    "outcome, sealed",
    [
        (None, {"status": "ok", "success": True, "final": "success"}),
        ({"type": "success"}, {"status": "ok", "success": True, "final": "success"}),
        # a completed run that left frontend tool calls for the application to answer is complete (AG-UI 1.0)
        ({"type": "success", "pendingToolCallIds": ["tc9"]}, {"status": "ok", "success": True, "final": "success"}),
        ({"type": "cancelled"}, {"status": "cancelled", "success": False, "final": "cancelled"}),
    ],
)
def test_each_run_outcome_seals_the_episode_as_it_ended(runs_dir, outcome, sealed):
    handle, _ = run("t", AGUIAdapter(Agent(_ending(outcome))), runs_dir)
    assert _sealed(handle) == sealed and handle.status == sealed["status"]
    assert check_run(handle.run_dir) == []


def test_a_cancelled_run_has_no_result_and_says_the_agent_cancelled_it(runs_dir):
    handle, _ = run("t", AGUIAdapter(Agent(_ending({"type": "cancelled"}))), runs_dir)
    with pytest.raises(AGUIRunCancelled, match=r"ended run 1 with RUN_FINISHED outcome cancelled"):
        handle.result()
    terminate = next(e for e in disk_events(handle) if e["phase"] == "terminate")
    assert terminate["payload"]["status"] == "cancelled" and "outcome cancelled" in terminate["payload"]["message"]
    assert read_json(handle.run_dir / "summary.json")["metrics"]["success"] in (False, 0)


def test_a_run_cancelled_after_a_decision_seals_the_episode_cancelled(runs_dir):
    """Run 1 interrupts, the person approves, run 2 (the resume) is cancelled by the agent's side."""
    first = _interrupting({"id": "i1", "reason": "approve", "message": "Go on?"})
    agent = Agent(first, lambda ids, resume: _ending({"type": "cancelled"})(ids))
    handle, asked = run("t", AGUIAdapter(agent), runs_dir, decide="approve")
    assert len(asked) == 1 and agent.inputs[1]["resume"][0]["interruptId"] == "i1"
    assert handle.status == "cancelled" and _sealed(handle)["final"] == "cancelled"
    with pytest.raises(AGUIRunCancelled, match="ended run 2"):
        handle.result()
    assert check_run(handle.run_dir) == []


def test_a_cancelled_run_over_http_and_from_solve(runs_dir, monkeypatch):
    stream = (
        'data: {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n\n'
        'data: {"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"cancelled"}}\n\n'
    )
    monkeypatch.setitem(scripted_agui.RAW, "cancelled", stream)
    with AGUITestServer() as server:
        url = server.url("raw/cancelled")

        async def go() -> Any:
            handle = start("t", using=AGUIAdapter(AGUIHttpAgent(url)), runs_dir=runs_dir / "live")
            await asyncio.wait_for(handle.wait(), 30)
            return handle

        handle = asyncio.run(go())
        episode_id = solve("t", AGUIAdapter(AGUIHttpAgent(url)), runs_dir=runs_dir / "solved")  # returns its id
    assert handle.status == "cancelled" and _sealed(handle) == {"status": "cancelled", "success": False, "final": "cancelled"}
    [solved] = runs_df(runs_dir / "solved").to_dict("records")
    assert solved["episode_id"] == episode_id and solved["status"] == "cancelled" and not solved["success"]
    assert check_run(handle.run_dir) == []
