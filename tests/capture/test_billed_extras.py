"""Anthropic's hour-long cache writes (``usage.cache_creation.ephemeral_1h_input_tokens``) and server-side web searches
(``usage.server_tool_use.web_search_requests``) are billed apart: captured through the real SDK from a loopback
server (a whole message and a stream), and from LangChain's ``usage_metadata``, each call's ``usage_df`` and
``runs_df`` cost is genai-prices' own price of the same usage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from .sdkserver import sdk_server

anthropic = pytest.importorskip("anthropic")
genai_prices = pytest.importorskip("genai_prices")

MODEL = "claude-sonnet-4-5"
USAGE = {
    "input_tokens": 100,
    "output_tokens": 50,
    "cache_read_input_tokens": 2000,
    "cache_creation_input_tokens": 10000,
    "cache_creation": {"ephemeral_5m_input_tokens": 4000, "ephemeral_1h_input_tokens": 6000},
    "server_tool_use": {"web_search_requests": 5},
}


def _message(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_billed",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": "Found it."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage,
    }


def _events(usage: dict[str, Any]) -> list[dict[str, Any]]:
    """A stream as Anthropic sends it: the cache counts in ``message_start``, the cumulative output and server tool
    use in ``message_delta``."""
    start = _message({k: v for k, v in usage.items() if k != "server_tool_use"} | {"output_tokens": 1})
    start.update(content=[], stop_reason=None)
    delta_usage = {"output_tokens": usage["output_tokens"], "server_tool_use": usage["server_tool_use"]}
    return [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Found it."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": delta_usage},
        {"type": "message_stop"},
    ]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    def answer(body: dict[str, Any]) -> Any:
        return _events(USAGE) if body.get("stream") else _message(USAGE)

    with sdk_server(answer, "anthropic", headers={"request-id": "req_billed"}) as url:
        yield url


def _genai_price() -> float:
    """genai-prices' price of the same response (its own reading of Anthropic's usage)."""
    extracted = genai_prices.extract_usage(_message(USAGE), provider_id="anthropic")
    assert extracted.usage.cache_write_1h_tokens == 6000 and extracted.usage.web_searches == 5
    return float(extracted.calc_price().total_price)


@pytest.mark.parametrize("stream", [False, True], ids=["message", "stream"])
def test_captured_hour_long_writes_and_web_searches_priced_as_genai_prices(base_url: str, tmp_path: Path, stream: bool) -> None:
    client = anthropic.Anthropic(base_url=base_url, api_key="sk-ant-test", max_retries=0)

    def agent(task: str, ctx: Any) -> str:
        args: dict[str, Any] = {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": task}]}
        if stream:
            with client.messages.stream(**args) as events:
                events.get_final_message()
        else:
            client.messages.create(**args)
        return "ok"

    ep = noesis_nb.solve("search the web", using=agent, runs_dir=tmp_path)
    (call,) = [
        json.loads(line)["payload"]
        for line in (tmp_path / ep / "events.jsonl").read_text().splitlines()
        if '"model.call"' in line
    ]
    assert (call["cache_write_input_tokens"], call["cache_write_1h_input_tokens"]) == (10000, 6000)
    assert call["web_search_requests"] == 5
    want = _genai_price()
    usage = noesis_nb.usage_df(tmp_path, strict=True)
    assert usage["cost_usd"].tolist() == pytest.approx([want], rel=1e-9)
    assert list(usage.columns) == list(noesis_nb.frames.columns.USAGE_COLUMNS)  # the documented columns
    assert noesis_nb.runs_df(tmp_path)["cost_usd"].tolist() == pytest.approx([want], rel=1e-9)


def test_langchain_hour_long_writes_priced_as_genai_prices(tmp_path: Path) -> None:
    """LangChain's ``input_token_details.ephemeral_1h_input_tokens`` (langchain-anthropic's split of the writes)."""
    from noesis_nb.integrations._emit import emit_row
    from noesis_nb.integrations.langgraph._callbacks import usage_from_langchain

    meta = {
        "input_tokens": 12100,
        "output_tokens": 50,
        "total_tokens": 12150,
        "input_token_details": {
            "cache_read": 2000,
            "cache_creation": 10000,
            "ephemeral_5m_input_tokens": 4000,
            "ephemeral_1h_input_tokens": 6000,
        },
    }

    def agent(task: str, ctx: Any) -> str:
        emit_row(ctx, usage_from_langchain(meta, model=MODEL, provider="anthropic"))
        return "ok"

    noesis_nb.solve("graph", using=agent, runs_dir=tmp_path)
    want = genai_prices.calc_price(
        genai_prices.Usage(
            input_tokens=12100, cache_read_tokens=2000, cache_write_tokens=10000, cache_write_1h_tokens=6000, output_tokens=50
        ),
        model_ref=MODEL,
        provider_id="anthropic",
    ).total_price
    assert isinstance(want, Decimal)
    assert noesis_nb.usage_df(tmp_path, strict=True)["cost_usd"].tolist() == pytest.approx([float(want)], rel=1e-9)
