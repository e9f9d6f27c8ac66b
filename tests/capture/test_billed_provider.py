"""A captured call is priced for the provider its client called (Bedrock, Vertex, Azure, a gateway, a local server),
read from the client, never guessed from the model id the response reports."""

from __future__ import annotations

from typing import Any

import anthropic
import genai_prices
import httpx
import openai
import pytest

import noesis_nb

from .provider_stub import ANTHROPIC_DEFAULT, DEFAULT, ProviderStub, Reply, anthropic_message, chat_completion

MSG = [{"role": "user", "content": "hi"}]
CLAUDE = "claude-3-5-sonnet-20241022"  # a plain id, as the Bedrock and Vertex clients are called with and answer


class _Forward(httpx.BaseTransport):
    """A client's requests to a provider's host, answered by the loopback server (the host's name is kept)."""

    def __init__(self, stub: ProviderStub):
        self.port = int(stub.url.rsplit(":", 1)[1])
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        return self.inner.handle_request(request)


def _anthropic_usage() -> genai_prices.Usage:
    n = ANTHROPIC_DEFAULT
    return genai_prices.Usage(
        input_tokens=n["uncached"] + n["cache_read"] + n["cache_write"],
        cache_read_tokens=n["cache_read"],
        cache_write_tokens=n["cache_write"],
        output_tokens=n["output"],
    )


def _openai_usage() -> genai_prices.Usage:
    return genai_prices.Usage(input_tokens=DEFAULT["input"], cache_read_tokens=DEFAULT["cached"], output_tokens=DEFAULT["output"])


def _rows(runs_dir: Any, agent: Any) -> Any:
    noesis_nb.solve("billed", using=agent, runs_dir=runs_dir)
    return noesis_nb.usage_df(runs_dir)


def test_bedrock_and_vertex_clients_are_priced_at_their_platforms_rates_not_anthropics(stub, runs_dir):
    stub.script(f"/model/{CLAUDE}/invoke", Reply(body=anthropic_message(CLAUDE, ANTHROPIC_DEFAULT, "b1")))
    vertex_path = f"/projects/p1/locations/us-east5/publishers/anthropic/models/{CLAUDE}:rawPredict"
    stub.script(vertex_path, Reply(body=anthropic_message(CLAUDE, ANTHROPIC_DEFAULT, "v1")))

    def agent(task, ctx):
        anthropic.AnthropicBedrock(
            aws_access_key="AKIAEXAMPLEEXAMPLE12", aws_secret_key="x" * 40, aws_region="us-east-1", base_url=stub.url,
            max_retries=0,
        ).messages.create(model=CLAUDE, max_tokens=5, messages=MSG)  # fmt: skip
        anthropic.AnthropicVertex(
            region="us-east5", project_id="p1", access_token="ya29.test-token", base_url=stub.url, max_retries=0
        ).messages.create(model=CLAUDE, max_tokens=5, messages=MSG)
        return "ok"

    df = _rows(runs_dir, agent)
    assert list(df["model"]) == [CLAUDE, CLAUDE]
    assert list(df["provider"]) == ["aws-bedrock", "google-vertex"]
    for row, genai_provider in zip(df.itertuples(), ("aws", "google")):
        expected = genai_prices.calc_price(_anthropic_usage(), model_ref=CLAUDE, provider_id=row.provider)
        assert expected.provider.id == genai_provider
        assert row.priced and row.cost_usd == pytest.approx(float(expected.total_price), rel=1e-9)
        assert str(row.price_source).startswith(f"genai-prices:{genai_provider}/")


