"""OpenTelemetry in (GenAI spans from a real SDK tracer become model calls) and out (OTLP/HTTP to a loopback receiver)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError

from ..otlp_collector import Collector, closed_port
from .provider_stub import ProviderStub

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
openai = pytest.importorskip("openai")
from opentelemetry import trace  # noqa: E402

MSG = [{"role": "user", "content": "hi"}]


@pytest.fixture
def stub():
    server = ProviderStub()
    yield server
    server.close()


def test_genai_spans_started_inside_an_episode_become_its_model_calls(tracer, stub, runs_dir):
    def agent(task, ctx):
        with tracer.start_as_current_span("chat gpt-4.1") as span:  # the current GenAI conventions
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4.1",
                    "gen_ai.response.model": "gpt-4.1-2025-04-14",
                    "gen_ai.response.id": "chatcmpl-span-1",
                    "gen_ai.response.finish_reasons": ["stop"],
                    "gen_ai.usage.input_tokens": 3000,
                    "gen_ai.usage.cache_read.input_tokens": 2000,
                    "gen_ai.usage.output_tokens": 400,
                    "gen_ai.usage.reasoning.output_tokens": 100,
                }
            )
        with tracer.start_as_current_span("ChatAnthropic") as span:  # OpenInference's names
            span.set_attributes(
                {
                    "openinference.span.kind": "LLM",
                    "llm.model_name": "claude-haiku-4-5",
                    "llm.provider": "anthropic",
                    "llm.token_count.prompt": 900,
                    "llm.token_count.prompt_details.cache_write": 500,
                    "llm.token_count.completion": 30,
                }
            )
        with tracer.start_as_current_span("execute_tool search") as span:  # not a model call
            span.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"})
        # an instrumentation's span around an SDK call capture also sees: one event, from the SDK
        with tracer.start_as_current_span("chat gpt-4o-mini") as span:
            span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"})
            reply = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
                model="gpt-4o-mini", messages=MSG
            )
            span.set_attributes({"gen_ai.usage.input_tokens": reply.usage.prompt_tokens, "gen_ai.response.id": reply.id})
        with tracer.start_as_current_span("failed") as span:
            span.set_attributes(
                {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1", "error.type": "RateLimitError"}
            )
            span.set_status(trace.StatusCode.ERROR, "429 too many requests")
        return "ok"

    with tracer.start_as_current_span("outside") as span:  # before any episode: nobody's
        span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1", "gen_ai.usage.input_tokens": 7})
    ep = noesis_nb.solve("spans", using=agent, runs_dir=runs_dir)
    df = noesis_nb.usage_df(runs_dir)
    assert list(df["episode_id"].unique()) == [ep]
    rows = df[
        [
            "model",
            "provider",
            "input_tokens",
            "cached_input_tokens",
            "cache_write_input_tokens",
            "output_tokens",
            "reasoning_tokens",
        ]
    ]
    got = [tuple(None if pd.isna(v) else v for v in r) for r in rows.itertuples(index=False)]  # NaN, <NA> → None
    assert got == [
        ("gpt-4.1-2025-04-14", "openai", 3000, 2000, None, 400, 100),
        ("claude-haiku-4-5", "anthropic", 900, None, 500, 30, None),
        ("gpt-4o-mini-2024-07-18", "openai", 1200, 1000, None, 90, 64),
        ("gpt-4.1", None, None, None, None, None, None),
    ]
    assert df["cost_usd"].iloc[:3].notna().all()  # priced like any other call
    payloads = noesis_nb.events_df(runs_dir, phases="model")["payload"].tolist()
    assert [p["capture"] for p in payloads] == ["otel", "otel", "openai", "otel"]
    assert payloads[0]["stop_reason"] == "stop" and len(payloads[0]["trace_id"]) == 32
    assert payloads[3]["error"] == {"type": "RateLimitError", "message": "429 too many requests"}


def test_the_global_sdk_provider_is_listened_to_without_a_line_of_setup(runs_dir):
    provider = trace.get_tracer_provider()
    if not isinstance(provider, sdk_trace.TracerProvider):
        trace.set_tracer_provider(sdk_trace.TracerProvider())
        provider = trace.get_tracer_provider()
    tracer = provider.get_tracer("instrumentation")

    def agent(task, ctx):
        with tracer.start_as_current_span("chat") as span:
            span.set_attributes(
                {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 11}
            )
        return "ok"

    noesis_nb.solve("global", using=agent, runs_dir=runs_dir)
    assert noesis_nb.usage_df(runs_dir)["input_tokens"].tolist() == [11]


@pytest.fixture
def receiver(otlp_collector: Collector) -> Collector:
    return otlp_collector


def _attrs(span):
    out = {}
    for kv in span.attributes:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        out[kv.key] = list(v.string_value for v in value.values) if kind == "array_value" else value
    return out


def test_a_run_exported_to_an_otlp_http_receiver(receiver, stub, runs_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("NOESIS_NB_APPROVER", "auto")

    def agent(task, ctx):
        openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": {"input": 4000, "cached": 2500, "output": 321}}
        )
        ctx.tool("fs.write_file", {"argv": ["python", "-c", "print('hi')"]}, effect="write", risk="high")
        return "ok"

    ep = noesis_nb.solve("export me", using=agent, runs_dir=runs_dir)
    sent = noesis_nb.export_otel(ep, endpoint=receiver.url, runs_dir=runs_dir)
    first = receiver.requests[0]
    assert (first.path, first.headers.get("content-type")) == ("/v1/traces", "application/x-protobuf")
    spans = receiver.spans
    assert len(spans) == sent
    by_name = {s.name: s for s in spans}
    root = by_name["invoke_agent agent"]
    assert _attrs(root)["noesis.episode_id"] == ep and _attrs(root)["noesis.status"] == "ok" and not root.parent_span_id
    assert {s.trace_id for s in spans} == {root.trace_id}
    assert all(s.parent_span_id == root.span_id for s in spans if s is not root)
    chat = _attrs(by_name["chat gpt-4o-mini"])
    assert {k: chat[k] for k in chat if k.startswith("gen_ai.usage")} == {
        "gen_ai.usage.input_tokens": 4000,
        "gen_ai.usage.cache_read.input_tokens": 2500,
        "gen_ai.usage.output_tokens": 321,
        "gen_ai.usage.reasoning.output_tokens": 64,
    }  # no cache-creation attribute: OpenAI did not report one, and unknown is not 0
    assert chat["gen_ai.provider.name"] == "openai" and chat["gen_ai.response.finish_reasons"] == ["stop"]
    tool = _attrs(by_name["execute_tool fs.write_file"])
    assert (tool["noesis.tool.effect"], tool["noesis.tool.risk"], tool["noesis.tool.decision"], tool["noesis.tool.status"]) == (
        "write",
        "high",
        "approved",
        "succeeded",
    )
    assert tool["gen_ai.operation.name"] == "execute_tool" and tool["noesis.tool.approver"] == "policy:auto"
    assert {s.name for s in spans} >= {"interpret", "plan", "act"}
    # the same run again: the same ids (a backend keeps one copy); and the JSON file says the same
    noesis_nb.export_otel(runs_dir / ep, endpoint=receiver.url + "/v1/traces", path=tmp_path / "t.json")
    assert sorted(s.span_id.hex() for s in receiver.spans[sent:]) == sorted(s.span_id.hex() for s in spans)
    doc = json.loads((tmp_path / "t.json").read_text())
    json_spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert sorted(s["spanId"] for s in json_spans) == sorted(s.span_id.hex() for s in spans)


def test_export_otel_refuses_a_call_without_a_destination_and_a_dead_endpoint(runs_dir):
    ep = noesis_nb.solve("x", using=lambda task: "ok", runs_dir=runs_dir)
    with pytest.raises(ValueError, match="endpoint="):
        noesis_nb.export_otel(ep, runs_dir=runs_dir)
    port = closed_port()  # nothing listens there any more
    with pytest.raises(ConnectionError, match=str(port)) as raised:
        noesis_nb.export_otel(ep, endpoint=f"http://127.0.0.1:{port}", runs_dir=runs_dir, timeout=1)
    # a notebook shows it as one line (a builtin ConnectionError printed a traceback through the exporter), saying
    # what happened: refused at once, not "could not be reached within timeout=1 s"
    assert isinstance(raised.value, NoesisNbError)
    assert "refused the connection" in str(raised.value) and "within timeout" not in str(raised.value)
    shown = raised.value._render_traceback_()
    assert not any("noesis_nb/integrations" in line for line in shown), shown


def test_export_otel_names_a_destination_of_the_wrong_kind_before_reading_anything(runs_dir, tmp_path):
    ep = noesis_nb.solve("x", using=lambda task: "ok", runs_dir=runs_dir)
    for options, error, fragment in [
        # no scheme: the exporter found no connection adapter and the error asked whether a collector listens
        ({"endpoint": "localhost:4318"}, ValueError, r"endpoint='localhost:4318'\): .*e\.g\. 'http://localhost:4318'"),
        ({"endpoint": 4318}, ValueError, r"endpoint=4318\): give the collector's OTLP/HTTP URL"),  # was an AttributeError
        ({"endpoint": "grpc://localhost:4317"}, ValueError, r"endpoint='grpc://localhost:4317'\)"),
        ({"path": 5}, TypeError, r"path=5\): give a file path"),  # was a TypeError from pathlib
        ({"path": str(tmp_path / "t.json"), "headers": "x-api-key: k"}, TypeError, r"headers=…\) got str; give a dict"),
        ({"path": str(tmp_path / "t.json"), "headers": {"x-api-key": 5}}, TypeError, r"headers=…\) got a dict with values"),
    ]:
        with pytest.raises(error, match=fragment):
            noesis_nb.export_otel(ep, runs_dir=runs_dir, **options)
    assert not (tmp_path / "t.json").exists()
    assert noesis_nb.export_otel(ep, runs_dir=runs_dir, path=tmp_path / "t.json", headers={"x-api-key": "k"}) > 0


async def _until(condition, timeout=10.0):
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def test_a_live_export_sends_each_span_once_as_it_finishes_and_the_root_when_the_episode_ends(receiver, stub, runs_dir):
    import asyncio

    from noesis_nb.integrations.otel import run_spans

    def agent(task, ctx):
        openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": {"input": 700, "cached": 0, "output": 12}}
        )
        ctx.tool("fs.write_file", {"argv": ["python", "-c", "print('hi')"]}, effect="write", risk="high")
        return "ok"

    async def main():
        handle = noesis_nb.start("live export", using=agent, runs_dir=runs_dir)
        live = noesis_nb.export_otel(handle, endpoint=receiver.url, live=True, interval=0.05)
        await handle.settled()
        assert handle.status == "paused"  # waiting for a human: the finished spans are out already
        await _until(lambda: "chat gpt-4o-mini" in {s.name for s in receiver.spans})
        await asyncio.sleep(0.3)  # a few more looks: nothing unfinished may follow
        while_paused = {s.name for s in receiver.spans}
        handle.approve()
        await handle.wait()
        await asyncio.to_thread(live.wait, 10)
        return handle, live, while_paused

    handle, live, while_paused = asyncio.run(main())
    assert "invoke_agent agent" not in while_paused and "execute_tool fs.write_file" not in while_paused
    assert {"interpret", "plan"} <= while_paused
    spans = receiver.spans
    ids = [s.span_id.hex() for s in spans]
    assert len(ids) == len(set(ids)) == live.sent, "each span is sent once"
    expected = run_spans(runs_dir / handle.episode_id)  # what an export of the finished run gives
    assert sorted(ids) == sorted(format(s["span_id"], "016x") for s in expected)
    by_name = {s.name: s for s in spans}
    root = by_name["invoke_agent agent"]
    assert _attrs(root)["noesis.status"] == "ok" and all(s.parent_span_id == root.span_id for s in spans if s is not root)
    tool = _attrs(by_name["execute_tool fs.write_file"])
    assert (tool["noesis.tool.decision"], tool["noesis.tool.status"]) == ("approved", "succeeded")
    assert _attrs(by_name["chat gpt-4o-mini"])["gen_ai.usage.input_tokens"] == 700
    assert live.errors == [] and not live.running


def test_a_live_export_to_a_dead_collector_names_it_and_never_touches_the_episode(runs_dir, tmp_path):
    import asyncio

    port = closed_port()  # nothing listens there any more

    def agent(task, ctx):
        ctx.emit("reason", {"text": "thinking"})
        return "ok"

    async def main():
        handle = noesis_nb.start("dead collector", using=agent, runs_dir=runs_dir)
        live = noesis_nb.export_otel(
            handle, endpoint=f"http://127.0.0.1:{port}", live=True, interval=0.05, timeout=0.5, path=tmp_path / "trace.json"
        )
        await handle.wait()
        await asyncio.to_thread(live.wait, 30)
        return handle, live

    handle, live = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == "ok"
    assert not live.running and live.sent == 0
    assert live.errors and all(str(port) in e for e in live.errors)
    from noesis_nb.integrations.otel import run_spans

    written = json.loads((tmp_path / "trace.json").read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert len(written) == len(run_spans(runs_dir / handle.episode_id))  # the file has the trace the collector missed
    with pytest.raises(TypeError, match="handle"):
        noesis_nb.export_otel(handle.episode_id, endpoint=f"http://127.0.0.1:{port}", live=True)
    with pytest.raises(ValueError, match="endpoint="):
        noesis_nb.export_otel(handle, path="x.json", live=True)
    with pytest.raises(ValueError, match="interval=0"):
        noesis_nb.export_otel(handle, endpoint=f"http://127.0.0.1:{port}", live=True, interval=0)
