"""Embeddings calls (a RAG agent's other billed calls): captured like chat calls, priced for their input alone."""

from __future__ import annotations

import asyncio
import json

import pytest

import noesis_nb

from .recorded_calls import checked_calls, tokens

openai = pytest.importorskip("openai")
genai_prices = pytest.importorskip("genai_prices")


def _genai_price(model: str, input_tokens: int) -> float:
    """What genai-prices itself charges for ``input_tokens`` of ``model`` (the reference the frames must equal)."""
    got = genai_prices.calc_price(genai_prices.Usage(input_tokens=input_tokens), model_ref=model, provider_id="openai")
    return float(got.total_price)


def test_sync_and_async_embeddings_are_one_event_each_with_their_input_tokens(stub, runs_dir):
    seen: list[list[float]] = []

    async def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        default = client.embeddings.create(model="text-embedding-3-small", input="hi", extra_body={"stub_usage": {"input": 8}})
        floats = client.embeddings.create(
            model="text-embedding-3-large", input=["a", "b"], encoding_format="float", extra_body={"stub_usage": {"input": 21}}
        )
        later = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        awaited = await later.embeddings.create(
            model="text-embedding-3-small", input="x", extra_body={"stub_usage": {"input": 5}}
        )
        seen.extend(d.embedding for r in (default, floats, awaited) for d in r.data)
        return "ok"

    ep = noesis_nb.solve("embed", using=lambda task, ctx: asyncio.run(agent(task, ctx)), runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    # an embedding writes no tokens: the provider's total equals its prompt count, so the output is 0, not unknown
    assert [(p["api"], p["model"], tokens(p)) for p in got] == [
        ("embeddings", "text-embedding-3-small", (8, None, None, 0, None)),
        ("embeddings", "text-embedding-3-large", (21, None, None, 0, None)),
        ("embeddings", "text-embedding-3-small", (5, None, None, 0, None)),
    ]
    assert all(p["request_id"].startswith("req_") and p["stop_reason"] is None and p["response_id"] is None for p in got)
    # the SDK decoded the vectors as it does without capture (base64 by default, floats when asked)
    assert seen == [pytest.approx([0.25, -0.5, 0.125])] * 4

    usage = noesis_nb.usage_df(runs_dir, episodes=ep)
    assert usage["priced"].all()
    expected = [
        _genai_price(m, n)
        for m, n in [("text-embedding-3-small", 8), ("text-embedding-3-large", 21), ("text-embedding-3-small", 5)]
    ]
    assert usage["cost_usd"].tolist() == pytest.approx(expected)
    assert noesis_nb.runs_df(runs_dir).loc[lambda r: r["episode_id"] == ep, "cost_usd"].iloc[0] == pytest.approx(sum(expected))


def test_an_embedding_whose_output_is_unknown_is_still_priced_and_a_chat_call_is_not(stub, runs_dir):
    def agent(task, ctx):
        ctx.model_call("text-embedding-3-small", input_tokens=1000, output_tokens=None, provider="openai")
        ctx.model_call("gpt-4o-mini", input_tokens=1000, output_tokens=None, provider="openai")
        return "ok"

    ep = noesis_nb.solve("unknown outputs", using=agent, runs_dir=runs_dir)
    usage = noesis_nb.usage_df(runs_dir, episodes=ep).set_index("model")
    # the embedding model bills no output: its unknown output changes nothing; a chat model's would, so it stays NaN
    assert usage.loc["text-embedding-3-small", "cost_usd"] == pytest.approx(_genai_price("text-embedding-3-small", 1000))
    assert bool(usage.loc["text-embedding-3-small", "priced"])
    assert usage.loc["gpt-4o-mini", "cost_usd"] != usage.loc["gpt-4o-mini", "cost_usd"]  # NaN
    assert not bool(usage.loc["gpt-4o-mini", "priced"])


def test_an_embeddings_call_exports_as_an_embeddings_span(stub, runs_dir, tmp_path):
    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        client.embeddings.create(model="text-embedding-3-small", input="hi", extra_body={"stub_usage": {"input": 8}})
        return "ok"

    ep = noesis_nb.solve("embed out", using=agent, runs_dir=runs_dir)
    noesis_nb.export_otel(runs_dir / ep, path=tmp_path / "t.json")
    spans = json.loads((tmp_path / "t.json").read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    attrs = [{a["key"]: next(iter(a["value"].values())) for a in s.get("attributes", [])} for s in spans]
    model_spans = [a for a in attrs if a.get("gen_ai.request.model") == "text-embedding-3-small"]
    assert len(model_spans) == 1
    assert model_spans[0]["gen_ai.operation.name"] == "embeddings"
    assert int(model_spans[0]["gen_ai.usage.input_tokens"]) == 8
