"""A hand report naming no id is a captured call when its counts and its model are the call's, its model read by the
rule an id's join reads it with (``scope.same_models``): case, a provider prefix (``openai/``, ``azure/``) and a
date after the name aside. An Azure deployment is the model its client was given; another model's name is another
call, however close its spelling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb

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
