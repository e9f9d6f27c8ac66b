"""Other tools' labels of a provider genai-prices has under another id (LiteLLM's ``fireworks_ai``, ``azure_ai``,
``codestral``, Hugging Face's ``fireworks-ai``, pydantic-ai's ``grok``) price a call as that provider's id does;
13f56ea7 left them unpriced as providers genai-prices does not know. A label no genai-prices provider stands for
(a local ``ollama``, Hugging Face's router without its backend) stays unpriced, saying so."""

from __future__ import annotations

import pytest

from noesis_nb import usage_df

from .runkit import basic_events, model_call, write_run

TS = "2025-07-01T10:00:00.000000+00:00"
PAIRS = [
    ("fireworks_ai", "fireworks", "accounts/fireworks/models/llama-v3p1-8b-instruct"),
    ("fireworks-ai", "fireworks", "accounts/fireworks/models/llama-v3p1-8b-instruct"),
    ("azure_ai", "azure", "gpt-4o"),
    ("azure_text", "azure", "gpt-4o"),
    ("codestral", "mistral", "codestral-latest"),
    ("grok", "x-ai", "grok-3"),
]
UNKNOWN = [("ollama", "llama3.1:8b"), ("huggingface", "meta-llama/Llama-3.1-8B-Instruct"), ("hf", "gpt-4o")]


@pytest.fixture(scope="module")
def usage(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("labels") / "runs"
    events = basic_events("ep_labels")
    calls = dict.fromkeys([(label, model) for label, _, model in PAIRS] + [(id_, model) for _, id_, model in PAIRS] + UNKNOWN)
    for n, (provider, model) in enumerate(calls):
        events.insert(-1, model_call("ep_labels", 10 + n, TS, model, provider, input_tokens=1000, output_tokens=100))
    write_run(root, "ep_labels", events)
    return usage_df(root, cache=False, progress=False)


@pytest.mark.parametrize(("label", "provider_id", "model"), PAIRS)
def test_a_label_prices_as_its_provider_id(usage, label: str, provider_id: str, model: str) -> None:
    def cost(provider: str) -> float:
        row = usage[usage.provider.eq(provider) & usage.model.eq(model)]
        assert len(row) == 1, provider
        return float(row.cost_usd.iloc[0])

    assert cost(provider_id) > 0
    assert cost(label) == pytest.approx(cost(provider_id))


@pytest.mark.parametrize(("label", "model"), UNKNOWN)
def test_a_label_no_provider_stands_for_stays_unpriced(usage, label: str, model: str) -> None:
    row = usage[usage.provider.eq(label)]
    assert len(row) == 1 and row.cost_usd.isna().all() and not row.priced.any()
    assert row.unpriced_reason.tolist() == ["no price for provider"]
