"""SDK surfaces beyond plain ``create``: stream helpers closed early.

Each billed request is one ``model.call`` with what the provider reported, written when the call
ends; what the SDK returns or raises is its own.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

import noesis_nb
from noesis_nb.capture.calls import CLOSED

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

MSG = [{"role": "user", "content": "hi"}]
PAUSE = 0.5  # the agent works on after closing the stream: not part of the call


def calls(runs_dir, episode_id):
    lines = (runs_dir / episode_id / "events.jsonl").read_text().splitlines()
    return [e["payload"] for e in map(json.loads, lines) if e["phase"] == "model"]


def tokens(payload):
    keys = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_tokens")
    return tuple(payload[k] for k in keys)


def _openai(stub):
    return openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)


def _claude(stub):
    return anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)


def close_openai_stream(stub):
    stream = _openai(stub).chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
    next(iter(stream))
    stream.close()
    return stream


def leave_chat_stream_helper(stub):
    with _openai(stub).chat.completions.stream(model="gpt-4o-mini", messages=MSG) as stream:
        next(iter(stream))
    return stream


def leave_responses_stream_helper(stub):
    with _openai(stub).responses.stream(model="o4-mini", input="hi") as stream:
        next(iter(stream))
    return stream


def leave_messages_stream_helper(stub):
    with _claude(stub).messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
        next(iter(stream))
    return stream


def leave_async_messages_stream_helper(stub):
    async def run():
        client = anthropic.AsyncAnthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        async with client.messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
            await stream.__anext__()
        return stream

    return asyncio.run(run())


@pytest.mark.parametrize(
    "close",
    [
        close_openai_stream,
        leave_chat_stream_helper,
        leave_responses_stream_helper,
        leave_messages_stream_helper,
        leave_async_messages_stream_helper,
    ],
)
def test_a_stream_the_caller_closes_early_ends_its_call_at_the_close(stub, runs_dir, close):
    kept = []

    def agent(task, ctx):
        kept.append(close(stub))  # still referenced: not collected, so only the close can end the call
        time.sleep(PAUSE)
        return "ok"

    ep = noesis_nb.solve("close early", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert call["abandoned"] is True and call["abandoned_reason"] == CLOSED
    assert call["streamed"] is True and call["request_id"].startswith("req_")
    assert call["latency_ms"] < PAUSE * 1000  # ended at the close, not when the adapter returned
    assert call["output_tokens"] is None  # the stream never reported its output


def test_a_stream_read_to_its_end_and_kept_is_complete_not_closed(stub, runs_dir):
    def agent(task, ctx):
        with _claude(stub).messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
            message = stream.get_final_message()
        stream.close()  # closing an ended stream again changes nothing
        return [message.usage.input_tokens, message.usage.output_tokens]

    ep = noesis_nb.solve("read all", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert "abandoned" not in call and call["stop_reason"] == "end_turn" and call["output_tokens"] is not None
