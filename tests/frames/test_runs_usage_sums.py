"""``runs_df``'s model-call columns: each run's totals are its ``usage_df`` rows' sums, priced without a frame of calls.

``run_usage`` prices a load's calls from arrays (``cost.price_arrays``); building a usage frame of
the calls and a priced copy of it, only to sum them per run, was a fixed cost of every load (about a
third of a 10-run root's first call). The reference here is ``usage_df``, which reads the runs'
events on its own; it prices them through ``price_frame`` and the same ``price_arrays``, so this checks the
per-run sums, counts and flags, not the prices themselves (``test_cost`` does).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.frames import clear_cache, runs_df, usage_df
from noesis_nb.frames.columns import TOKEN_COLUMNS
from noesis_nb.frames.fs import RACY_NS
from noesis_nb.frames.runusage import call_columns
from noesis_nb.frames.usage import call_counts

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
    # no call: 0 tokens at $0.00, priced (the sums of its usage_df rows: none)
    assert none["model_calls"] == 0 and none["priced"] and none["cost_usd"] == 0.0 and none["input_tokens"] == 0
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


_COUNT_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=2**53 + 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["12", "", "1e3"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(TOKEN_COLUMNS), _COUNT_VALUES), max_size=6))
def test_each_runs_call_counts_follow_the_usage_rule(payloads: list[dict[str, Any]]) -> None:
    """A run's calls are read into columns one call at a time (kept with the cached run): the counts,
    unknowns and conflicts are ``usage.call_counts``' over the same calls, value for value."""
    record: Any = {"calls": [("2025-03-01T10:00:00+00:00", p) for p in payloads]}
    got = call_columns(record)
    want = call_counts(payloads)
    for name, values in zip(TOKEN_COLUMNS, got.tokens):
        assert len(values) == len(payloads)
        for mine, theirs in zip(values, want[name].tolist()):
            assert (math.isnan(mine) and math.isnan(theirs)) or mine == theirs, (name, mine, theirs)


def test_a_cached_run_whose_calls_are_replaced_is_priced_by_its_new_calls(tmp_path: Path) -> None:
    """A warm load keeps each run's calls read into columns; when another price table makes the summary's
    per-model sums give way to the run's calls, the new calls are the ones priced (as a cold load does)."""
    import noesis_nb

    root = tmp_path / "runs"
    ep = noesis_nb.solve("two calls", using=_two_gpt_calls, runs_dir=root)
    time.sleep(RACY_NS / 1e9 * 3)  # a run changed within the file system's tick is read again, not kept
    flat = {"openai/gpt-4o": {"input": 2.5, "output": 10}}  # no cached rate: the per-model sums price as the calls
    first = runs_df(root, prices=flat).set_index("episode_id")
    assert pd.isna(first.loc[ep, "cached_input_tokens"]) and first.loc[ep, "priced"]
    warm = runs_df(root).set_index("episode_id")  # genai-prices has a cached rate: the calls are needed
    clear_cache()
    cold = runs_df(root).set_index("episode_id")
    pd.testing.assert_frame_equal(warm, cold)
    assert warm.loc[ep, "cost_usd"] != pytest.approx(first.loc[ep, "cost_usd"])  # the two tables do price it apart


def _two_gpt_calls(task: str, ctx: Any) -> str:
    """Two calls: one with its cache split, one without (the summary's per-model sum of cached tokens is null)."""
    split = {"cached_input_tokens": 90_000, "cache_write_input_tokens": 0}
    ctx.model_call("gpt-4o", provider="openai", input_tokens=100_000, output_tokens=100, **split)
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1_000, output_tokens=100)
    return "done"


def _claimed_sums(ep: str) -> dict[str, Any]:
    """A summary whose ``usage.by_model`` (the extension runs_df may price from) says other totals than its events."""
    by_model = [
        {
            "provider": "openai",
            "model": "gpt-4o",
            "model_calls": 7,
            "input_tokens": 999_999,
            "cached_input_tokens": 0,
            "cache_write_input_tokens": 0,
            "output_tokens": 1,
            "reasoning_tokens": 0,
        }
    ]
    return hand_summary(ep, task="edited", status="ok") | {"x-noesis_nb": {"usage": {"model_calls": 7, "by_model": by_model}}}


def _engine_agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100, cached_input_tokens=400)
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=200, output_tokens=20)
    return "done"


def _edit_sums(run: Path) -> None:
    """The sealed run's summary with its gpt-4o input total changed by hand (the seal no longer vouches for it)."""
    path = run / "summary.json"
    doc = json.loads(path.read_text())
    for group in doc["x-noesis_nb"]["usage"]["by_model"]:
        group["input_tokens"] = 5 * (group["input_tokens"] or 1)
    path.write_text(json.dumps(doc))


def _edit_no_calls(run: Path) -> None:
    """The sealed run's summary edited to say it made no model call (its log holds two)."""
    path = run / "summary.json"
    doc = json.loads(path.read_text())
    doc["x-noesis_nb"]["usage"].update(model_calls=0, input_tokens=0, output_tokens=0, by_model=[])
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("cache", [False, True])
def test_run_totals_follow_the_events_when_a_summary_says_other_sums(tmp_path: Path, cache: bool) -> None:
    """The log is the record of a run's calls: a summary's per-model sums that say otherwise (a hand-written or
    hand-edited run), or its claim of no call at all, do not make ``runs_df`` and ``usage_df`` disagree; a run sealed
    here, unedited, still agrees."""
    import noesis_nb

    root = tmp_path / "runs"
    t = DAY + "10.000000+00:00"
    calls = [("gpt-4o", "openai", t, {"input_tokens": 1000, "output_tokens": 100, "cached_input_tokens": 0})]
    _run(root, "ep_hand", calls, summary=_claimed_sums("ep_hand"))
    no_calls = _claimed_sums("ep_none")
    no_calls["x-noesis_nb"]["usage"] = {"model_calls": 0, "by_model": []}
    _run(root, "ep_none", calls, summary=no_calls)
    sealed = [noesis_nb.solve(task, using=_engine_agent, runs_dir=root) for task in ("a", "b", "c")]
    _edit_sums(root / sealed[1])
    _edit_no_calls(root / sealed[2])
    time.sleep(RACY_NS / 1e9 * 3)
    for _ in range(2 if cache else 1):  # cold, then warm
        runs = runs_df(root, cache=cache).set_index("episode_id")
        expected = _expected(root)
        assert set(expected.index) == set(runs.index) == {"ep_hand", "ep_none", *sealed}
        for ep, want in expected.iterrows():
            got = runs.loc[ep]
            assert got["model_calls"] == want["model_calls"], ep
            for name in (*TOKEN_COLUMNS, "cost_usd"):
                if math.isnan(want[name]):
                    assert pd.isna(got[name]), (ep, name)
                else:
                    assert float(got[name]) == pytest.approx(want[name], rel=1e-12), (ep, name)
    clear_cache()
