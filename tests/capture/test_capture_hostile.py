"""Capture against hostile inputs: raw-response wrappers, streams that fail, numbers and attributes of the wrong kind.

Each call must be one ``model.call`` with exact tokens (unknown stays None), the SDK's return values
untouched, and the run must pass the Noēsis checker and load with ``usage_df(strict=True)``.
"""

from __future__ import annotations

import json

import pytest

import noesis_nb

from ..compat.checker import check_run
from .provider_stub import DEFAULT, ProviderStub, Reply, chat_completion

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]
OPENAI = (1200, 1000, None, 90, 64)
UNKNOWN = (None,) * 5


@pytest.fixture(scope="module")
def stub():
    server = ProviderStub()
    yield server
    server.close()


def tokens(payload):
    keys = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_tokens")
    return tuple(payload[k] for k in keys)


def recorded(runs_dir, episode_id):
    """The episode's model calls, after checking the run is valid and loads strictly."""
    assert check_run(runs_dir / episode_id) == []
    noesis_nb.usage_df(runs_dir, episodes=episode_id, strict=True)
    lines = (runs_dir / episode_id / "events.jsonl").read_text().splitlines()
    return [e["payload"] for e in map(json.loads, lines) if e["phase"] == "model"]


@pytest.mark.parametrize(
    "usage, expected",
    [
        ({"prompt_tokens": 10**30, "completion_tokens": 2**63}, (None, None)),
        ({"prompt_tokens": 2**53 - 1, "completion_tokens": 2**53}, (2**53 - 1, None)),
        ({"prompt_tokens": -1, "completion_tokens": True}, (None, None)),
        ({"prompt_tokens": "12", "completion_tokens": 3.0}, (None, 3)),
    ],
)
def test_usage_numbers_out_of_range_are_unknown_and_the_run_loads_strictly(stub, runs_dir, usage, expected):
    body = chat_completion("gpt-4o-mini", DEFAULT, "x1")
    body["usage"] = usage

    def agent(task, ctx):
        stub.script("/v1/chat/completions", Reply(body=body))
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        return client.chat.completions.create(model="gpt-4o-mini", messages=MSG).usage.prompt_tokens

    ep = noesis_nb.solve("huge", using=agent, runs_dir=runs_dir)
    (call,) = recorded(runs_dir, ep)
    assert (call["input_tokens"], call["output_tokens"]) == expected


def test_span_attributes_of_the_wrong_type_are_unknown_not_written(runs_dir):
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(noesis_nb.capture.span_processor())
    tracer = provider.get_tracer("hostile")
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": ["a", "b"],
        "gen_ai.response.model": 5,
        "gen_ai.provider.name": 7.5,
        "gen_ai.response.id": 9,
        "gen_ai.request.stream": "false",
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 2**60,
    }

    def agent(task, ctx):
        with tracer.start_as_current_span("chat") as span:
            span.set_attributes(attrs)

    ep = noesis_nb.solve("spans", using=agent, runs_dir=runs_dir)
    provider.shutdown()
    (call,) = recorded(runs_dir, ep)
    assert [call[k] for k in ("model", "provider", "response_id", "streamed", "input_tokens", "output_tokens")] == [
        None, None, None, None, 12, None,
    ]  # fmt: skip
