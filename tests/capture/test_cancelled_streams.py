"""A stream (or a call) cut off by a cancellation or by the adapter's error: recorded ``abandoned``, with a reason that
says what happened, never as the call's own error. The real SDKs against the loopback provider, or a transport whose
stream stalls after its first chunk (the provider still answering when the task is cancelled)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from ..compat.checker import check_run
from .provider_stub import Reply
from .recorded_calls import calls

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx2 = pytest.importorskip("httpx2")

MSG = [{"role": "user", "content": "hi"}]
CHUNK = {
    "id": "chatcmpl-stall",
    "object": "chat.completion.chunk",
    "created": 1764460800,
    "model": "gpt-4o-mini-2024-07-18",
    "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Do"}, "finish_reason": None}],
}
CLAUDE_START = {
    "type": "message_start",
    "message": {
        "id": "msg_stall",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 200, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 0, "output_tokens": 1},
    },
}


class _Stalling(httpx2.AsyncByteStream):
    """One event, then nothing for a minute (a model still thinking)."""

    def __init__(self, first: bytes) -> None:
        self.first = first

    async def __aiter__(self) -> Any:
        yield self.first
        await asyncio.sleep(60)


def _stalling_client(sdk: Any, base_url: str, first: dict[str, Any], event: str | None) -> Any:
    line = (f"event: {event}\n" if event else "") + f"data: {json.dumps(first)}\n\n"
    headers = {"content-type": "text/event-stream", "x-request-id": "req_stall", "request-id": "req_stall"}

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers=headers, stream=_Stalling(line.encode()))

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return sdk(base_url=base_url, api_key="sk-test", max_retries=0, http_client=http)


def _cancel_after(adapter: Any, runs_dir: Path, ready: Any) -> Any:
    """Start an episode, cancel it once ``ready()`` is true, and return its handle."""

    async def main() -> Any:
        handle = noesis_nb.start("cut off", using=adapter, runs_dir=runs_dir)
        deadline = time.monotonic() + 10
        while not ready() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        handle.cancel()
        await handle.wait()
        return handle

    return asyncio.run(main())


def _one_call(handle: Any) -> dict[str, Any]:
    assert check_run(handle.run_dir) == []
    (call,) = calls(handle.run_dir.parent, handle.run_dir.name)
    return call


def test_a_stream_left_open_when_the_episode_is_cancelled_says_it_was_cancelled(stub: Any, runs_dir: Path) -> None:
    read: list[str] = []

    async def agent(task: str, ctx: Any) -> None:
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        async for chunk in stream:
            read.append(chunk.id)
            await asyncio.sleep(60)  # the adapter waits on something else with the stream open

    handle = _cancel_after(agent, runs_dir, lambda: bool(read))
    call = _one_call(handle)
    assert handle.status == "cancelled"
    assert call["abandoned"] is True and "error" not in call
    # before: "the episode's adapter returned before the stream ended", of an adapter that never returned
    assert call["abandoned_reason"] == "the episode was cancelled before the stream ended"


def test_a_stream_left_open_by_an_adapter_that_raised_names_the_error(stub: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> None:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        next(iter(stream))
        raise LookupError("the tool the answer named is missing")

    ep = noesis_nb.solve("raises", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert call["abandoned"] is True and "error" not in call
    assert call["abandoned_reason"] == (
        "the episode ended on an error before the stream ended (LookupError: the tool the answer named is missing)"
    )


def test_a_stream_left_open_at_an_idle_timeout_names_the_timeout_not_an_adapter_error(stub: Any, runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> None:
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        async for _chunk in stream:
            await asyncio.sleep(60)  # silent: the episode's idle timeout ends it, the adapter raises nothing

    ep = noesis_nb.solve("idle", using=agent, runs_dir=runs_dir, idle_timeout_s=0.3)
    (call,) = calls(runs_dir, ep)
    assert call["abandoned"] is True and "error" not in call
    reason = call["abandoned_reason"]
    # before: "the episode's adapter returned before the stream ended" (first fix: "… adapter raised _IdleTimeout …")
    assert reason.startswith("the episode ended on an error before the stream ended (the adapter neither emitted"), reason
    assert "idle_timeout_s=0.3" in reason and "_IdleTimeout" not in reason


def test_a_stream_left_open_when_the_adapter_returned_still_says_so(stub: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        stream = client.messages.create(model="claude-x", max_tokens=8, messages=MSG, stream=True)
        next(iter(stream))
        agent.stream = stream  # type: ignore[attr-defined]  # kept alive: left open, not dropped
        return "done"

    ep = noesis_nb.solve("returns", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert call["abandoned_reason"] == "the episode's adapter returned before the stream ended"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_stream_cancelled_while_it_waits_for_the_next_event_is_abandoned_not_failed(runs_dir: Path, provider: str) -> None:
    read: list[Any] = []

    async def agent(task: str, ctx: Any) -> None:
        if provider == "openai":
            client = _stalling_client(openai.AsyncOpenAI, "http://provider.test/v1", CHUNK, None)
            stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        else:
            client = _stalling_client(anthropic.AsyncAnthropic, "http://provider.test", CLAUDE_START, "message_start")
            stream = await client.messages.create(model="claude-x", max_tokens=8, messages=MSG, stream=True)
        async for event in stream:  # cancelled while the SDK waits for the second event
            read.append(event)

    handle = _cancel_after(agent, runs_dir, lambda: bool(read))
    call = _one_call(handle)
    # before: {"error": {"type": "CancelledError", "message": ""}}, as if the provider had failed the call
    assert "error" not in call, call["error"]
    assert call["abandoned"] is True and call["abandoned_reason"].startswith("the call was cancelled")
    assert call["request_id"] == "req_stall" and call["streamed"] is True
    if provider == "anthropic":  # what message_start reported is kept; its output count is a placeholder
        assert (call["input_tokens"], call["cached_input_tokens"], call["output_tokens"]) == (1200, 1000, None)
    else:
        assert call["input_tokens"] is None and call["model"] == "gpt-4o-mini-2024-07-18"


def test_an_async_call_in_flight_at_the_cancel_is_abandoned_not_failed(stub: Any, runs_dir: Path) -> None:
    stub.script("/v1/chat/completions", Reply(delay=1.0))
    sent = stub.hits("/v1/chat/completions")

    async def agent(task: str, ctx: Any) -> None:
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        await client.chat.completions.create(model="gpt-4o-mini", messages=MSG)

    handle = _cancel_after(agent, runs_dir, lambda: stub.hits("/v1/chat/completions") > sent)
    call = _one_call(handle)
    assert "error" not in call, call["error"]  # before: a CancelledError with an empty message
    assert call["abandoned"] is True and call["abandoned_reason"].startswith("the call was cancelled")
    assert call["input_tokens"] is None and call["output_tokens"] is None
    time.sleep(1.1)  # the server's late answer goes nowhere


def test_a_key_in_the_error_that_cut_a_stream_off_is_redacted_in_its_reason(stub: Any, runs_dir: Path) -> None:
    key = "sk-proj-" + "Q7x9LmN2pR4sT6vW8yZ0aB3cD5eF7gH9"

    def agent(task: str, ctx: Any) -> None:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        next(iter(stream))
        raise PermissionError(f"the proxy refused {key}")

    ep = noesis_nb.solve("leaks", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert call["abandoned_reason"].startswith("the episode ended on an error before the stream ended (PermissionError")
    assert key not in (runs_dir / ep / "events.jsonl").read_text() and "[REDACTED]" in call["abandoned_reason"]
