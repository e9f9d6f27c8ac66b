"""``usage_df.unpriced_reason`` tells apart the two things "unpriced" meant: a model with no known price, and a priced
model whose input or output count the run did not report (and a sealed log changed since its seal). The figures of
the row (``cost_usd`` NaN, ``priced`` False) are as before; the reason is why, <NA> for a priced call."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.cost import reprice
from noesis_nb.frames import USAGE_COLUMNS, usage_df

# (model, input, output) -> the reason usage_df gives, None: priced
CALLS: list[tuple[str, int | None, int | None, str | None]] = [
    ("gpt-4o-mini", 100, 10, None),
    ("gpt-4o-mini", 100, None, "output tokens unknown"),
    ("gpt-4o-mini", None, 10, "input tokens unknown"),
    ("gpt-4o-mini", None, None, "input and output tokens unknown"),
    ("no-such-model-anywhere", 100, 10, "no price for model"),
    ("no-such-model-anywhere", 100, None, "no price for model"),  # no price: the unknown count changes nothing
    ("text-embedding-3-small", 100, None, None),  # bills no output: priced whatever its output count
]


def _agent(task: str, ctx: Any) -> str:
    for model, inp, out, _ in CALLS:
        ctx.model_call(model, provider="openai", input_tokens=inp, output_tokens=out)
    return "done"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("unpriced") / "runs"
    return root / noesis_nb.solve("price them", using=_agent, runs_dir=root)


def _reasons(df: pd.DataFrame) -> list[str | None]:
    return [None if pd.isna(v) else v for v in df["unpriced_reason"]]


def test_each_unpriced_call_says_why_and_the_other_columns_stay(run: Path) -> None:
    df = usage_df(run.parent)
    assert list(df.columns) == list(USAGE_COLUMNS) and list(df.columns)[-1] == "unpriced_reason"
    assert _reasons(df) == [reason for *_, reason in CALLS]
    assert isinstance(df["unpriced_reason"].dtype, pd.CategoricalDtype)
    # every reason is a category of every frame (a frame with none unpriced concatenates with one that has some)
    others = {"log changed since its seal", "no price for provider"}
    assert {r for *_, r in CALLS if r} | others == set(df["unpriced_reason"].cat.categories)
    # the reason is NA exactly where the row is priced, and the figures say what they said before
    assert (df["unpriced_reason"].isna() == df["priced"]).all()
    assert (df["cost_usd"].isna() == ~df["priced"]).all()


def test_a_users_price_table_changes_the_reason_with_the_price(run: Path) -> None:
    table = {"no-such-model-anywhere": {"input": 1.0, "output": 2.0}}
    df = usage_df(run.parent, prices=table)
    by_model = df[df["model"] == "no-such-model-anywhere"]
    assert _reasons(by_model) == [None, "output tokens unknown"]  # priced now: only the unknown output is left
    again = reprice(usage_df(run.parent), table)  # repricing a frame says the new table's reasons too
    assert _reasons(again[again["model"] == "no-such-model-anywhere"]) == [None, "output tokens unknown"]


def test_a_sealed_log_changed_since_its_seal_says_so(run: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(run, root / run.name)
    log = root / run.name / "events.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for event in lines:  # the same calls, another size than the seal lists
        if event.get("payload", {}).get("event_name") == "model.call" and event["payload"].get("input_tokens"):
            event["payload"]["input_tokens"] = float(event["payload"]["input_tokens"])
    log.write_text("".join(json.dumps(e) + "\n" for e in lines))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = usage_df(root)
    assert len(df) == len(CALLS) and not df["priced"].any()
    assert set(_reasons(df)) == {"log changed since its seal"}
