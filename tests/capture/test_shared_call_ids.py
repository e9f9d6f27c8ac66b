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

from .provider_stub import DEFAULT, ProviderStub, Reply, chat_completion
from .recorded_calls import checked_calls, model_event_ids

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]


@pytest.fixture
def tracer() -> Any:
    """A tracer of a real SDK provider that carries noesis_nb's processor."""
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(noesis_nb.capture.span_processor())
    yield provider.get_tracer("test")
    provider.shutdown()


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
