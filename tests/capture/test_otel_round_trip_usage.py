"""``export_otel`` then OpenTelemetry in keeps every count a call is billed for: besides ``gen_ai.usage.*`` the
chat span carries the counts billed apart that no GenAI convention names (hour-long cache writes, web searches) as
``noesis.usage.cache_write_1h_input_tokens`` and ``noesis.usage.web_search_requests``, and a span read in gives
them back. Calls captured through the real SDKs from loopback servers, exported to a loopback OTLP collector, its
spans replayed through a real OpenTelemetry SDK tracer: ``usage_df`` is the same for every usage column."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.store.vocab import PRICED_COUNTS

from ..otlp_collector import Collector
from .sdkserver import sdk_server

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")

USAGE = {
    "input_tokens": 100,
    "output_tokens": 50,
    "cache_read_input_tokens": 2000,
    "cache_creation_input_tokens": 10000,
    "cache_creation": {"ephemeral_5m_input_tokens": 4000, "ephemeral_1h_input_tokens": 6000},
    "server_tool_use": {"web_search_requests": 5},
}


@pytest.fixture(scope="module")
def anthropic_url() -> Iterator[str]:
    def answer(body: dict[str, Any]) -> Any:
        return {
            "id": "msg_round_trip",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Found it."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": USAGE,
        }

    with sdk_server(answer, "anthropic") as url:
        yield url


def _attrs(span: Any) -> dict[str, Any]:
    out = {}
    for kv in span.attributes:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        out[kv.key] = [v.string_value for v in value.values] if kind == "array_value" else value
    return out


COLUMNS = ["provider", "model", *PRICED_COUNTS, "cost_usd", "priced"]


def test_usage_is_the_same_after_export_and_import(
    anthropic_url: str, stub: Any, tracer: Any, otlp_collector: Collector, tmp_path: Path
) -> None:
    def agent(task: str, ctx: Any) -> str:
        anthropic.Anthropic(base_url=anthropic_url, api_key="sk-ant-test", max_retries=0).messages.create(
            model="claude-sonnet-4-5", max_tokens=10, messages=[{"role": "user", "content": task}]
        )
        openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": task}],
            extra_body={"stub_usage": {"input": 4000, "cached": 2500, "output": 321, "reasoning": 64}},
        )
        return "ok"

    source = tmp_path / "source"
    ep = noesis_nb.solve("search the web", using=agent, runs_dir=source)
    before = noesis_nb.usage_df(source)
    assert before["web_search_requests"].tolist()[0] == 5 and before["cache_write_1h_input_tokens"].tolist()[0] == 6000
    noesis_nb.export_otel(source / ep, endpoint=otlp_collector.url)
    chats = [(s.name, _attrs(s)) for s in otlp_collector.spans if s.name.startswith("chat ")]
    assert len(chats) == 2
    assert {k: v for k, v in chats[0][1].items() if k.startswith("noesis.usage.")} == {
        "noesis.usage.cache_write_1h_input_tokens": 6000,
        "noesis.usage.web_search_requests": 5,
    }

    def replay(task: str, ctx: Any) -> str:
        for name, attrs in chats:
            with tracer.start_as_current_span(name, attributes=attrs):
                pass
        return "ok"

    again = tmp_path / "again"
    noesis_nb.solve("replayed", using=replay, runs_dir=again)
    after = noesis_nb.usage_df(again)
    pd.testing.assert_frame_equal(after[COLUMNS], before[COLUMNS])
    assert noesis_nb.runs_df(again)["cost_usd"].tolist() == pytest.approx(noesis_nb.runs_df(source)["cost_usd"].tolist())


def test_an_hour_long_part_above_the_cache_writes_is_read_as_unknown(tracer: Any, tmp_path: Path) -> None:
    """A span's hour-long writes above its cache writes are no part of them: left out, as the SDK capture leaves them."""

    def agent(task: str, ctx: Any) -> str:
        with tracer.start_as_current_span("chat claude-sonnet-4-5") as span:
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "anthropic",
                    "gen_ai.request.model": "claude-sonnet-4-5",
                    "gen_ai.usage.input_tokens": 1000,
                    "gen_ai.usage.output_tokens": 10,
                    "gen_ai.usage.cache_creation.input_tokens": 100,
                    "noesis.usage.cache_write_1h_input_tokens": 500,
                    "noesis.usage.web_search_requests": 2,
                }
            )
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    row = noesis_nb.usage_df(tmp_path).iloc[0]
    assert pd.isna(row["cache_write_1h_input_tokens"]) and row["web_search_requests"] == 2
