"""The AG-UI conversation held in memory for the next run (servers without thread state need it whole) is bounded.

Each message, tool call and tool answer a run streamed was appended to it for as long as the run went on: an agent
streaming for hours grew the kernel's memory without end. Past ``max_conversation_chars`` it is let go; an
interrupt then ends the episode naming the bound (the next run cannot be made without it), and a run that does not
interrupt never needed it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ag_ui.core")

from noesis_nb.integrations.agui import AGUIAdapter
from noesis_nb.integrations.agui._events import AGUIFolder

from .helpers import run
from .test_agui_memory import _held

MESSAGES = 400
TEXT = "y" * 1000
CAP = 50_000  # a tenth of what the run streams


def _events(body: dict[str, Any], interrupt: bool) -> list[dict[str, Any]]:
    tid, rid = body["threadId"], body["runId"]
    events: list[dict[str, Any]] = [{"type": "RUN_STARTED", "threadId": tid, "runId": rid}]
    for n in range(MESSAGES):
        events += [
            {"type": "TEXT_MESSAGE_START", "messageId": f"m{n}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{n}", "delta": TEXT},
            {"type": "TEXT_MESSAGE_END", "messageId": f"m{n}"},
            {"type": "TOOL_CALL_START", "toolCallId": f"c{n}", "toolCallName": "search", "parentMessageId": f"m{n}"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": f"c{n}", "delta": json.dumps({"q": TEXT})},
            {"type": "TOOL_CALL_END", "toolCallId": f"c{n}"},
            {"type": "TOOL_CALL_RESULT", "messageId": f"r{n}", "toolCallId": f"c{n}", "content": TEXT},
        ]
    asked = {"id": "i1", "reason": "tool_approval", "toolCallId": f"c{MESSAGES - 1}"}
    outcome = {"outcome": {"type": "interrupt", "interrupts": [asked]}} if interrupt else {}
    events.append({"type": "RUN_FINISHED", "threadId": tid, "runId": rid, **outcome})
    return events


class LongAgent:
    """An in-process AG-UI agent whose one run streams MESSAGES messages, each with a tool call and its answer."""

    def __init__(self, interrupt: bool) -> None:
        self.interrupt = interrupt
        self.runs = 0

    async def run(self, run_input: Any) -> Any:
        self.runs += 1
        for event in _events(run_input.model_dump(by_alias=True, exclude_none=True, mode="json"), self.interrupt):
            yield event


def test_a_folder_lets_the_conversation_go_past_its_bound_and_a_snapshot_gives_it_back() -> None:
    folder = AGUIFolder([{"id": "u1", "role": "user", "content": "go"}], max_conversation_chars=CAP)
    for event in _events({"threadId": "t", "runId": "r"}, interrupt=False)[:-1]:
        folder.feed(event)
    streamed = MESSAGES * 3 * len(TEXT)
    assert folder.dropped is not None and CAP < folder.dropped < 2 * CAP
    assert folder.messages == [] and _held(folder) < 3 * CAP, f"{_held(folder)} bytes held after {streamed} streamed"
    folder.feed({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u1", "role": "user", "content": "again"}]})
    assert folder.dropped is None and [m["content"] for m in folder.messages] == ["again"]


def test_an_interrupt_after_the_conversation_was_let_go_ends_the_episode_naming_the_bound(runs_dir: Path) -> None:
    agent = LongAgent(interrupt=True)
    handle, pending = run("go", AGUIAdapter(agent, max_conversation_chars=CAP), runs_dir, decide="approve")
    assert handle.status == "error" and pending == [] and agent.runs == 1  # nothing asked, nothing resumed
    assert "max_conversation_chars=50000" in str(handle.error) and "MESSAGES_SNAPSHOT" in str(handle.error)


def test_a_run_without_interrupt_never_needed_the_conversation_and_ends_ok(runs_dir: Path) -> None:
    agent = LongAgent(interrupt=False)
    handle, _ = run("go", AGUIAdapter(agent, max_conversation_chars=CAP), runs_dir)
    assert handle.status == "ok" and agent.runs == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, "10", True])
def test_a_bound_that_is_no_positive_count_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"max_conversation_chars=.*above 0.*or None"):
        AGUIAdapter(LongAgent(False), max_conversation_chars=bad)
