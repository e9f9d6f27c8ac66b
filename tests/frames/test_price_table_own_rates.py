"""A ``prices=`` table's ``reasoning`` rate (USD per million reasoning tokens, a part of the output) and ``per_call``
charge (USD per call) price the calls, from a dict, a YAML file and a CSV file; another tool's name of one of them
(``thinking``, ``per_request``) is refused by name with the field to give instead, never silently left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("own-rates")

    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("my-o-model", provider="acme", input_tokens=1000, output_tokens=5000, reasoning_tokens=4000)
        ctx.model_call("my-o-model", provider="acme", input_tokens=1000, output_tokens=5000)  # reasoning unknown
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=root)
    return root


BASE = 1000 * 2e-6 + 5000 * 8e-6  # input and output at 2 and 8 USD per million


def test_a_reasoning_rate_prices_the_reasoning_part_of_the_output(runs: Path) -> None:
    usage = noesis_nb.usage_df(runs, prices={"my-o-model": {"input": 2, "output": 8, "reasoning": 60}})
    reasoned = 1000 * 2e-6 + 1000 * 8e-6 + 4000 * 60e-6
    assert usage["cost_usd"].tolist() == pytest.approx([reasoned, BASE])
    # the call whose reasoning count is unknown was priced with none: said as for a cached count
    assert usage.attrs["price_assumptions"] == {"acme/my-o-model": {"reasoning_tokens": 1}}
    assert noesis_nb.runs_df(runs, prices={"my-o-model": {"input": 2, "output": 8, "reasoning": 60}})[
        "cost_usd"
    ].tolist() == pytest.approx([reasoned + BASE])


def test_a_per_call_charge_is_added_to_each_call(runs: Path, tmp_path: Path) -> None:
    csv = tmp_path / "prices.csv"
    csv.write_text("model,input,output,per_call\nmy-o-model,2,8,0.5\n")
    yaml = tmp_path / "prices.yaml"
    yaml.write_text("my-o-model:\n  input: 2\n  output: 8\n  per_call: 0.5\n")
    for table in ({"my-o-model": {"input": 2, "output": 8, "per_call": 0.5}}, csv, yaml):
        assert noesis_nb.usage_df(runs, prices=table)["cost_usd"].tolist() == pytest.approx([BASE + 0.5] * 2)


@pytest.mark.parametrize(
    ("field", "instead"),
    [("thinking", "reasoning"), ("per_request", "per_call"), ("reasoning_output", "reasoning"), ("requests", "per_call")],
)
def test_another_tools_name_of_a_field_is_refused_naming_ours(runs: Path, field: str, instead: str) -> None:
    with pytest.raises(InvalidOptionError) as info:
        noesis_nb.usage_df(runs, prices={"my-o-model": {"input": 2, "output": 8, field: 60}})
    message = str(info.value)
    assert f"unknown field(s) ['{field}'] (did you mean '{instead}'?)" in message and "'my-o-model'" in message


@pytest.mark.parametrize("value", [-1, "lots", float("nan")])
def test_a_reasoning_or_per_call_value_that_is_no_price_is_refused(runs: Path, value: Any) -> None:
    for field in ("reasoning", "per_call"):
        with pytest.raises(InvalidOptionError, match=rf"{field}=.* is not a price"):
            noesis_nb.usage_df(runs, prices={"my-o-model": {"input": 2, "output": 8, field: value}})
