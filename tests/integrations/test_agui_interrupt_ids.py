"""Every decision on an AG-UI interrupt reaches the agent under its own id, about the call the person saw.

Decisions go back as ``resume: [{interruptId, …}]`` (or ``forwardedProps.command.resume = {id: answer}``). Interrupts
whose answers the agent could not tell apart (a shared id, no id, a ``toolCallId`` the agent gave to two different
calls), an interrupt outcome naming none, or an ended outcome carrying interrupts end the episode ``error`` before
anyone is asked, the interrupts kept as ``agui.INTERRUPT_UNANSWERED`` rows (as LangGraph interrupts sharing an id do).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("ag_ui.core")

from noesis_nb.integrations.agui import AGUIAdapter, AGUIStreamError
from tests.compat.checker import check_run

from .helpers import disk_events, from_source, names, run
from .test_agui_outcomes import Agent, _call, _done, _interrupting


def _refused_before_asking(handle: Any, agent: Agent, message: str, unanswered: int) -> None:
    """The episode ended ``error`` with ``message``; nobody was asked, the agent never resumed, the run is valid."""
    assert handle.status == "error"
    with pytest.raises(AGUIStreamError, match=message):
        handle.result()
    events = disk_events(handle)
    assert "tool.approval.pending" not in names(events) and len(agent.inputs) == 1
    rows = [e["payload"] for e in from_source(events, "agui") if e["payload"]["event_name"] == "agui.INTERRUPT_UNANSWERED"]
    assert len(rows) == unanswered and all(r["kind"] == "custom" for r in rows)
    assert check_run(handle.run_dir) == []


def test_interrupts_sharing_an_id_end_the_run_error_before_anyone_is_asked(runs_dir):
    agent = Agent(
        _interrupting(
            {"id": "i1", "reason": "delete_db", "message": "Delete production DB?"},
            {"id": "i1", "reason": "send_email", "message": "Email all customers?"},
        ),
        _done,
    )
    handle, asked = run("tidy up", AGUIAdapter(agent), runs_dir, decide="approve")
    assert asked == []
    _refused_before_asking(handle, agent, r"interrupts #1 and #2 of run 1 share the id 'i1'.*its own id", 2)
    ids = [r["payload"]["interrupt_id"] for r in from_source(disk_events(handle), "agui") if "interrupt_id" in r["payload"]]
    assert ids == ["i1", "i1", "i1", "i1"]  # both as the agent sent them, both unanswered


def test_legacy_on_interrupt_values_sharing_an_id_are_refused_too(runs_dir):
    """Answered as ``forwardedProps.command.resume = {id: answer}``: a shared id would keep one answer of two."""

    def first(ids: dict[str, Any]) -> list[dict[str, Any]]:
        asks = [{"id": "same", "message": m} for m in ("Delete production DB?", "Email all customers?")]
        return [
            {"type": "RUN_STARTED", **ids},
            *({"type": "CUSTOM", "name": "on_interrupt", "value": json.dumps(a)} for a in asks),
            {"type": "RUN_FINISHED", **ids},
        ]

    agent = Agent(first, _done)
    handle, asked = run("tidy up", AGUIAdapter(agent, resume_style="forwarded_props"), runs_dir, decide="approve")
    assert asked == []
    _refused_before_asking(handle, agent, r"interrupts #1 and #2 of run 1 share the id 'same'", 2)


@pytest.mark.parametrize("style", ["forwarded_props", "1.0"])
def test_several_legacy_interrupts_without_ids_are_refused(runs_dir, style):
    """Their ids are made here (``on_interrupt-1``, ``-2``): the agent never knew them, so it could not match the answers."""

    def first(ids: dict[str, Any]) -> list[dict[str, Any]]:
        asks = [{"message": m} for m in ("Delete production DB?", "Email all customers?")]
        return [
            {"type": "RUN_STARTED", **ids},
            *({"type": "CUSTOM", "name": "on_interrupt", "value": json.dumps(a)} for a in asks),
            {"type": "RUN_FINISHED", **ids},
        ]

    agent = Agent(first, _done)
    handle, asked = run("tidy up", AGUIAdapter(agent, resume_style=style), runs_dir, decide="approve")
    assert asked == []
    _refused_before_asking(handle, agent, r"2 interrupts of run 1 are pending and #1 came without an id of its own", 2)


def test_an_interrupt_naming_a_tool_call_id_given_to_two_different_calls_is_refused(runs_dir):
    calls = [*_call("tc1", "delete_db", {"db": "prod"}), *_call("tc1", "send_email", {"to": "all"})]
    agent = Agent(_interrupting({"id": "i1", "reason": "tool_call", "toolCallId": "tc1"}, before=calls), _done)
    handle, asked = run("tidy up", AGUIAdapter(agent), runs_dir, decide="approve")
    assert asked == []
    _refused_before_asking(
        handle, agent, r"names toolCallId 'tc1', which the agent gave to 2 different tool calls \('delete_db', 'send_email'\)", 1
    )


def test_a_tool_call_id_reused_across_runs_for_another_call_is_refused(runs_dir):
    """The conversation carried into run 2 holds run 1's call ``tc1``; run 2 gives ``tc1`` to another call."""
    first = _interrupting({"id": "i1", "reason": "tool_call", "toolCallId": "tc1"}, before=_call("tc1", "read", {"f": "a"}))

    def later(ids: dict[str, Any], resume: Any) -> list[dict[str, Any]]:
        again = _interrupting({"id": "i2", "reason": "tool_call", "toolCallId": "tc1"}, before=_call("tc1", "wipe", {}))
        return again(ids)

    agent = Agent(first, later)
    handle, asked = run("tidy up", AGUIAdapter(agent), runs_dir, decide="approve")
    assert [p.tool for p in asked] == ["agui.read"]  # run 1's call was asked about; run 2's never was
    assert handle.status == "error" and len(agent.inputs) == 2
    with pytest.raises(AGUIStreamError, match=r"interrupt #1 \('i2'\) of run 2 names toolCallId 'tc1'.*'read', 'wipe'"):
        handle.result()
    assert check_run(handle.run_dir) == []


