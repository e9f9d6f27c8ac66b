"""An id joins two records into one call only when they agree (README, "Once").

One call seen twice (an SDK capture and a span, a capture and the adapter's ``ctx.model_call``) is written
once; but a server may give every answer one constant id, and a placeholder (``" "``, ``"null"``, ``"0"``)
names no call: records that share an id and contradict each other (model, counts) are different calls, all
written, and a ``CallIdShared`` warning names the id once."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.capture import CallIdShared

from .provider_stub import ANTHROPIC_DEFAULT, DEFAULT, ProviderStub, Reply, anthropic_message, chat_completion
from .recorded_calls import checked_calls, model_event_ids

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]


def _solve(agent: Any, runs_dir: Path) -> tuple[str, list[str]]:
    """The episode id, and the ``CallIdShared`` warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ep = noesis_nb.solve("ids", using=agent, runs_dir=runs_dir)
    return ep, [str(w.message) for w in caught if issubclass(w.category, CallIdShared)]


@pytest.mark.parametrize("response_id", ["chatcmpl-123", " ", "null", "0"])
def test_spans_sharing_an_id_but_not_their_counts_are_each_a_call(tracer: Any, runs_dir: Path, response_id: str) -> None:
    def agent(task: str, ctx: Any) -> str:
        for i in range(3):
            with tracer.start_as_current_span("chat llama") as span:
                span.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "llama3",
                        "gen_ai.response.id": response_id,
                        "gen_ai.usage.input_tokens": 200 + i,
                        "gen_ai.usage.output_tokens": 5,
                    }
                )
        return "ok"

    ep, said = _solve(agent, runs_dir)
    assert [p["input_tokens"] for p in checked_calls(runs_dir, ep)] == [200, 201, 202]  # before: [200]
    if response_id == "chatcmpl-123":  # a real id shared by calls that differ: said once, naming it
        assert len(said) == 1 and "'chatcmpl-123'" in said[0]
    else:  # a placeholder is no id: nothing shared
        assert said == []


def test_a_span_repeating_a_captured_call_by_its_id_writes_nothing_and_one_contradicting_it_is_written(
    tracer: Any, stub: ProviderStub, runs_dir: Path
) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        answer = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        for model, inp in (("gpt-4o-mini", 1200), ("llama3", 1200), ("gpt-4o-mini", 77)):
            with tracer.start_as_current_span("chat") as span:  # ended after the call: not covered by it
                span.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": model,
                        "gen_ai.response.id": answer.id,
                        "gen_ai.usage.input_tokens": inp,
                        "gen_ai.usage.output_tokens": 90,
                    }
                )
        return "ok"

    ep, said = _solve(agent, runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p.get("capture"), p["model"], p["input_tokens"]) for p in got] == [
        ("openai", "gpt-4o-mini-2024-07-18", 1200),  # the call, and its span written nothing
        ("otel", "llama3", 1200),
        ("otel", "gpt-4o-mini", 77),
    ]
    assert len(said) == 1 and got[0]["response_id"] in said[0]


def test_a_report_naming_a_constant_request_id_is_not_swallowed_by_another_call(stub: ProviderStub, runs_dir: Path) -> None:
    returned: dict[str, str] = {}

    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        for _ in range(2):  # a local server answering every call with one x-request-id
            body = chat_completion("gpt-4o-mini", {**DEFAULT, "input": 100, "cached": 0}, "x")
            stub.script("/v1/chat/completions", Reply(body=body, headers={"x-request-id": "req-const"}))
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        # another call (raw HTTP, another model) reported with the id it got back
        returned["other"] = ctx.model_call(model="llama3-70b", input_tokens=5000, output_tokens=400, request_id="req-const")
        # the captured call itself, reported by its id: one call seen twice
        returned["same"] = ctx.model_call(model="gpt-4o-mini", input_tokens=100, output_tokens=90, request_id="req-const")
        # a placeholder id names no call: matched by its model and counts, as with no id
        returned["placeholder"] = ctx.model_call(model="gpt-4o-mini", input_tokens=100, output_tokens=90, request_id="null")
        return "ok"

    ep, said = _solve(agent, runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p["model"], p["input_tokens"]) for p in got] == [
        ("gpt-4o-mini-2024-07-18", 100),
        ("gpt-4o-mini-2024-07-18", 100),
        ("llama3-70b", 5000),  # before: not written, its id returned the captured call's
    ]
    ids = model_event_ids(runs_dir, ep)
    assert [returned[k] for k in ("other", "same", "placeholder")] == [ids[2], ids[1], ids[0]]
    assert len(said) == 1 and "'req-const'" in said[0]


