"""An adapter's own ``ctx.model_call`` for a stream it is still reading (at the usage chunk, inside its ``for`` loop):
one event for the call, never two. Real SDKs against the loopback provider."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import read_events

from .recorded_calls import checked_calls, tokens

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

MSG = [{"role": "user", "content": "hi"}]
USAGE = {"include_usage": True}


def test_a_report_at_the_usage_chunk_of_each_api_is_the_captured_call_not_a_second_one(stub: Any, runs_dir: Path) -> None:
    ids: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True, stream_options=USAGE)
        for chunk in stream:
            if chunk.usage:  # the last chunk: the stream has not ended yet
                u = chunk.usage
                ids.append(ctx.model_call("gpt-4o-mini", input_tokens=u.prompt_tokens, output_tokens=u.completion_tokens))
        stream = client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True, stream_options=USAGE)
        for chunk in stream:
            if chunk.usage:  # naming the request id the response's header gave (and counts that do not contradict it)
                rid = stream.response.headers["x-request-id"]
                ids.append(ctx.model_call("gpt-4o-mini", input_tokens=1200, output_tokens=None, request_id=rid))
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        for event in claude.messages.create(model="claude-x", max_tokens=8, messages=MSG, stream=True):
            if event.type == "message_delta":  # message_stop still to come; the uncached input, as Anthropic says it
                ids.append(ctx.model_call("claude-x", input_tokens=200, output_tokens=event.usage.output_tokens))

        async def responses() -> None:
            aclient = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
            async for event in await aclient.responses.create(model="o4-mini", input="hi", stream=True):
                if event.type == "response.completed":
                    u = event.response.usage
                    ids.append(ctx.model_call("o4-mini", input_tokens=u.input_tokens, output_tokens=u.output_tokens))

        asyncio.run(responses())
        return "done"

    ep = noesis_nb.solve("reports while reading", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    # before: eight events, each call once as the adapter said it and once as captured
    assert [p["capture"] for p in got] == ["openai", "openai", "anthropic", "openai"]
    model_events = [e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "model"]
    assert ids == [e["id"] for e in model_events]  # each report returned the captured event's id
    assert [tokens(p) for p in got] == [
        (1200, 1000, None, 90, 64),
        (1200, 1000, None, 90, 64),  # the counts the stream reported, the one the adapter left out too
        (1500, 1000, 300, 80, None),
        (1200, 1000, None, 90, 64),
    ]
    assert [p["stop_reason"] for p in got] == ["stop", "stop", "end_turn", "completed"]
    assert all(p["request_id"] and not p.get("abandoned") for p in got)


def test_a_report_naming_the_request_before_the_usage_came_gives_the_adapters_counts(stub: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)  # no usage chunk
        reported = False
        for _chunk in stream:
            if not reported:
                rid = stream.response.headers["x-request-id"]
                ctx.model_call("gpt-4o-mini", input_tokens=12, output_tokens=5, cached_input_tokens=4, request_id=rid)
                reported = True
        return "done"

    ep = noesis_nb.solve("reports early", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)
    assert call["capture"] == "openai" and call["request_id"].startswith("req_")
    assert tokens(call) == (12, 4, None, 5, None)  # the stream says nothing of its usage: the adapter's counts


def test_a_report_of_another_call_while_a_stream_is_open_is_written_and_the_stream_too(stub: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True, stream_options=USAGE)
        for chunk in stream:
            if chunk.usage:  # another model's call (made over plain HTTP), with other counts
                ctx.model_call("gpt-4o-mini", input_tokens=1200, output_tokens=91)
                ctx.model_call("o3", input_tokens=1200, output_tokens=90)
                ctx.model_call("gpt-4o-mini", input_tokens=5, output_tokens=1, request_id="req_elsewhere")
        return "done"

    ep = noesis_nb.solve("reports another", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p.get("capture"), p["model"]) for p in got] == [
        (None, "gpt-4o-mini"),
        (None, "o3"),
        (None, "gpt-4o-mini"),
        ("openai", "gpt-4o-mini-2024-07-18"),
    ]
    assert tokens(got[-1]) == (1200, 1000, None, 90, 64)