def test_the_same_call_streamed_again_is_still_asked_about(runs_dir):
    """A server re-streaming the very call (same id, name and arguments) after a resume is no clash."""
    call = _call("tc1", "delete_file", {"path": "x.txt"})
    first = _interrupting({"id": "i1", "reason": "tool_call", "toolCallId": "tc1"}, before=call)
    second = _interrupting({"id": "i2", "reason": "tool_call", "toolCallId": "tc1"}, before=call)
    agent = Agent(first, lambda ids, resume: second(ids) if len(agent.inputs) == 2 else _done(ids, resume))
    handle, asked = run("delete x.txt", AGUIAdapter(agent), runs_dir, decide="approve")
    assert handle.status == "ok" and [p.tool for p in asked] == ["agui.delete_file", "agui.delete_file"]
    assert [body["resume"][0]["interruptId"] for body in agent.inputs[1:]] == ["i1", "i2"]
    assert check_run(handle.run_dir) == []


@pytest.mark.parametrize(
    "interrupts, message",
    [
        ([{"reason": "approve"}], r"interrupt #1 of run 1 has the id None, not a text"),
        ([{"id": 7, "reason": "approve"}], r"interrupt #1 of run 1 has the id 7, not a text"),
        ([], r"outcome 'interrupt' listing no interrupts"),
    ],
)
def test_interrupts_no_answer_can_be_addressed_to_are_refused_when_not_validated(runs_dir, interrupts, message):
    """``validate=False`` reads events leniently; an interrupt still needs an id its answer goes back under."""
    agent = Agent(_interrupting(*interrupts), _done)
    handle, asked = run("t", AGUIAdapter(agent, validate=False), runs_dir, decide="approve")
    assert asked == []
    _refused_before_asking(handle, agent, message, len(interrupts))


@pytest.mark.parametrize("outcome", ["cancelled", "success"])
def test_an_ended_run_carrying_interrupts_asks_nothing(runs_dir, outcome):
    """AG-UI's models keep unknown fields, so ``{"type": "cancelled", "interrupts": [...]}`` validates; it is refused."""

    def first(ids: dict[str, Any]) -> list[dict[str, Any]]:
        carried = {"type": outcome, "interrupts": [{"id": "i1", "reason": "delete_db", "message": "Delete prod?"}]}
        return [{"type": "RUN_STARTED", **ids}, {"type": "RUN_FINISHED", **ids, "outcome": carried}]

    agent = Agent(first, _done)
    handle, asked = run("t", AGUIAdapter(agent), runs_dir, decide="approve")
    assert asked == []
    _refused_before_asking(handle, agent, rf"outcome '{outcome}' carrying 1 interrupt\(s\), which only an interrupt outcome", 0)
    assert not [e for e in disk_events(handle) if e["payload"].get("kind") == "approval_requested"]
