"""``runs_df``'s model-call columns: each run's totals are its ``usage_df`` rows' sums, priced without a frame of calls.

``run_usage`` prices a load's calls from arrays (``cost.price_arrays``); building a usage frame of
the calls and a priced copy of it, only to sum them per run, was a fixed cost of every load (about a
third of a 10-run root's first call). The reference here is ``usage_df``, which reads the runs'
events on its own; it prices them through ``price_frame`` and the same ``price_arrays``, so this checks the
per-run sums, counts and flags, not the prices themselves (``test_cost`` does).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from noesis_nb.frames import runs_df, usage_df
from noesis_nb.frames.columns import TOKEN_COLUMNS

from .runkit import event, hand_summary, model_call, write_run

DAY = "2025-03-01T10:00:"


def _run(root: Path, ep: str, calls: list[dict[str, Any]], **kw: Any) -> None:
    events = [event(ep, 0, "start", {"task": f"task of {ep}", "using": "hand"}, ts=DAY + "00.000000+00:00")]
    for n, (model, provider, ts, tokens) in enumerate(calls, start=1):
        events.append(model_call(ep, n, ts, model, provider, **tokens))
    events.append(event(ep, len(events), "terminate", {"status": "ok"}, ts=DAY + "59.000000+00:00"))
    write_run(root, ep, events, **kw)


def _varied(root: Path) -> None:
    """Runs whose calls take every path of pricing: known, tiered, unknown and unnamed models, no time, bad counts."""
    t = DAY + "10.000000+00:00"
    _run(root, "ep_plain", [("gpt-4o", "openai", t, {"input_tokens": 1000, "output_tokens": 100, "cached_input_tokens": 400})])
    _run(
        root,
        "ep_tiered",
        [
            ("claude-sonnet-4-5", "anthropic", t, {"input_tokens": 300_000, "output_tokens": 2_000}),
            ("claude-sonnet-4-5", "anthropic", t, {"input_tokens": 1_000, "output_tokens": 20, "cache_write_input_tokens": 10}),
        ],
    )
    _run(root, "ep_unknown_model", [("my-private-model", "acme", t, {"input_tokens": 50, "output_tokens": 5})])
    _run(root, "ep_no_model", [(None, None, t, {"input_tokens": 7, "output_tokens": 1})])
    _run(root, "ep_no_provider", [("gpt-4o-mini", None, t, {"input_tokens": 70, "output_tokens": 9, "reasoning_tokens": 3})])
    _run(root, "ep_bad_time", [("gpt-4o", "openai", "yesterday", {"input_tokens": 10, "output_tokens": 2})])
    _run(
        root,
        "ep_bad_counts",
        [
            ("gpt-4o", "openai", t, {"input_tokens": "12", "output_tokens": 3}),
            ("gpt-4o", "openai", t, {"input_tokens": 10, "cached_input_tokens": 40, "output_tokens": -1}),
            ("gpt-4o", "openai", t, {"input_tokens": True, "output_tokens": 5, "reasoning_tokens": 9}),
        ],
    )
    _run(
        root,
        "ep_mixed",
        [
            ("gpt-4o", "openai", t, {"input_tokens": 500, "output_tokens": 50}),
            ("my-private-model", "acme", t, {"input_tokens": 5, "output_tokens": 5}),
        ],
    )
    _run(root, "ep_no_calls", [], summary=hand_summary("ep_no_calls", task="nothing"))


def _expected(root: Path) -> pd.DataFrame:
    """Per run: calls, token totals and cost from ``usage_df`` (a total is unknown when any call's is)."""
    calls = usage_df(root, cache=False)
    rows = {}
    for ep, group in calls.groupby("episode_id", observed=True):
        row: dict[str, Any] = {"model_calls": len(group), "priced": bool(group["priced"].all())}
        for name in (*TOKEN_COLUMNS, "cost_usd"):
            values = group[name].to_numpy(dtype=float, na_value=math.nan)
            row[name] = math.nan if any(math.isnan(v) for v in values) else float(values.sum())
        if not row["priced"]:
            row["cost_usd"] = math.nan
        rows[ep] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def test_run_totals_are_the_sums_of_the_runs_calls(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    _varied(root)
    runs = runs_df(root, cache=False).set_index("episode_id")
    expected = _expected(root)
    assert set(expected.index) == set(runs.index) - {"ep_no_calls"}
    assert expected.loc["ep_tiered", "priced"] and not expected.loc["ep_mixed", "priced"]  # the cases are there
    for ep, want in expected.iterrows():
        got = runs.loc[ep]
        assert got["model_calls"] == want["model_calls"], ep
        assert bool(got["priced"]) == want["priced"], ep
        for name in (*TOKEN_COLUMNS, "cost_usd"):
            if math.isnan(want[name]):
                assert pd.isna(got[name]), (ep, name)
            else:
                assert float(got[name]) == pytest.approx(want[name], rel=1e-12), (ep, name)
    none = runs.loc["ep_no_calls"]
    assert none["model_calls"] == 0 and not none["priced"] and pd.isna(none["cost_usd"])
    assert runs_df(root, cache=False).attrs["price_tiers"] == usage_df(root, cache=False).attrs["price_tiers"] != {}


def test_a_small_root_builds_no_frame_of_its_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The calls are priced from arrays: a load builds its own frame and the per-run totals, and no frame of calls."""
    root = tmp_path / "runs"
    _varied(root)
    built: list[tuple[str, ...]] = []
    init = pd.DataFrame.__init__

    def counting(self: pd.DataFrame, data: Any = None, *args: Any, **kwargs: Any) -> None:
        init(self, data, *args, **kwargs)
        built.append(tuple(map(str, self.columns)))

    monkeypatch.setattr(pd.DataFrame, "__init__", counting)
    runs_df(root, cache=False)
    assert not [cols for cols in built if "model" in cols or "provider" in cols], built
