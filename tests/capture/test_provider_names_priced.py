"""A call is priced at the rate of the provider that billed it, never another's: OpenTelemetry's provider names
(``gen_ai.provider.name``: ``azure.ai.openai``, ``azure.ai.inference``, ``x_ai``, ``aws.bedrock`` …) are read as
genai-prices' providers, and a label genai-prices has no provider for (a gateway's ``my-gateway``, an unknown
OpenTelemetry name) leaves the call unpriced with ``unpriced_reason`` "no price for provider", as a captured call
through an unknown address is; a ``prices=`` row for that provider prices it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

genai_prices = pytest.importorskip("genai_prices")

# (gen_ai.provider.name, model) -> genai-prices' provider that bills it (None: unpriced)
SPANS = [
    ("azure.ai.openai", "gpt-4o", "azure"),
    ("azure.ai.inference", "gpt-4o", "azure"),
    ("x_ai", "grok-3", "x-ai"),
    ("aws.bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0", "aws"),
    ("mistral_ai", "mistral-large-latest", "mistral"),
    ("some.unknown.provider", "gpt-4o", None),
    ("ibm.watsonx.ai", "gpt-4o", None),
]


def _genai(provider: str, model: str) -> float:
    usage = genai_prices.Usage(input_tokens=1000, output_tokens=100)
    return float(genai_prices.calc_price(usage, model_ref=model, provider_id=provider).total_price)


def test_opentelemetry_provider_names_are_priced_at_their_own_rate(tracer: Any, tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        for provider, model, _ in SPANS:
            with tracer.start_as_current_span(f"chat {model}") as span:
                span.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.provider.name": provider,
                        "gen_ai.request.model": model,
                        "gen_ai.usage.input_tokens": 1000,
                        "gen_ai.usage.output_tokens": 100,
                    }
                )
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    usage = noesis_nb.usage_df(tmp_path)
    assert usage["provider"].tolist() == [p for p, _, _ in SPANS]  # as recorded
    for (provider, model, billed), row in zip(SPANS, usage.itertuples()):
        if billed is None:
            assert (row.priced, row.unpriced_reason) == (False, "no price for provider"), provider
            assert math.isnan(row.cost_usd)
        else:
            assert row.price_source.startswith(f"genai-prices:{billed}/"), (provider, row.price_source)
            assert row.cost_usd == pytest.approx(_genai(billed, model), rel=1e-9), provider
    assert noesis_nb.runs_df(tmp_path)["cost_usd"].isna().all()  # two calls of unknown cost: the run's is unknown


def test_a_label_genai_prices_does_not_have_is_no_other_providers_rate(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o", provider="my-proxy", input_tokens=2000, output_tokens=200)
        ctx.model_call("claude-3-5-sonnet-20241022", provider="my-gateway", input_tokens=1000, output_tokens=100)
        ctx.model_call("claude-3-5-sonnet-20241022", provider="anthropic", input_tokens=1000, output_tokens=100)
        ctx.model_call("claude-3-5-sonnet-20241022", input_tokens=1000, output_tokens=100)  # no provider: by its model
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    usage = noesis_nb.usage_df(tmp_path)
    reasons = [None if r != r else r for r in usage["unpriced_reason"].astype(object)]
    assert reasons == ["no price for provider", "no price for provider", None, None]
    sonnet = _genai("anthropic", "claude-3-5-sonnet-20241022")
    assert usage["cost_usd"].tolist()[2:] == pytest.approx([sonnet, sonnet])
    # the gateway's own rate, given as a table row for that provider, prices its call
    table = {"claude-3-5-sonnet-20241022": {"input": 1, "output": 1, "provider": "my-gateway"}}
    priced = noesis_nb.usage_df(tmp_path, prices=table)
    assert priced["cost_usd"].tolist()[1] == pytest.approx(1100 / 1e6)
    assert priced["price_source"].tolist()[1] == "user" and priced["unpriced_reason"].isna().tolist()[1]