def test_azure_a_gateway_and_a_local_server_are_priced_as_themselves_or_not_at_all(stub, runs_dir):
    azure_path = "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-06-01"
    stub.script(azure_path, Reply(body=chat_completion("gpt-4o-mini", DEFAULT, "az1")))
    stub.script(
        "/api/v1/chat/completions",
        Reply(body={**chat_completion("openai/gpt-4o", DEFAULT, "or1"), "model": "openai/gpt-4o"}),  # as OpenRouter names it
        Reply(body={**chat_completion("gpt-4o", DEFAULT, "or2"), "model": "gpt-4o"}),
    )
    other = ProviderStub()  # a local model server, which nobody bills
    bill_free = other.url + "/v1"
    from noesis_nb.capture import bill_endpoint

    bill_endpoint(other.openai_url, None)
    bill_endpoint(other.url, None)
    try:

        def agent(task, ctx):
            openai.AzureOpenAI(
                azure_endpoint=stub.url, api_key="azure-key-0123456789", api_version="2024-06-01", max_retries=0
            ).chat.completions.create(model="gpt-4o-mini", messages=MSG)
            routed = httpx.Client(transport=_Forward(stub))
            openai.OpenAI(
                base_url="https://openrouter.ai/api/v1", api_key="sk-or-v1-test0123456789", http_client=routed, max_retries=0
            ).chat.completions.create(model="openai/gpt-4o", messages=MSG)
            openai.OpenAI(
                base_url="https://openrouter.ai/api/v1", api_key="sk-or-v1-test0123456789", http_client=routed, max_retries=0
            ).chat.completions.create(model="gpt-4o", messages=MSG)  # a name OpenRouter does not list: unknown
            openai.OpenAI(base_url=bill_free, api_key="sk-local", max_retries=0).chat.completions.create(
                model="gpt-4o-mini", messages=MSG
            )
            return "ok"

        df = _rows(runs_dir, agent)
    finally:
        other.close()
    assert list(df["provider"]) == ["azure", "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1", bill_free]
    azure, routed, unlisted, local = df.itertuples()
    for row, provider in ((azure, "azure"), (routed, "openrouter")):
        expected = genai_prices.calc_price(_openai_usage(), model_ref=row.model, provider_id=provider)
        assert row.priced and row.cost_usd == pytest.approx(float(expected.total_price), rel=1e-9)
    for row in (unlisted, local):  # OpenAI's gpt-4o price would be a wrong one: the cost is unknown
        assert not row.priced and row.cost_usd != row.cost_usd


GROQ_MODEL = "llama-3.1-8b-instant"  # a model Groq serves and OpenAI does not
GROQ = "https://api.groq.com/openai/v1"


def _groq_reply(rid: str) -> Reply:
    return Reply(body={**chat_completion(GROQ_MODEL, DEFAULT, rid), "model": GROQ_MODEL})


def _assert_priced_by(df: Any, providers: list[str]) -> None:
    """Each row billed by its own provider (as ``usage_df`` names it) and priced at that provider's rate."""
    assert list(df["provider"]) == providers
    for row in df.itertuples():
        genai_provider = "groq" if row.provider == GROQ else "openai"
        expected = genai_prices.calc_price(_openai_usage(), model_ref=row.model, provider_id=genai_provider)
        assert row.priced and row.cost_usd == pytest.approx(float(expected.total_price), rel=1e-9)
        assert str(row.price_source).startswith(f"genai-prices:{genai_provider}/")


def test_the_module_level_client_is_billed_by_the_provider_openai_base_url_names_at_each_call(stub, runs_dir, monkeypatch):
    # ``openai.chat.completions.create`` calls one client kept by the module, whose ``base_url`` answers the module's
    # ``openai.base_url`` at each call (its own field is left as it was): switching it switches who bills the calls
    stub.script("/openai/v1/chat/completions", _groq_reply("g1"))
    module_settings = {"api_type": "openai", "api_key": "sk-test0123456789", "max_retries": 0, "base_url": None}
    for name, value in {**module_settings, "http_client": httpx.Client(transport=_Forward(stub)), "_client": None}.items():
        monkeypatch.setattr(openai, name, value)

    def agent(task, ctx):
        openai.base_url = "https://api.openai.com/v1/"
        openai.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        openai.base_url = GROQ + "/"
        openai.chat.completions.create(model=GROQ_MODEL, messages=MSG)
        openai.base_url = "https://api.openai.com/v1/"
        openai.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        return "ok"

    df = _rows(runs_dir, agent)
    assert stub.hits("/openai/v1/chat/completions") == 1 and stub.hits("/v1/chat/completions") >= 2
    _assert_priced_by(df, ["openai", GROQ, "openai"])


def test_a_client_whose_base_url_is_reassigned_is_billed_by_its_new_provider(stub, runs_dir):
    stub.script("/openai/v1/chat/completions", _groq_reply("g2"))

    def agent(task, ctx):
        client = openai.OpenAI(
            base_url="https://api.openai.com/v1", api_key="sk-test0123456789", http_client=httpx.Client(transport=_Forward(stub)),
            max_retries=0,
        )  # fmt: skip
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        client.base_url = GROQ
        client.chat.completions.create(model=GROQ_MODEL, messages=MSG)
        return "ok"

    _assert_priced_by(_rows(runs_dir, agent), ["openai", GROQ])
