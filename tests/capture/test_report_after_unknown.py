"""An adapter's own ``ctx.model_call`` right after a captured call whose counts are unknown (a stream without its
usage chunk): that call, one event, never two; and never another call swallowed. Real SDKs against the loopback
provider in its documented shapes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from .recorded_calls import checked_calls, model_event_ids, tokens

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

MSG = [{"role": "user", "content": "hi"}]


def _client(stub: Any) -> Any:
    return openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)


def test_an_estimate_reported_after_a_stream_without_usage_is_that_call(stub: Any, runs_dir: Path) -> None:
    ids: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        client = _client(stub)
        for _ in client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True):  # no usage chunk
            pass
        ids.append(ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=11, output_tokens=3))
        return "done"

    ep = noesis_nb.solve("estimate after a stream", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    # before: two events, the captured call (unknown counts) and the adapter's estimate of the same call
    assert len(got) == 1 and got[0]["capture"] == "openai"
    assert got[0]["input_tokens"] is None and got[0]["output_tokens"] is None  # the provider's, as it left them
    assert ids == model_event_ids(runs_dir, ep)


def test_an_anthropic_stream_closed_before_its_delta_is_the_report_that_follows(stub: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        with claude.messages.stream(model="claude-x", max_tokens=8, messages=MSG) as stream:
            for event in stream:
                if event.type == "content_block_delta":
                    break  # the output count never came; the uncached input did (message_start)
        ctx.model_call("claude-x", provider="anthropic", input_tokens=200, output_tokens=4)
        return "done"

    ep = noesis_nb.solve("closed early", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)
    assert call["abandoned"] is True and call["input_tokens"] == 1500 and call["output_tokens"] is None


def test_a_report_that_is_not_right_after_or_not_that_call_is_written(stub: Any, runs_dir: Path) -> None:
    def stream(client: Any) -> None:
        for _ in client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True):
            pass

    def agent(task: str, ctx: Any) -> str:
        client = _client(stub)
        stream(client)
        ctx.model_call("o3", input_tokens=11, output_tokens=3)  # another model: written, and the chance is gone
        ctx.model_call("gpt-4o-mini", input_tokens=11, output_tokens=3)  # not right after: written
        stream(client)
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)  # another captured call in between
        ctx.model_call("gpt-4o-mini", input_tokens=12, output_tokens=4)  # not the whole call's counts: written
        stream(client)
        ctx.model_call("gpt-4o-mini", input_tokens=11, output_tokens=3, request_id="req_elsewhere")  # another id
        return "done"

    ep = noesis_nb.solve("not right after", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p.get("capture"), p["model"]) for p in got] == [
        ("openai", "gpt-4o-mini-2024-07-18"),
        (None, "o3"),
        (None, "gpt-4o-mini"),
        ("openai", "gpt-4o-mini-2024-07-18"),
        ("openai", "gpt-4o-mini-2024-07-18"),
        (None, "gpt-4o-mini"),
        ("openai", "gpt-4o-mini-2024-07-18"),
        (None, "gpt-4o-mini"),
    ]


def test_a_report_from_another_task_is_not_the_call_its_task_just_made(stub: Any, runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> str:
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        streamed = asyncio.Event()

        async def reader() -> None:
            async for _ in await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True):
                pass
            streamed.set()
            await asyncio.sleep(0.05)
            ctx.model_call("gpt-4o-mini", input_tokens=11, output_tokens=3)  # its own estimate: that call

        async def other() -> None:
            await streamed.wait()
            ctx.model_call("gpt-4o-mini", input_tokens=40, output_tokens=9)  # a call made elsewhere: written

        await asyncio.gather(reader(), other())
        return "done"

    ep = noesis_nb.solve("two tasks", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p.get("capture"), p["input_tokens"]) for p in got] == [("openai", None), (None, 40)]


def test_a_report_naming_the_request_id_of_a_call_the_sdk_raised_on_is_that_call(stub: Any, runs_dir: Path) -> None:
    from .provider_stub import Reply

    stub.script("/v1/messages", Reply(529, {"type": "error", "error": {"type": "overloaded_error"}}))
    ids: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        try:
            claude.messages.create(model="claude-x", max_tokens=8, messages=MSG)
        except anthropic.APIStatusError as exc:  # the SDK's own error, its request id from the response's header
            ids.append(ctx.model_call("claude-x", provider="anthropic", request_id=exc.request_id))
        return "done"

    ep = noesis_nb.solve("a failed call reported", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)  # before: the failed call and the report of it, two events
    assert call["error"]["status_code"] == 529 and call["request_id"].startswith("req_")
    assert ids == model_event_ids(runs_dir, ep)


def test_an_estimate_reported_while_a_stream_without_usage_is_still_open_fills_it(stub: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        stream = _client(stub).chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        for chunk in stream:
            if chunk.choices and chunk.choices[0].finish_reason:  # [DONE] never read: the stream is still open
                ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=11, output_tokens=3)
                break
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        with claude.messages.stream(model="claude-x", max_tokens=8, messages=MSG) as events:
            for event in events:
                if event.type == "content_block_delta":  # the output count is still to come
                    ctx.model_call("claude-x", provider="anthropic", input_tokens=200, output_tokens=4)
                    break
        return "done"

    ep = noesis_nb.solve("estimate while open", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    # before: four events, each stream once as captured and once as the adapter said it
    assert [(p["capture"], p.get("abandoned")) for p in got] == [("openai", None), ("anthropic", None)]
    assert [tokens(p) for p in got] == [(11, None, None, 3, None), (1500, 1000, 300, 4, None)]  # what the stream knew wins
    assert got[0]["stop_reason"] == "stop" and got[0]["request_id"].startswith("req_")


def test_a_report_from_another_task_while_a_stream_is_open_is_written_apart(stub: Any, runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> str:
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        opened = asyncio.Event()

        async def other() -> None:
            await opened.wait()
            ctx.model_call("gpt-4o-mini", input_tokens=40, output_tokens=9)  # a call made elsewhere, meanwhile

        async def read() -> None:
            async for _ in stream:
                opened.set()
                await asyncio.sleep(0.01)

        await asyncio.gather(read(), other())
        return "done"

    ep = noesis_nb.solve("another task meanwhile", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p.get("capture"), p["input_tokens"]) for p in got] == [(None, 40), ("openai", None)]