def test_a_report_naming_the_constant_id_of_an_open_stream_is_not_swallowed_by_it(stub: ProviderStub, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stub.script("/v1/chat/completions", Reply(headers={"x-request-id": "req-const"}))
        stream = client.chat.completions.create(
            model="gpt-4o-mini", messages=MSG, stream=True, stream_options={"include_usage": True}
        )
        for chunk in stream:
            if chunk.usage:  # the stream still open: another call reported with the same constant id
                ctx.model_call(model="llama3-70b", input_tokens=5000, output_tokens=400, request_id="req-const")
        return "ok"

    ep, said = _solve(agent, runs_dir)
    got = checked_calls(runs_dir, ep)
    # before: one event, the stream's, the report taken for it
    assert sorted((p["model"], p["input_tokens"]) for p in got) == [("gpt-4o-mini-2024-07-18", 1200), ("llama3-70b", 5000)]
    assert len(said) == 1 and "'req-const'" in said[0]


anthropic_sdk = pytest.importorskip("anthropic")


def _report(name: str, r: Any) -> dict[str, Any]:
    """A hand report of the chat call ``r`` as adapters spell it (LiteLLM's model names, other counts)."""
    usage = r.usage
    return {
        "litellm model": {
            "model": "openai/gpt-4o-mini",
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens,
        },
        "model case": {"model": "GPT-4o-mini", "input_tokens": usage.prompt_tokens, "output_tokens": usage.completion_tokens},
        "output without reasoning": {
            "model": r.model,
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens - usage.completion_tokens_details.reasoning_tokens,
        },
        "input as prompt + output": {
            "model": r.model,
            "input_tokens": usage.total_tokens,
            "output_tokens": usage.completion_tokens,
        },
    }[name]


@pytest.mark.parametrize("name", ["litellm model", "model case", "output without reasoning", "input as prompt + output"])
def test_a_report_naming_a_captured_calls_own_id_is_that_call_whatever_it_counts(
    stub: ProviderStub, runs_dir: Path, name: str
) -> None:
    returned: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        answer = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        returned.append(ctx.model_call(request_id=answer.id, **_report(name, answer)))
        return "ok"

    ep, said = _solve(agent, runs_dir)
    got = checked_calls(runs_dir, ep)
    # before: two events (input 1200 twice in usage_df) and a warning blaming a server
    assert [(p["capture"], p["input_tokens"], p["output_tokens"]) for p in got] == [("openai", 1200, 90)]
    assert returned == model_event_ids(runs_dir, ep) and said == []


def test_a_span_naming_a_captured_calls_id_with_a_prefixed_model_writes_nothing(
    tracer: Any, stub: ProviderStub, runs_dir: Path
) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        answer = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        with tracer.start_as_current_span("litellm_request") as span:  # a framework's span, ended after the call
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "openai/gpt-4o-mini",
                    "gen_ai.response.id": answer.id,
                    "gen_ai.usage.input_tokens": answer.usage.prompt_tokens,
                    "gen_ai.usage.output_tokens": answer.usage.completion_tokens,
                }
            )
        return "ok"

    ep, said = _solve(agent, runs_dir)
    assert [(p["capture"], p["input_tokens"]) for p in checked_calls(runs_dir, ep)] == [("openai", 1200)]  # before: + otel
    assert said == []


