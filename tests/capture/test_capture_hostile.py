"""Capture against hostile inputs: raw-response wrappers, streams that fail, numbers and attributes of the wrong kind.

Each call must be one ``model.call`` with exact tokens (unknown stays None), the SDK's return values
untouched, and the run must pass the Noēsis checker and load with ``usage_df(strict=True)``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading

import pytest

import noesis_nb

from ..compat.checker import check_run
from .provider_stub import ANTHROPIC_DEFAULT, DEFAULT, Reply, anthropic_events, chat_completion, response_object
from .recorded_calls import tokens

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx")
httpx2 = pytest.importorskip("httpx2")

MSG = [{"role": "user", "content": "hi"}]
OPENAI = (1200, 1000, None, 90, 64)
CLAUDE = (1500, 1000, 300, 80, None)
UNKNOWN = (None,) * 5


def recorded(runs_dir, episode_id):
    """The episode's model calls, after checking the run is valid and loads strictly."""
    assert check_run(runs_dir / episode_id) == []
    noesis_nb.usage_df(runs_dir, episodes=episode_id, strict=True)
    lines = (runs_dir / episode_id / "events.jsonl").read_text().splitlines()
    return [e["payload"] for e in map(json.loads, lines) if e["phase"] == "model"]


def sse_client(sdk, http, events, base_url):
    """A client whose every request is answered by the same server-sent events (a stream that ends as given)."""
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    headers = {"content-type": "text/event-stream", "x-request-id": "req_sse", "request-id": "req_sse"}
    transport = http.MockTransport(lambda request: http.Response(200, headers=headers, content=body))
    return sdk(base_url=base_url, api_key="sk-test", max_retries=0, http_client=http.Client(transport=transport))


def test_raw_and_streaming_response_wrappers_record_what_the_caller_parses(stub, runs_dir):
    usage = {"include_usage": True}

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=MSG, stream=True, stream_options=usage
        )
        text = "".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices)
        with client.chat.completions.with_streaming_response.create(model="gpt-4o-mini", messages=MSG) as response:
            parsed = response.parse()
        with client.chat.completions.with_streaming_response.create(
            model="gpt-4o-mini", messages=MSG, stream=True, stream_options=usage
        ) as response:
            chunks = list(response.parse())
        with client.chat.completions.with_streaming_response.create(model="gpt-4o-mini", messages=MSG):
            pass  # never read: the tokens are unknown
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        events = list(claude.messages.with_raw_response.create(model="claude-x", max_tokens=8, messages=MSG, stream=True).parse())

        async def more():
            aclient = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
            async with aclient.responses.with_streaming_response.create(model="o4-mini", input="hi") as response:
                return await response.parse()

        answer = asyncio.run(more())
        seen.extend([text, parsed.choices[0].message.content, len(chunks), events[-1].type, answer.output_text])

    seen: list = []
    ep = noesis_nb.solve("raw", using=agent, runs_dir=runs_dir)
    assert seen == ["Done.", "Done.", 5, "message_stop", "Done."]  # what the SDK handed back is its own
    got = recorded(runs_dir, ep)
    assert [(p["api"], p["streamed"], tokens(p), p.get("abandoned", False)) for p in got] == [
        ("chat.completions", True, OPENAI, False),
        ("chat.completions", False, OPENAI, False),
        ("chat.completions", True, OPENAI, False),
        ("chat.completions", False, UNKNOWN, True),
        ("messages", True, CLAUDE, False),
        ("responses", False, OPENAI, False),
    ]
    assert all(p["request_id"].startswith("req_") for p in got)


def test_a_responses_stream_that_fails_records_the_error_it_reports(runs_dir):
    def events(status, final):
        start = response_object("o4-mini", DEFAULT, "r1", "in_progress")
        end = response_object("o4-mini", DEFAULT, "r1", status)
        if status == "failed":
            end.update(error={"code": "server_error", "message": "the model failed"}, usage=None)
        if status == "incomplete":
            end["incomplete_details"] = {"reason": "max_output_tokens"}
        first = {"type": "response.created", "sequence_number": 0, "response": start}
        return [first, final or {"type": f"response.{status}", "sequence_number": 1, "response": end}]

    error_event = {"type": "error", "sequence_number": 1, "code": "rate_limit_exceeded", "message": "slow down", "param": None}

    def agent(task, ctx):
        for status, final in (("failed", None), ("incomplete", None), ("in_progress", error_event)):
            client = sse_client(openai.OpenAI, httpx, events(status, final), "http://provider.test/v1")
            list(client.responses.create(model="o4-mini", input="hi", stream=True))

    ep = noesis_nb.solve("failing streams", using=agent, runs_dir=runs_dir)
    got = recorded(runs_dir, ep)
    assert [(tokens(p), p["stop_reason"], p.get("error")) for p in got] == [
        (UNKNOWN, "failed", {"type": "server_error", "message": "the model failed", "status_code": None}),
        (OPENAI, "max_output_tokens", None),
        (UNKNOWN, None, {"type": "rate_limit_exceeded", "message": "slow down", "status_code": None}),
    ]


