"""A ``prices=`` table keyed by the model a person asked for prices the calls whose recorded model is the
provider's dated name (``gpt-4o-mini`` for ``gpt-4o-mini-2024-07-18``, ``o3`` for ``o3-2025-04-16``): an SDK call
captured from a loopback server and an OpenTelemetry span's ``gen_ai.response.model`` alike, in ``usage_df`` and
``runs_df``. A dated key does not price the undated name (an alias may move to a newer snapshot), and a table that
prices no call says so, naming its models and the calls'."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.frames import LoadProblemsWarning

openai = pytest.importorskip("openai")

RATE = {"input": 100.0, "output": 100.0}  # far from any real rate: a user price shows
MSG = [{"role": "user", "content": "q"}]


def _cost(inp: int, out: int) -> float:
    return (inp + out) * 100.0 / 1e6


def test_a_table_keyed_by_the_asked_model_prices_the_dated_calls(stub: Any, tracer: Any, tmp_path: Path) -> None:
    client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)

    def agent(task: str, ctx: Any) -> str:
        client.chat.completions.create(
            model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": {"input": 1000, "cached": 0, "output": 100}}
        )
        with tracer.start_as_current_span("chat o3") as span:  # another tool's span: the response's dated name
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "o3",
                    "gen_ai.response.model": "o3-2025-04-16",
                    "gen_ai.usage.input_tokens": 2000,
                    "gen_ai.usage.output_tokens": 300,
                }
            )
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LoadProblemsWarning)  # the table priced its calls: nothing to say
        usage = noesis_nb.usage_df(tmp_path, prices={"gpt-4o-mini": RATE, "o3": RATE})
    assert usage["model"].tolist() == ["gpt-4o-mini-2024-07-18", "o3-2025-04-16"]
    assert usage["price_source"].tolist() == ["user", "user"]
    assert usage["cost_usd"].tolist() == pytest.approx([_cost(1000, 100), _cost(2000, 300)])
    assert usage.attrs["price_table_unmatched"] == []
    runs = noesis_nb.runs_df(tmp_path, prices={"gpt-4o-mini": RATE, "o3": RATE})
    assert runs["cost_usd"].tolist() == pytest.approx([_cost(1000, 100) + _cost(2000, 300)])
    # a provider's row and a "provider/model" key match the dated name too
    for table in ({"gpt-4o-mini": {**RATE, "provider": "openai"}}, {"openai/gpt-4o-mini": RATE}):
        first = noesis_nb.usage_df(tmp_path, prices=table).iloc[0]
        assert (first["price_source"], first["cost_usd"]) == ("user", pytest.approx(_cost(1000, 100)))


def test_a_dated_key_does_not_price_the_undated_name(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100)
        ctx.model_call("gpt-4o-2024-08-06", provider="openai", input_tokens=1000, output_tokens=100)
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    usage = noesis_nb.usage_df(tmp_path, prices={"gpt-4o-2024-08-06": RATE})
    assert usage["price_source"].tolist() == ["genai-prices:openai/gpt-4o", "user"]


def test_a_table_that_prices_no_call_says_so_and_lists_its_unmatched_names(tmp_path: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini-2024-07-18", provider="openai", input_tokens=1000, output_tokens=100)
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    with pytest.warns(LoadProblemsWarning):
        usage = noesis_nb.usage_df(tmp_path, prices={"claude-3-5-haiku": RATE})
    (reason,) = [e["reason"] for e in usage.attrs["errors"]]
    assert reason.startswith("prices= priced no call: it names 'claude-3-5-haiku' and the calls are of 'gpt-4o-mini-2024-07-18'")
    assert usage.attrs["price_table_unmatched"] == ["claude-3-5-haiku"]
    # a table that priced some of the calls lists its other names, and says nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error", LoadProblemsWarning)
        usage = noesis_nb.usage_df(tmp_path, prices={"claude-3-5-haiku": RATE, "gpt-4o-mini": RATE})
    assert usage.attrs["price_table_unmatched"] == ["claude-3-5-haiku"] and usage.attrs["errors"] == []
