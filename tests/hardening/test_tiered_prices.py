"""Each call priced as genai-prices prices it: tiers by the call's input size, off-peak hours, per-call charges.

``cost_usd`` from ``price_frame`` / ``usage_df`` is compared with genai-prices' own
``calc_price`` for the same call (same model, provider, tokens and time) to 1e-9 relative, over
hypothesis-generated calls across tiered, flat, per-call, reasoning-priced and time-of-day models,
with token counts drawn around each tier's start. ``runs_df`` totals must equal the calls' sum.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.cost import Price, Pricer, PriceTable, price_frame
from noesis_nb.frames import clear_cache, runs_df, usage_df

genai_prices = pytest.importorskip("genai_prices")

MODELS = [  # (provider, model): tiered ones first
    ("anthropic", "claude-sonnet-4-5"),
    ("google", "gemini-2.5-pro"),
    ("openai", "gpt-5.4"),
    ("google", "gemini-1.5-pro"),
    ("openai", "gpt-4o"),
    ("anthropic", "claude-sonnet-4-20250514"),
    ("openai", "gpt-4o-mini"),
    ("perplexity", "sonar"),
    ("perplexity", "sonar-deep-research"),
    ("deepseek", "deepseek-chat"),
    ("deepseek", "deepseek-reasoner"),
]
TIERED = MODELS[:4]
STARTS = sorted(
    {
        t.start
        for p, m in TIERED
        for price in [genai_prices.calc_price(genai_prices.Usage(input_tokens=1), m, provider_id=p).model_price]
        for key in ("input_mtok", "output_mtok")
        for t in getattr(getattr(price, key), "tiers", [])
    }
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts and ends with an empty frames cache (nothing leaks between tests)."""
    clear_cache()
    yield
    clear_cache()


def theirs(call: dict) -> float:
    usage = genai_prices.Usage(
        input_tokens=call["input_tokens"],
        output_tokens=call["output_tokens"],
        cache_read_tokens=call["cached_input_tokens"],
        cache_write_tokens=call["cache_write_input_tokens"],
        output_reasoning_tokens=call["reasoning_tokens"],
    )
    got = genai_prices.calc_price(usage, call["model"], provider_id=call["provider"], genai_request_timestamp=call["timestamp"])
    return float(got.total_price)


@st.composite
def calls(draw: st.DrawFn) -> dict:
    provider, model = draw(st.sampled_from(MODELS))
    near = draw(st.sampled_from(STARTS))
    total = draw(st.one_of(st.integers(0, 2_000_000), st.integers(near - 3, near + 3), st.integers(near - 50_000, near + 50_000)))
    total = max(total, 0)
    cached = draw(st.one_of(st.none(), st.integers(0, total)))
    cache_write = draw(st.one_of(st.none(), st.integers(0, total - (cached or 0))))
    output = draw(st.integers(0, 300_000))
    reasoning = draw(st.one_of(st.none(), st.integers(0, output)))
    when = draw(st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2027, 12, 31), timezones=st.just(UTC)))
    return {
        "provider": provider,
        "model": model,
        "input_tokens": total,
        "cached_input_tokens": cached,
        "cache_write_input_tokens": cache_write,
        "output_tokens": output,
        "reasoning_tokens": reasoning,
        "timestamp": when,
    }


def frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for column in ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_tokens"):
        df[column] = df[column].astype("float64")
    df["timestamp"] = pd.to_datetime(df["timestamp"], utc=True)
    return df


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(calls(), min_size=1, max_size=40))
def test_every_call_costs_what_genai_prices_says(rows: list[dict]) -> None:
    priced = price_frame(frame(rows))
    for i, call in enumerate(rows):
        assert bool(priced["priced"][i]), call
        assert priced["cost_usd"][i] == pytest.approx(theirs(call), rel=1e-9, abs=1e-15), call
        assert str(priced["price_source"][i]).startswith("genai-prices:")


def test_tiers_switch_after_the_start_for_the_whole_call() -> None:
    """claude-sonnet-4-5 and gemini-2.5-pro: input size picks the rate of every part, cached and cache-write included."""
    for provider, model in TIERED[:2]:
        rows = [
            {
                "provider": provider,
                "model": model,
                "input_tokens": n,
                "cached_input_tokens": 1000,
                "cache_write_input_tokens": 10,
                "output_tokens": 2000,
                "reasoning_tokens": None,
                "timestamp": datetime(2026, 1, 5, tzinfo=UTC),
            }
            for n in (200_000, 200_001)
        ]
        got = price_frame(frame(rows))
        assert got["priced"].all() and not got["cost_usd"].isna().any()
        assert got["cost_usd"].tolist() == pytest.approx([theirs(r) for r in rows], rel=1e-12)
        per_token = got["cost_usd"] / pd.Series([200_000, 200_001])
        assert per_token[1] > per_token[0] * 1.3  # the tier's rate applies to all tokens, not only those past the start
        assert got.attrs["price_tiers"] == {f"{provider}/{model}": {"input_tokens > 200000": 1}}


