"""A hand report naming no id is a captured call when its counts and its model are the call's, its model read by the
rule an id's join reads it with (``scope.same_models``): case, a provider prefix (``openai/``, ``azure/``) and a
date after the name aside. An Azure deployment is the model its client was given; another model's name is another
call, however close its spelling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.capture.scope import same_models

from .provider_stub import DEFAULT, ProviderStub, Reply, chat_completion
from .recorded_calls import checked_calls, model_event_ids

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]
AZURE = "/openai/deployments/support-bot/chat/completions?api-version=2024-06-01"


def _calls(stub: ProviderStub, runs_dir: Path, report_as: str, azure: bool) -> tuple[list[dict[str, Any]], list[str], str]:
    """The episode's model calls, the event ids and the id ``ctx.model_call`` returned for a call of
    ``gpt-4o-mini`` (an Azure deployment ``support-bot`` of it) reported by hand as ``report_as``, with its counts
    and no id."""
    returned: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        if azure:
            client: Any = openai.AzureOpenAI(
                azure_endpoint=stub.url, api_key="azure-key-0123456789", api_version="2024-06-01", max_retries=0
            )
            answer = client.chat.completions.create(model="support-bot", messages=MSG)
        else:
            client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
            answer = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        usage = answer.usage
        returned.append(ctx.model_call(model=report_as, input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens))
        return "ok"

    if azure:
        stub.script(AZURE, Reply(body=chat_completion("gpt-4o-mini", DEFAULT, "az1")))
    ep = noesis_nb.solve("names", using=agent, runs_dir=runs_dir)
    return checked_calls(runs_dir, ep), model_event_ids(runs_dir, ep), returned[0]


@pytest.mark.parametrize(
    ("report_as", "azure"),
    [
        ("openai/gpt-4o-mini", False),
        ("GPT-4o-mini", False),
        ("gpt-4o-mini-2024-07-18", False),
        ("azure/support-bot", True),  # the deployment: the model the client was given
        ("gpt-4o-mini", True),  # the model it runs: the response's
    ],
)
def test_a_report_without_an_id_naming_the_calls_model_as_adapters_spell_it_is_that_call(
    stub: ProviderStub, runs_dir: Path, report_as: str, azure: bool
) -> None:
    calls, ids, returned = _calls(stub, runs_dir, report_as, azure)
    # before: the first, second and fourth were written twice (the call counted twice in usage_df)
    assert [(p.get("capture"), p["input_tokens"], p["output_tokens"]) for p in calls] == [("openai", 1200, 90)]
    assert ids == [returned]


@pytest.mark.parametrize("report_as", ["gpt-4o", "openai/gpt-4o", "gpt-4o-mini-audio"])
def test_a_report_without_an_id_naming_another_model_is_another_call(stub: ProviderStub, runs_dir: Path, report_as: str) -> None:
    calls, ids, returned = _calls(stub, runs_dir, report_as, False)
    # before: "gpt-4o" was taken for the gpt-4o-mini-2024-07-18 call (a prefix of its name) and written nowhere
    assert [(p.get("capture"), p["model"]) for p in calls] == [("openai", "gpt-4o-mini-2024-07-18"), (None, report_as)]
    assert ids[1] == returned


def _captured_then_reported(stub: ProviderStub, runs_dir: Path, captured: str, reported: str) -> list[dict[str, Any]]:
    """The episode's model calls when a call of ``captured`` is made through the client and another of ``reported``,
    with the same counts and no id, is reported by hand."""
    stub.script("/v1/chat/completions", Reply(body={**chat_completion(captured, DEFAULT, "c1"), "model": captured}))

    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        usage = client.chat.completions.create(model=captured, messages=MSG).usage
        ctx.model_call(reported, input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens)
        return "ok"

    return checked_calls(runs_dir, noesis_nb.solve("tags", using=agent, runs_dir=runs_dir))


@pytest.mark.parametrize(
    ("captured", "reported"),
    [
        ("anthropic.claude-3-5-sonnet-20241022-v2:0", "meta.llama3-70b-instruct-v1:0"),  # Bedrock: both end ':0'
        ("llama3.1:latest", "mistral:latest"),  # Ollama: a model and its tag
        ("mistral:7b", "qwen2:7b"),
        ("llama3.1:latest", "llama3.1:8b"),  # one family, two tags: two models
        ("meta-llama/llama-3-8b-instruct:free", "google/gemma-2-9b-it:free"),  # OpenRouter's free tier
    ],
)
def test_a_report_naming_another_model_with_the_same_tag_is_another_call(
    stub: ProviderStub, runs_dir: Path, captured: str, reported: str
) -> None:
    # before: each name was read as its tag ('0', 'latest', '7b', 'free') and the report taken for the captured call
    calls = _captured_then_reported(stub, runs_dir, captured, reported)
    assert [(p.get("capture"), p["model"]) for p in calls] == [("openai", captured), (None, reported)]


@pytest.mark.parametrize(
    ("captured", "reported"),
    [
        ("anthropic.claude-3-5-sonnet-20241022-v2:0", "bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0"),
        ("llama3.1:latest", "LLAMA3.1:latest"),
        ("claude-sonnet-4-0", "anthropic:claude-sonnet-4-0"),
        ("gemini-2.0-flash", "google-gla:gemini-2.0-flash"),
        ("llama-3-8b-instruct:free", "openrouter:meta-llama/llama-3-8b-instruct:free"),
    ],
)
def test_a_report_naming_the_model_with_a_provider_prefix_or_its_tag_is_that_call(
    stub: ProviderStub, runs_dir: Path, captured: str, reported: str
) -> None:
    calls = _captured_then_reported(stub, runs_dir, captured, reported)
    assert [(p.get("capture"), p["model"]) for p in calls] == [("openai", captured)]


def test_a_model_and_its_dated_name_are_one_model_a_preview_of_another_name_is_not() -> None:
    """A date or a version number after a name is that model's snapshot (``gpt-4`` answers as ``gpt-4-0613``);
    ``gpt-4-1106-preview`` is another model (GPT-4 Turbo's preview), which ``gpt-4`` never answers as."""
    assert same_models(("gpt-4",), ("gpt-4-0613",), unknown_agrees=False)
    assert same_models(("claude-3-5-sonnet",), ("claude-3-5-sonnet-20241022",), unknown_agrees=False)
    assert not same_models(("gpt-4",), ("gpt-4-1106-preview",), unknown_agrees=False)
    assert not same_models(("ft:gpt-4o-mini:acme::AAA",), ("ft:gpt-4o-mini:acme::BBB",), unknown_agrees=False)


@pytest.mark.parametrize(
    ("requested", "report_as"),
    [("gpt-4-turbo-preview", "gpt-4-turbo"), ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"), ("gpt-4o-mini", "gpt-4o-mini")],
)
def test_a_report_with_the_calls_own_id_naming_an_alias_of_its_model_is_that_call(
    stub: ProviderStub, runs_dir: Path, requested: str, report_as: str
) -> None:
    """The id is the evidence: an alias (the model's name before a ``-``) contradicts nothing, so the call is
    counted once, not twice with its tokens doubled."""

    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        answer = client.chat.completions.create(model=requested, messages=MSG)
        usage = answer.usage
        ctx.model_call(
            model=report_as,
            provider="openai",
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            request_id=answer.id,
        )
        return "ok"

    ep = noesis_nb.solve("alias", using=agent, runs_dir=runs_dir)
    assert len(checked_calls(runs_dir, ep)) == 1
    assert len(noesis_nb.usage_df(runs_dir)) == 1