def test_an_anthropic_stream_that_errors_mid_way_keeps_its_output_unknown(runs_dir):
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    cut = anthropic_events("claude-x", ANTHROPIC_DEFAULT, "a1")[:4] + [overloaded]

    def agent(task, ctx):
        client = sse_client(anthropic.Anthropic, httpx2, cut, "http://provider.test")
        with pytest.raises(anthropic.APIStatusError):
            list(client.messages.create(model="claude-x", max_tokens=8, messages=MSG, stream=True))

    ep = noesis_nb.solve("overloaded", using=agent, runs_dir=runs_dir)
    (call,) = recorded(runs_dir, ep)
    assert tokens(call) == (1500, 1000, 300, None, None)  # message_start's output_tokens (1) is a placeholder
    assert call["error"]["type"] == "APIStatusError"


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


def test_a_span_still_open_when_the_adapter_returns_is_not_written_and_not_kept(runs_dir):
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from noesis_nb.capture.scope import OPEN_SPANS

    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(noesis_nb.capture.span_processor())
    tracer = provider.get_tracer("hostile")
    left_open = []

    def agent(task, ctx):
        for _ in range(2):
            span = tracer.start_span("chat", attributes={"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 3})
            left_open.append(span)

    ep = noesis_nb.solve("open spans", using=agent, runs_dir=runs_dir)
    assert not any(span.get_span_context().span_id in OPEN_SPANS for span in left_open)  # the episode is not kept alive
    left_open[0].end()  # after the run is sealed: nothing is written to it
    provider.shutdown()
    assert recorded(runs_dir, ep) == []


def test_a_megabyte_model_name_or_id_from_the_server_is_stored_cut(stub, runs_dir):
    body = chat_completion("gpt-4o-mini", DEFAULT, "x1")
    body.update(model="m" * 1_000_000, id="c" * 1_000_000)
    body["choices"][0]["finish_reason"] = "s" * 1_000_000

    def agent(task, ctx):
        stub.script("/v1/chat/completions", Reply(body=body))
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        return len(client.chat.completions.create(model="gpt-4o-mini", messages=MSG).model)

    ep = noesis_nb.solve("huge names", using=agent, runs_dir=runs_dir)
    (call,) = recorded(runs_dir, ep)
    assert call["model"] == "m" * 256 + "… [cut: 1000000 characters]"
    assert call["response_id"].startswith("c" * 256 + "…") and call["stop_reason"].startswith("s" * 256 + "…")
    assert tokens(call) == OPENAI
    assert (runs_dir / ep / "events.jsonl").stat().st_size < 50_000  # not 3 MB screened and written with the call


class _OwnLock:
    """A lock that reports being taken again by the thread holding it (a plain ``Lock`` would hang there)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.owner = None
        self.reentered = False

    def __enter__(self):
        if self.owner == threading.get_ident():
            self.reentered = True
            raise RuntimeError("taken again by its holder")
        self._lock.acquire()
        self.owner = threading.get_ident()

    def __exit__(self, *exc):
        self.owner = None
        self._lock.release()


def test_a_stream_collected_while_capture_holds_its_lock_is_written_later_not_inside(stub):
    from noesis_nb.capture.scope import CaptureScope, scoped

    written = []
    scope = CaptureScope("ep_gc", lambda payload, agent: written.append(payload) or f"e{len(written)}", lock=_OwnLock())
    noesis_nb.capture.ensure_installed()
    client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
    with scoped(scope):
        stream = client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        next(iter(stream))
        with scope.lock:  # the collector runs at any allocation, capture's own locked blocks included
            del stream
            gc.collect()
        assert not scope.lock.reentered
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
    assert [(p["streamed"], p.get("abandoned", False)) for p in written] == [(True, True), (False, False)]
