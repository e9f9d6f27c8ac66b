"""Entry points whose model calls noesis_nb records on its own: the official SDKs and GenAI OpenTelemetry spans.

The SDKs talk to a loopback server answering in each provider's documented shapes (streams
included); the spans come from a real OpenTelemetry SDK tracer carrying noesis_nb's processor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anthropic
import openai
from opentelemetry.sdk.trace import TracerProvider

import noesis_nb
from tests.capture.provider_stub import ProviderStub
from tests.runtime.agents import write_argv

from .entrypoints import _runs

MSG = [{"role": "user", "content": "hi"}]


def _sync_calls(stub: ProviderStub) -> list[Any]:
    """Every sync API the capture knows, streamed and not, as an agent would call them."""
    client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
    chat = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
    chunks = client.chat.completions.create(
        model="gpt-4o-mini", messages=MSG, stream=True, stream_options={"include_usage": True}
    )
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    response = client.responses.create(model="o4-mini", input="hi")
    with client.responses.stream(model="o4-mini", input="hi") as events:
        final = events.get_final_response()
    claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
    message = claude.messages.create(model="claude-sonnet-4-6", max_tokens=64, messages=MSG)
    with claude.messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
        last = stream.get_final_message()
    return [chat.id, streamed, response.id, final.id, message.id, last.id]


async def _async_calls(stub: ProviderStub) -> list[Any]:
    client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
    stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
    pieces = [c.choices[0].delta.content async for c in stream if c.choices]
    claude = anthropic.AsyncAnthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
    message = await claude.messages.create(model="claude-haiku-4-5", max_tokens=10, messages=MSG)
    async with claude.messages.stream(model="claude-haiku-4-5", max_tokens=10, messages=MSG) as events:
        async for _ in events:
            pass
    return ["".join(p or "" for p in pieces), message.id]


def sdk_capture(root: Path) -> list[Path]:
    """A sync and an async adapter calling both SDKs, and one that calls a model, then a tool approved live."""
    stub = ProviderStub()
    runs = root / "runs"
    out = root / "out.txt"

    def sync_agent(task: str, ctx: Any) -> list[Any]:
        return _sync_calls(stub)

    async def async_agent(task: str, ctx: Any) -> list[Any]:
        return await _async_calls(stub)

    async def model_then_tool(task: str, ctx: Any) -> Any:
        reply = await openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=MSG
        )
        return await ctx.tool_async("fs.append", {"argv": write_argv(out, reply.id)}, effect="write", risk="high")

    async def live() -> None:
        handle = noesis_nb.start("ask, then write", using=model_then_tool, runs_dir=runs, approver="ask")
        await handle
        assert handle.status == "paused", handle.status
        handle.approve(approver_id="ana")
        await handle.wait()

    try:
        noesis_nb.solve("every sync api", using=sync_agent, runs_dir=runs)
        noesis_nb.solve("async clients", using=async_agent, runs_dir=runs)
        asyncio.run(live())
    finally:
        stub.close()
    return _runs(runs)


def otel_spans(root: Path) -> list[Path]:
    """GenAI spans (current conventions and OpenInference's) from a real SDK tracer, inside an episode."""
    provider = TracerProvider()
    provider.add_span_processor(noesis_nb.capture.span_processor())
    tracer = provider.get_tracer("compat")

    def agent(task: str, ctx: Any) -> str:
        with tracer.start_as_current_span("chat gpt-4.1") as span:
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4.1",
                    "gen_ai.response.id": "chatcmpl-span-1",
                    "gen_ai.usage.input_tokens": 3000,
                    "gen_ai.usage.output_tokens": 400,
                }
            )
        with tracer.start_as_current_span("ChatAnthropic") as span:
            span.set_attributes(
                {
                    "openinference.span.kind": "LLM",
                    "llm.model_name": "claude-haiku-4-5",
                    "llm.token_count.prompt": 900,
                    "llm.token_count.completion": 30,
                }
            )
        with tracer.start_as_current_span("execute_tool search") as span:
            span.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"})
        with tracer.start_as_current_span("failed") as span:
            span.set_attributes(
                {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1", "error.type": "RateLimitError"}
            )
        return "spans"

    try:
        noesis_nb.solve("spans", using=agent, runs_dir=root / "runs")
    finally:
        provider.shutdown()
    return _runs(root / "runs")


def imported_records(root: Path) -> list[Path]:
    """Saved Noeta envelopes and hand-made rows (usage, a complete verb phase, extension phases) imported as runs."""
    from noesis_nb.integrations._emit import row, usage_row
    from noesis_nb.integrations.noeta import import_noeta
    from noesis_nb.integrations.replay import import_rows
    from tests.integrations.test_noeta_envelopes import SAVED

    runs = root / "runs"
    import_noeta(SAVED, runs_dir=runs)
    rows = [
        row("integration", "log", "run_started", "run_started"),
        ("observe", {"task": "read the log", "tags": {}, "timestamp": "2025-01-01T00:00:00+00:00", "source": "log"}),
        usage_row("log", model="gpt-4o-mini", provider="openai", input_tokens=120, output_tokens=30),
        ("reason", {"text": "the build failed on a flaky test", "source": "log"}),
        ("memory", {"kind": "memory_injection", "source": "log"}),
        ("reflect", {"success": True, "source": "log"}),
        row("integration", "log", "run_finished", "run_finished", answer="retry the job"),
    ]
    import_rows(rows, task="read the log", source="log", runs_dir=runs)
    return _runs(runs)


ENTRY_POINTS = {"sdk-capture": sdk_capture, "otel-spans": otel_spans, "imported-records": imported_records}
