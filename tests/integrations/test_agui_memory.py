"""What an AG-UI run keeps in memory while it streams a long conversation: the conversation once, no more.

Every finished tool call was held twice — its arguments as text in its message (sent again on a resume) and
parsed again in a table by id — so a long run of tool calls held twice what the conversation weighs. The
table is gone: an interrupt reads the call it names from its message.
"""

from __future__ import annotations

import gc
import json
import sys
from typing import Any

from noesis_nb.integrations.agui._events import AGUIFolder

CALLS = 2000
ARGS = json.dumps({"query": "x" * 2000})


def _held(root: Any) -> int:
    """Bytes of every object reachable from ``root`` (each counted once; classes and modules left out)."""
    seen: set[int] = set()
    todo = [root]
    total = 0
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, type) or type(item).__name__ in ("module", "function", "method"):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        todo.extend(gc.get_referents(item))
    return total


def _stream(folder: AGUIFolder) -> None:
    folder.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    for n in range(CALLS):
        folder.feed({"type": "TEXT_MESSAGE_START", "messageId": f"m{n}", "role": "assistant"})
        folder.feed({"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{n}", "delta": "calling"})
        folder.feed({"type": "TEXT_MESSAGE_END", "messageId": f"m{n}"})
        folder.feed({"type": "TOOL_CALL_START", "toolCallId": f"c{n}", "toolCallName": "search", "parentMessageId": f"m{n}"})
        for at in range(0, len(ARGS), 500):
            folder.feed({"type": "TOOL_CALL_ARGS", "toolCallId": f"c{n}", "delta": ARGS[at : at + 500]})
        folder.feed({"type": "TOOL_CALL_END", "toolCallId": f"c{n}"})


def test_a_long_run_of_tool_calls_holds_each_call_once() -> None:
    folder = AGUIFolder([{"id": "u1", "role": "user", "content": "go"}])
    _stream(folder)
    conversation = CALLS * len(ARGS)
    held = _held(folder)
    assert held < 1.5 * conversation, f"{held} bytes held for {conversation} bytes of arguments"
    # what a resume sends is all there: each call in its message, in order
    calls = [c for m in folder.messages for c in m.get("toolCalls", [])]
    assert len(calls) == CALLS and all(c["function"]["arguments"] == ARGS for c in calls)
    assert [m["id"] for m in folder.messages[:3]] == ["u1", "m0", "m1"]


def test_an_interrupt_names_a_call_read_from_its_message() -> None:
    folder = AGUIFolder()
    _stream(folder)
    rows = folder.feed(
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r",
            "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "toolCallId": f"c{CALLS - 1}", "reason": "ok?"}]},
        }
    )
    assert any("approval_requested" in repr(r) and "'search'" in repr(r) for r in rows), rows
    call = folder.tool_call(f"c{CALLS - 1}")
    assert call == {"id": f"c{CALLS - 1}", "name": "search", "args": {"query": "x" * 2000}}
    assert folder.tool_call("nope") is None


def test_an_interrupt_naming_a_call_of_a_messages_snapshot_finds_it() -> None:
    folder = AGUIFolder()
    snapshot = [
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [{"id": "k1", "type": "function", "function": {"name": "rm", "arguments": "{}"}}],
        }
    ]
    folder.feed({"type": "MESSAGES_SNAPSHOT", "messages": snapshot})
    assert folder.tool_call("k1") == {"id": "k1", "name": "rm", "args": {}}


def test_an_http_agent_serving_many_episodes_keeps_only_its_last_request_bodies(runs_dir: Any) -> None:
    """One ``AGUIHttpAgent`` serves every episode of a batch; it kept every request body it sent (each with its
    whole conversation) for as long as it lived."""
    import asyncio

    import pytest

    pytest.importorskip("ag_ui.core")
    pytest.importorskip("httpx")
    import noesis_nb
    from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent
    from noesis_nb.integrations.agui._http import REQUESTS_KEPT

    from .scripted_agui import AGUITestServer

    episodes = REQUESTS_KEPT + 5
    with AGUITestServer() as server:
        agent = AGUIHttpAgent(server.url("raw/multiline"))

        async def cell() -> list[str]:
            done = await noesis_nb.batch(
                [f"task {n}" for n in range(episodes)], using=AGUIAdapter(agent), root=runs_dir, concurrency=1
            )
            return [str(e.status) for e in done.entries]

        statuses = asyncio.run(cell())
        assert statuses == ["ok"] * episodes and len(server.requests) == episodes
    assert len(agent.requests) == REQUESTS_KEPT
    assert agent.requests[-1]["messages"] == server.requests[-1]["body"]["messages"]  # the newest kept, last
