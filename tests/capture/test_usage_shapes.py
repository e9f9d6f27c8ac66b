"""Usage in the shapes servers send (null, missing fields, zero against absent, details null, parts above their
totals), through the real SDKs served by a mock transport: each call one event, unknown kept None, never
an invented 0, and the run loads with ``usage_df(strict=True)``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from ..compat.checker import check_run
from .recorded_calls import calls, tokens

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx2 = pytest.importorskip("httpx2")

MSG = [{"role": "user", "content": "hi"}]
UNKNOWN = (None,) * 5


def _client(sdk: Any, base_url: str, status: int = 200, body: Any = None, events: list[Any] | None = None) -> Any:
    """A client whose every request gets ``body`` (JSON) or ``events`` (server-sent, named for Anthropic)."""
    headers = {"x-request-id": "req_shape", "request-id": "req_shape"}
    if events is None:
        content, headers["content-type"] = json.dumps(body).encode(), "application/json"
    else:
        named = sdk.__module__.startswith("anthropic")
        lines = [(f"event: {e['type']}\n" if named else "") + f"data: {json.dumps(e)}\n\n" for e in events]
        content, headers["content-type"] = ("".join(lines) + ("" if named else "data: [DONE]\n\n")).encode(), "text/event-stream"
    transport = httpx2.MockTransport(lambda request: httpx2.Response(status, headers=headers, content=content))
    return sdk(base_url=base_url, api_key="sk-test", max_retries=0, http_client=httpx2.Client(transport=transport))


def _chat(usage: Any = ..., **extra: Any) -> dict[str, Any]:
    body = {
        "id": "chatcmpl-shape",
        "object": "chat.completion",
        "created": 1764460800,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}],
        **extra,
    }
    if usage is not ...:
        body["usage"] = usage
    return body


def _response(usage: Any) -> dict[str, Any]:
    return {
        "id": "resp_shape",
        "object": "response",
        "created_at": 1764460800,
        "status": "completed",
        "model": "o4-mini-2025-04-16",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
    }


def _recorded(runs_dir: Path, agent: Any) -> list[dict[str, Any]]:
    ep = noesis_nb.solve("shapes", using=agent, runs_dir=runs_dir)
    assert check_run(runs_dir / ep) == []
    noesis_nb.usage_df(runs_dir, episodes=ep, strict=True)  # before the fix: refused, parts above their totals
    return calls(runs_dir, ep)


def test_a_part_above_its_total_is_unknown_and_the_total_kept(runs_dir: Path) -> None:
    over_chat = {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "prompt_tokens_details": {"cached_tokens": 50},
        "completion_tokens_details": {"reasoning_tokens": 9},
    }
    over_responses = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 11},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 6},
        "total_tokens": 15,
    }
    chunk = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini-2024-07-18"}
    stream = [
        {**chunk, "choices": [{"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}]},
        {**chunk, "choices": [], "usage": over_chat},
    ]

    def agent(task: str, ctx: Any) -> str:
        _client(openai.OpenAI, "http://provider.test/v1", body=_chat(over_chat)).chat.completions.create(
            model="gpt-4o-mini", messages=MSG
        )
        _client(openai.OpenAI, "http://provider.test/v1", body=_response(over_responses)).responses.create(
            model="o4-mini", input="hi"
        )
        streamed = _client(openai.OpenAI, "http://provider.test/v1", events=stream)
        list(streamed.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True))
        return "done"

    got = _recorded(runs_dir, agent)
    assert [tokens(p) for p in got] == [(10, None, None, 5, None)] * 3


def test_null_missing_and_zero_usage_are_kept_apart(runs_dir: Path) -> None:
    zeros = {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }
    no_details = {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "prompt_tokens_details": None,
        "completion_tokens_details": None,
    }
    chunk = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini-2024-07-18"}
    no_usage_chunk = [{**chunk, "choices": [{"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}]}]
    start = {
        "id": "msg_shape",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": None,
    }
    delta_only = [  # message_start without usage; message_delta's usage carries the whole count
        {"type": "message_start", "message": start},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"input_tokens": 30, "cache_read_input_tokens": 5, "cache_creation_input_tokens": None, "output_tokens": 7},
        },
        {"type": "message_stop"},
    ]

    def agent(task: str, ctx: Any) -> str:
        base = "http://provider.test/v1"
        for body in (_chat(None), _chat(), _chat(zeros), _chat(no_details), _chat({"prompt_tokens": 10, "total_tokens": 10})):
            _client(openai.OpenAI, base, body=body).chat.completions.create(model="gpt-4o-mini", messages=MSG)
        list(_client(openai.OpenAI, base, events=no_usage_chunk).chat.completions.create(model="m", messages=MSG, stream=True))
        claude = _client(anthropic.Anthropic, "http://provider.test", events=delta_only)
        list(claude.messages.create(model="claude-x", max_tokens=8, messages=MSG, stream=True))
        return "done"

    got = _recorded(runs_dir, agent)
    assert [tokens(p) for p in got] == [
        UNKNOWN,  # usage null
        UNKNOWN,  # usage absent
        (0, 0, None, 0, 0),  # zero is a count, not unknown
        (10, None, None, 5, None),  # details null: the parts unknown, not 0
        (10, None, None, None, None),  # completion_tokens missing
        UNKNOWN,  # a stream without stream_options: no usage chunk
        (35, 5, None, 7, None),  # Anthropic: message_delta's usage alone
    ]
    assert all(not p.get("abandoned") and "error" not in p and p["request_id"] == "req_shape" for p in got)


@pytest.mark.parametrize(
    "delta_usage, expected",
    [
        ({"output_tokens": 42}, (10, None, None, 42, None)),
        ({"input_tokens": 5}, (5, None, None, None, None)),  # before: output 1, message_start's placeholder
        ({}, (10, None, None, None, None)),
        ({"output_tokens": None}, (10, None, None, None, None)),
        (None, (10, None, None, None, None)),
    ],
)
def test_message_starts_placeholder_output_is_never_the_calls_output(runs_dir: Path, delta_usage: Any, expected: Any) -> None:
    start = {
        "id": "msg_shape",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    events = [
        {"type": "message_start", "message": start},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": delta_usage},
        {"type": "message_stop"},
    ]

    def agent(task: str, ctx: Any) -> str:
        claude = _client(anthropic.Anthropic, "http://provider.test", events=events)
        list(claude.messages.create(model="claude-x", max_tokens=8, messages=MSG, stream=True))
        return "done"

    (call,) = _recorded(runs_dir, agent)
    assert tokens(call) == expected and call["stop_reason"] == "end_turn" and not call.get("abandoned")
