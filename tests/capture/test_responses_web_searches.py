"""OpenAI bills each web search a Responses call runs (its ``web_search_call`` output items), as genai-prices prices
``web_searches``: captured through the real SDK from a loopback server (a whole response, a stream, and a stream cut
after its searches), the call's event keeps ``web_search_requests`` and its ``usage_df`` and ``runs_df`` cost is
genai-prices' own price of the same usage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.cost import reprice

from .sdkserver import sdk_server

openai = pytest.importorskip("openai")
genai_prices = pytest.importorskip("genai_prices")

SEARCHES = 3
USAGE = {
    "input_tokens": 1000,
    "output_tokens": 10,
    "total_tokens": 1010,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}
_SEARCH_ITEMS = [
    {"type": "web_search_call", "id": f"ws_{i}", "status": "completed", "action": {"type": "search", "query": "q"}}
    for i in range(SEARCHES)
]
_MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Found it.", "annotations": []}],
}


def _response(model: str, status: str = "completed") -> dict[str, Any]:
    done = status == "completed"
    return {
        "id": "resp_ws",
        "object": "response",
        "created_at": 1733580000,
        "status": status,
        "model": model,
        "output": [*_SEARCH_ITEMS, _MESSAGE] if done else [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [{"type": "web_search"}],
        "usage": USAGE if done else None,
    }


def _events(model: str, cut: bool) -> list[dict[str, Any]]:
    """A stream as OpenAI sends it: each search's item done, then ``response.completed`` with the whole response
    (``cut``: the connection ends after the searches, before the response ends)."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": _response(model, "in_progress")}
    ]
    for i, item in enumerate(_SEARCH_ITEMS):
        events.append({"type": "response.output_item.done", "sequence_number": i + 1, "output_index": i, "item": item})
    if not cut:
        events.append({"type": "response.completed", "sequence_number": 9, "response": _response(model)})
    return events


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    def answer(body: dict[str, Any]) -> Any:
        model = body["model"]
        return _events(model, cut="cut" in body["input"]) if body.get("stream") else _response(model)

    with sdk_server(answer, "openai", path="/v1") as url:
        yield url


def _calls(root: Path, ep: str) -> list[dict[str, Any]]:
    lines = (root / ep / "events.jsonl").read_text().splitlines()
    return [json.loads(line)["payload"] for line in lines if '"model.call"' in line]


@pytest.mark.parametrize("model", ["gpt-4.1", "gpt-5"])
@pytest.mark.parametrize("stream", [False, True], ids=["response", "stream"])
def test_responses_web_searches_priced_as_genai_prices(base_url: str, tmp_path: Path, stream: bool, model: str) -> None:
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)

    def agent(task: str, ctx: Any) -> str:
        got = client.responses.create(model=model, input=task, tools=[{"type": "web_search"}], stream=stream)
        if stream:
            for _ in got:
                pass
        return "ok"

    ep = noesis_nb.solve("search the web", using=agent, runs_dir=tmp_path)
    (call,) = _calls(tmp_path, ep)
    assert call["web_search_requests"] == SEARCHES
    usage = genai_prices.Usage(input_tokens=1000, output_tokens=10, web_searches=SEARCHES)
    want = float(genai_prices.calc_price(usage, model_ref=model, provider_id="openai").total_price)
    tokens_only = float(
        genai_prices.calc_price(
            genai_prices.Usage(input_tokens=1000, output_tokens=10), model_ref=model, provider_id="openai"
        ).total_price
    )
    assert want > tokens_only  # genai-prices prices this model's searches
    assert noesis_nb.usage_df(tmp_path, strict=True)["cost_usd"].tolist() == pytest.approx([want], rel=1e-9)
    assert noesis_nb.runs_df(tmp_path)["cost_usd"].tolist() == pytest.approx([want], rel=1e-9)


def test_a_stream_cut_after_its_searches_keeps_them(base_url: str, tmp_path: Path) -> None:
    """The searches were billed though the stream ended before ``response.completed`` (its usage unknown)."""
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)

    def agent(task: str, ctx: Any) -> str:
        for _ in client.responses.create(model="gpt-4.1", input="cut " + task, tools=[{"type": "web_search"}], stream=True):
            pass
        return "ok"

    ep = noesis_nb.solve("search the web", using=agent, runs_dir=tmp_path)
    (call,) = _calls(tmp_path, ep)
    assert call["web_search_requests"] == SEARCHES
    assert call["input_tokens"] is None


def test_a_response_without_searches_keeps_no_count(base_url: str, tmp_path: Path) -> None:
    """Items of other types are no searches: a plain answer's event has no ``web_search_requests``."""
    from noesis_nb.capture.usage import web_searches

    assert web_searches([_MESSAGE, {"type": "function_call"}, {"type": "web_search"}]) == 0
    assert web_searches(None) == 0 and web_searches({"type": "web_search_call"}) == 0
    assert web_searches([*_SEARCH_ITEMS, _MESSAGE]) == SEARCHES


def test_reprice_of_a_usage_frame_prices_its_searches(base_url: str, tmp_path: Path) -> None:
    """``usage_df`` keeps the counts billed apart as columns, so ``reprice`` with a table of the same rates gives the
    same cost (it priced the tokens alone when the frame dropped them)."""
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)

    def agent(task: str, ctx: Any) -> str:
        client.responses.create(model="gpt-4.1", input=task, tools=[{"type": "web_search"}])
        return "ok"

    noesis_nb.solve("search the web", using=agent, runs_dir=tmp_path)
    usage = noesis_nb.usage_df(tmp_path, strict=True)
    assert usage["web_search_requests"].tolist() == [SEARCHES]
    assert usage["cache_write_1h_input_tokens"].isna().all()  # none reported: unknown, never 0
    table = {"gpt-4.1": {"input": 2, "cached_input": 0.5, "output": 8, "web_search": 0.01}}
    want = (1000 * 2 + 10 * 8) / 1e6 + SEARCHES * 0.01
    assert reprice(usage, table)["cost_usd"].tolist() == pytest.approx([want], rel=1e-9)
    assert noesis_nb.usage_df(tmp_path, prices=table)["cost_usd"].tolist() == pytest.approx([want], rel=1e-9)
