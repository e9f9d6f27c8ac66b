"""Amazon Bedrock and Vertex AI model ids are priced as genai-prices prices them under those platforms.

A call through ``AnthropicBedrock`` or ``AnthropicVertex`` names the SDK's provider (``anthropic``) and the
platform's model id; its cost must be genai-prices' own ``calc_price`` for the platform (``aws-bedrock``,
``google-vertex``), at the call's time. An id genai-prices does not price stays unpriced (NaN, never 0).
"""

from __future__ import annotations

import hashlib
import hmac
import math

import orjson
import pytest

import noesis_nb
from noesis_nb import _genai_rates
from noesis_nb._sealkey import seal_key

genai_prices = pytest.importorskip("genai_prices")

COUNTS = {"input_tokens": 12_000, "cached_input_tokens": 4_000, "cache_write_input_tokens": 1_000, "output_tokens": 700}
# (model id as the call names it, provider as the call names it, the platform genai-prices prices it under)
PRICED = [
    ("anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic", "aws-bedrock"),
    ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "anthropic", "aws-bedrock"),
    ("eu.anthropic.claude-sonnet-4-20250514-v1:0", None, "aws-bedrock"),
    ("amazon.nova-pro-v1:0", "openai", "aws-bedrock"),  # through an OpenAI-compatible gateway
    ("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0", None,
     "aws-bedrock"),
    ("claude-3-5-sonnet-v2@20241022", "anthropic", "google-vertex"),
    ("publishers/google/models/gemini-1.5-pro-002", "openai", "google-vertex"),
    ("publishers/anthropic/models/claude-3-5-sonnet-v2@20241022", None, "google-vertex"),
    ("projects/p1/locations/us-central1/publishers/google/models/gemini-2.0-flash-001", None, "google-vertex"),
    ("bedrock/us.anthropic.claude-3-7-sonnet-20250219-v1:0", "openai", "litellm"),  # LiteLLM's names
    ("vertex_ai/claude-3-5-sonnet-v2@20241022", None, "litellm"),
]  # fmt: skip
UNPRICED = [
    ("anthropic.claude-nonexistent-v9:0", "anthropic"),
    ("publishers/acme/models/no-such-model", None),
    ("acme-model@20240101", "anthropic"),
    ("gemma-3-12b-it", "openai"),  # a local server's model: no platform's rate, though Bedrock and Vertex host it
    ("bedrock/acme.no-such-model-v1:0", None),
]


def _record(runs_dir, calls):
    def agent(task, ctx):
        for model, provider in calls:
            ctx.model_call(model, provider=provider, **COUNTS)
        return "ok"

    return noesis_nb.solve("platform ids", using=agent, runs_dir=runs_dir)


def test_bedrock_and_vertex_ids_cost_what_genai_prices_says(runs_dir):
    ep = _record(runs_dir, [(m, p) for m, p, _ in PRICED])
    df = noesis_nb.usage_df(runs_dir, episodes=ep)
    assert df["model"].tolist() == [m for m, _, _ in PRICED]
    for row, (model, _, platform) in zip(df.itertuples(), PRICED):
        theirs = genai_prices.calc_price(
            genai_prices.Usage(
                input_tokens=COUNTS["input_tokens"],
                cache_read_tokens=COUNTS["cached_input_tokens"],
                cache_write_tokens=COUNTS["cache_write_input_tokens"],
                output_tokens=COUNTS["output_tokens"],
            ),
            model,
            provider_id=platform,
            genai_request_timestamp=row.timestamp.to_pydatetime(),
        )
        assert row.priced, model
        assert row.cost_usd == pytest.approx(float(theirs.total_price), rel=1e-12), model
        assert row.price_source == f"genai-prices:{theirs.provider.id}/{theirs.model.id}", model


def test_ids_genai_prices_does_not_price_stay_unknown(runs_dir):
    ep = _record(runs_dir, UNPRICED)
    df = noesis_nb.usage_df(runs_dir, episodes=ep)
    assert len(df) == len(UNPRICED)
    assert all(math.isnan(c) for c in df["cost_usd"]) and not df["priced"].any()


def test_a_rates_file_of_the_previous_form_is_not_read(runs_dir):
    """A rates file written before platform ids were priced holds them as unknown: it is rebuilt, not believed."""
    model, provider, _ = PRICED[0]
    litellm_model, litellm_provider, _ = PRICED[-1]
    old_form = b"noesis_nb.genai-rates/3"  # and every form before it
    unpriced = {f"{provider}|{model}": None, f"{litellm_provider or ''}|{litellm_model}": None}
    body = orjson.dumps({"genai_prices": _genai_rates.genai_version(), "models": unpriced})
    mac = hmac.new(seal_key(), old_form, hashlib.sha256)
    mac.update(body)
    path = _genai_rates.rates_cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(mac.hexdigest().encode() + b"\n" + body)
    _genai_rates._STORE = None  # a new process: the file is all it has
    ep = _record(runs_dir, [(model, provider), (litellm_model, litellm_provider)])
    assert noesis_nb.usage_df(runs_dir, episodes=ep)["priced"].tolist() == [True, True]