def test_an_open_stream_reported_with_the_output_its_chunks_counted_is_written_once(stub: ProviderStub, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = client.chat.completions.create(
            model="gpt-4o-mini", messages=MSG, stream=True, stream_options={"include_usage": True}
        )
        chunks = 0
        for chunk in stream:
            chunks += bool(chunk.choices)
            if chunk.usage:
                ctx.model_call(
                    model=chunk.model, input_tokens=chunk.usage.prompt_tokens, output_tokens=chunks, request_id=chunk.id
                )
        return "ok"

    ep, said = _solve(agent, runs_dir)
    assert [(p["capture"], p["input_tokens"], p["output_tokens"]) for p in checked_calls(runs_dir, ep)] == [("openai", 1200, 90)]
    assert said == []


@pytest.mark.parametrize(
    ("model", "input_tokens"),
    [
        ("claude-sonnet-4-20250514", 1200),  # uncached + cache read
        ("claude-sonnet-4-20250514", 500),  # uncached + cache write
        ("anthropic/claude-sonnet-4-20250514", 1500),
        ("anthropic:claude-sonnet-4-0", 1500),
    ],
)
def test_an_anthropic_report_by_the_messages_id_is_that_call(
    stub: ProviderStub, runs_dir: Path, model: str, input_tokens: int
) -> None:
    def agent(task: str, ctx: Any) -> str:
        client = anthropic_sdk.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        body = anthropic_message("claude-sonnet-4-20250514", ANTHROPIC_DEFAULT, "one")  # the alias's dated model
        stub.script("/v1/messages", Reply(body=body))
        message = client.messages.create(model="claude-sonnet-4-0", max_tokens=100, messages=MSG)
        ctx.model_call(model=model, input_tokens=input_tokens, output_tokens=80, request_id=message.id)
        return "ok"

    ep, said = _solve(agent, runs_dir)
    assert [(p.get("capture"), p["input_tokens"]) for p in checked_calls(runs_dir, ep)] == [("anthropic", 1500)]
    assert said == []


def test_two_spans_with_one_id_are_two_calls_and_a_later_report_by_it_needs_agreeing_counts(
    tracer: Any, stub: ProviderStub, runs_dir: Path
) -> None:
    """A source that gave one id to two calls makes it no evidence: a report by it joins only with agreeing counts."""

    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stub.script("/v1/chat/completions", Reply(body=chat_completion("gpt-4o-mini", DEFAULT, "const")))
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        for inp in (1200, 300):  # the first repeats the call; the second is another call with its id
            with tracer.start_as_current_span("chat") as span:
                span.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "gpt-4o-mini",
                        "gen_ai.response.id": "chatcmpl-const",
                        "gen_ai.usage.input_tokens": inp,
                        "gen_ai.usage.output_tokens": 90,
                    }
                )
        ctx.model_call(model="gpt-4o-mini", input_tokens=4000, output_tokens=90, request_id="chatcmpl-const")
        return "ok"

    ep, said = _solve(agent, runs_dir)
    assert [(p.get("capture"), p["input_tokens"]) for p in checked_calls(runs_dir, ep)] == [
        ("openai", 1200),
        ("otel", 300),
        (None, 4000),
    ]
    assert len(said) == 1 and "'chatcmpl-const' was seen on 2 different model calls" in said[0]


def test_two_spans_of_one_source_with_one_id_and_one_count_are_two_calls(tracer: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        for _ in range(2):  # a source reports each call once: the same id twice is a server's constant id
            with tracer.start_as_current_span("chat") as span:
                span.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "llama3",
                        "gen_ai.response.id": "chatcmpl-123",
                        "gen_ai.usage.input_tokens": 200,
                        "gen_ai.usage.output_tokens": 5,
                    }
                )
        return "ok"

    ep, said = _solve(agent, runs_dir)
    assert [p["input_tokens"] for p in checked_calls(runs_dir, ep)] == [200, 200]  # before: [200]
    assert len(said) == 1 and "'chatcmpl-123' was seen on 2 different model calls" in said[0]