def test_off_peak_prices_follow_the_call_time_not_its_day() -> None:
    day = datetime(2026, 3, 2, tzinfo=UTC)
    rows = [
        {
            "provider": "deepseek",
            "model": "deepseek-chat",
            "input_tokens": 100_000,
            "cached_input_tokens": None,
            "cache_write_input_tokens": None,
            "output_tokens": 10_000,
            "reasoning_tokens": None,
            "timestamp": day + timedelta(hours=h),
        }
        for h in (0, 1, 12, 17, 23)
    ]
    got = price_frame(frame(rows))
    assert got["cost_usd"].tolist() == pytest.approx([theirs(r) for r in rows], rel=1e-12)
    assert got["cost_usd"].nunique() == 2  # peak and off-peak within one day


def test_a_user_table_keeps_its_flat_rates() -> None:
    table = PriceTable({"claude-sonnet-4-5": {"input": 1, "cached_input": 0.5, "output": 2}})
    rows = [
        {
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "input_tokens": n,
            "cached_input_tokens": 100_000,
            "cache_write_input_tokens": None,
            "output_tokens": 1_000_000,
            "reasoning_tokens": 500_000,
            "timestamp": datetime(2026, 1, 5, tzinfo=UTC),
        }
        for n in (150_000, 900_000)
    ]
    got = price_frame(frame(rows), table)
    assert got["cost_usd"].tolist() == pytest.approx(
        [(50_000 * 1 + 100_000 * 0.5 + 1e6 * 2) / 1e6, (800_000 * 1 + 100_000 * 0.5 + 1e6 * 2) / 1e6], rel=1e-12
    )
    assert set(got["price_source"].astype(str)) == {"user"} and got.attrs["price_tiers"] == {}


def test_flat_lookup_for_running_sums_refuses_non_flat_prices() -> None:
    """``Pricer.lookup`` (the live cost meter sums tokens) returns only prices that sums cannot get wrong."""
    pricer = Pricer()
    assert pricer.lookup("gpt-4o", "openai") is not None
    assert pricer.lookup("claude-sonnet-4-5", "anthropic") is None and pricer.rates("claude-sonnet-4-5", "anthropic").tiers
    assert pricer.lookup("sonar", "perplexity") is None and pricer.rates("sonar", "perplexity").per_call > 0
    assert pricer.lookup("deepseek-chat", "deepseek") is None and pricer.varies_within_day("deepseek-chat", "deepseek")
    assert Price(1, 2).linear and not Price(1, 2, tiers=(("input", 10, 2.0),)).linear


def _tiered(task: str, ctx) -> str:
    for n in (150_000, 150_000, 250_000):  # the summed input (550k) is past the tier; only the last call is
        ctx.model_call(
            "claude-sonnet-4-5",
            provider="anthropic",
            input_tokens=n,
            output_tokens=1_000,
            cached_input_tokens=10_000,
            cache_write_input_tokens=1_000,
            reasoning_tokens=0,
        )
    ctx.model_call(
        "gemini-2.5-pro",
        provider="google",
        input_tokens=300_000,
        output_tokens=5_000,
        cached_input_tokens=0,
        cache_write_input_tokens=0,
        reasoning_tokens=100,
    )
    return "ok"


def test_runs_df_prices_tiered_runs_per_call(tmp_path) -> None:
    root = tmp_path / "runs"
    episode = noesis_nb.solve("tiers", using=_tiered, runs_dir=root)
    usage = usage_df(root)
    expected = sum(
        theirs(
            {
                **row,
                "timestamp": row["timestamp"].to_pydatetime(),
                **{
                    k: int(row[k])
                    for k in (
                        "input_tokens",
                        "output_tokens",
                        "cached_input_tokens",
                        "cache_write_input_tokens",
                        "reasoning_tokens",
                    )
                },
            }
        )
        for row in usage.to_dict("records")
    )
    assert usage["priced"].all() and usage["cost_usd"].sum() == pytest.approx(expected, rel=1e-9)
    run = runs_df(root).set_index("episode_id").loc[episode]
    assert bool(run["priced"]) and run["cost_usd"] == pytest.approx(expected, rel=1e-9)
    assert Decimal(str(run["cost_usd"])) > 0 and np.isfinite(run["cost_usd"])
