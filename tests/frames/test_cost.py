"""Pricing rule against hand-computed numbers: parts-of-totals, cache fallbacks, reasoning once, NaN for unknown."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from noesis_nb.cost import Price, Pricer, PriceTable, cost_of, price_frame


def calls(**cols):
    n = len(next(iter(cols.values())))
    base = {
        "provider": [None] * n,
        "timestamp": pd.to_datetime(["2025-06-01T00:00:00Z"] * n),
        "cached_input_tokens": [np.nan] * n,
        "cache_write_input_tokens": [np.nan] * n,
        "reasoning_tokens": [np.nan] * n,
    }
    return pd.DataFrame(base | cols)


TABLE = {
    "m-full": {"input": 3, "cached_input": 0.3, "cache_write": 3.75, "output": 15},
    "m-bare": {"input": 2, "output": 8},
    "acme/m-prov": {"input": 1, "output": 1},
}


def test_parts_of_totals_and_fallbacks():
    df = price_frame(
        calls(
            model=["m-full", "m-bare", "m-full", "m-full"],
            input_tokens=[10_000, 10_000, 10_000, np.nan],
            output_tokens=[2_000, 2_000, 2_000, 5],
            cached_input_tokens=[4_000, 4_000, np.nan, np.nan],
            cache_write_input_tokens=[1_000, 1_000, np.nan, np.nan],
            reasoning_tokens=[1_500, 0, np.nan, np.nan],
        ),
        TABLE,
    )
    full = (5_000 * 3 + 4_000 * 0.3 + 1_000 * 3.75 + 2_000 * 15) / 1e6  # reasoning is inside the 2,000 output tokens
    bare = (10_000 * 2 + 2_000 * 8) / 1e6  # no cache prices: cached and cache-write tokens cost the input price
    unknown_parts = (10_000 * 3 + 2_000 * 15) / 1e6  # unknown cached/cache-write count as 0
    assert df["cost_usd"].tolist()[:3] == pytest.approx([full, bare, unknown_parts], rel=1e-12)
    assert math.isnan(df["cost_usd"][3]) and df["priced"].tolist() == [True, True, True, False]
    assert df.attrs["price_fallbacks"] == {"m-bare": ["cached_input priced as input", "cache_write priced as input"]}
    assert df.attrs["price_source"] == "user > genai-prices"


def test_unknown_model_is_nan_never_zero():
    df = price_frame(calls(model=["no-such-model-anywhere"], input_tokens=[100], output_tokens=[10]), TABLE)
    assert math.isnan(df["cost_usd"][0]) and not df["priced"][0] and pd.isna(df["price_source"][0])


def test_provider_scoped_price():
    df = price_frame(
        calls(model=["m-prov", "m-prov"], provider=["acme", "other"], input_tokens=[1e6, 1e6], output_tokens=[0, 0]),
        Pricer(PriceTable(TABLE), use_genai=False),
    )
    assert df["cost_usd"][0] == 1.0 and math.isnan(df["cost_usd"][1])


def test_genai_prices_default_offline():
    df = price_frame(
        calls(
            model=["gpt-4o", "claude-sonnet-4-20250514"],
            provider=["openai", "anthropic"],
            input_tokens=[1_000, 1_000],
            output_tokens=[100, 100],
            cached_input_tokens=[400, 400],
            cache_write_input_tokens=[np.nan, 100],
        )
    )
    assert df["cost_usd"].tolist() == pytest.approx(
        [(600 * 2.5 + 400 * 1.25 + 100 * 10) / 1e6, (500 * 3 + 400 * 0.3 + 100 * 3.75 + 100 * 15) / 1e6], rel=1e-12
    )
    # the same numbers as genai-prices' own calc_price (its input_tokens also include cache reads and writes)
    from genai_prices import Usage, calc_price

    ours = float(df["cost_usd"][1])
    theirs = float(
        calc_price(
            Usage(input_tokens=1_000, cache_read_tokens=400, cache_write_tokens=100, output_tokens=100),
            "claude-sonnet-4-20250514",
            provider_id="anthropic",
        ).total_price
    )
    assert ours == pytest.approx(theirs, rel=1e-12)


def test_price_tables_from_yaml_and_csv(tmp_path):
    (tmp_path / "p.yaml").write_text("models:\n  m1: {input: 1.5, cached_input: 0.15, output: 6}\n")
    (tmp_path / "p.csv").write_text("provider,model,input,cached_input,cache_write,output\nacme,m1,1.5,0.15,,6\n")
    for path in ("p.yaml", "p.csv"):
        table = PriceTable.load(tmp_path / path)
        price = table.lookup("M1", "acme")
        assert (price.input, price.cached_input, price.cache_write, price.output) == (1.5, 0.15, None, 6.0)
        assert cost_of(price, 1_000_000, 1_000_000, cached=500_000) == pytest.approx(0.75 + 0.075 + 6.0)
    with pytest.raises(ValueError, match="lacks"):
        PriceTable({"m": {"input": 1}})
    with pytest.raises(FileNotFoundError, match="price table"):
        PriceTable.load(tmp_path / "missing.yaml")


def test_malformed_price_tables_are_one_error_naming_the_model_and_the_field(tmp_path):
    for table, fragment in [
        ({"m": {"input": -1, "output": 2}}, r"price for 'm': input=-1 is not a price; .*number ≥ 0"),  # was a negative cost
        ({"m": {"input": 1, "output": "$2"}}, r"price for 'm': output='\$2' is not a price"),  # was float()'s message
        ({"m": {"input": float("nan"), "output": 2}}, r"input=nan is not a price"),
        ({"m": {"input": True, "output": 2}}, r"input=True is not a price"),
        ({"m": {"input": 1, "output": 2, "cached": 0.1}}, r"unknown field\(s\) \['cached'\] \(did you mean 'cached_input'\?\)"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            PriceTable(table)
    (tmp_path / "p.csv").write_text("model,input,cache_read,output\nm1,1,0.1,2\n")
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['cache_read'\]"):  # its cached tokens were charged as input
        PriceTable.load(tmp_path / "p.csv")
    with pytest.raises(TypeError, match=r"prices=\[\{'model': 'm'.*pass a dict of model -> "):
        Pricer.from_spec([{"model": "m", "input": 1, "output": 2}])
    assert PriceTable({"m": {"input": "1.5", "output": 0, "cached_input": ""}}).lookup("m").input == 1.5  # CSV-like text
    (tmp_path / "notes.csv").write_text("model,input,output,notes,tier\nm1,1,2,negotiated in May,gold\n")
    assert PriceTable.load(tmp_path / "notes.csv").lookup("m1").output == 2  # a column beside the prices is no price
    for name in ("output_price", "cached_imput", "input_usd"):  # but one that reads like a price is never ignored
        with pytest.raises(ValueError, match=rf"unknown field\(s\) \['{name}'\]"):
            PriceTable({"m": {"input": 1, "output": 2, name: 0.5}})


def test_table_version_changes_with_prices():
    assert PriceTable({"m": {"input": 1, "output": 2}}).version != PriceTable({"m": {"input": 1, "output": 3}}).version
    assert Price(1, 2).fallbacks == ("cached_input", "cache_write")


def test_model_names_with_slashes_are_whole_keys():
    table = PriceTable(
        {"openrouter/openai/gpt-4o-mini": {"input": 1, "output": 2}, "m-prov": {"provider": "acme", "input": 5, "output": 5}}
    )
    assert table.lookup("openrouter/openai/gpt-4o-mini").input == 1
    assert table.lookup("openai/gpt-4o-mini", "openrouter").input == 1  # the provider joined to the model is the key too
    assert table.lookup("m-prov", "acme").input == 5 and table.lookup("m-prov", "other") is None
    df = price_frame(
        calls(model=["openrouter/openai/gpt-4o-mini"], input_tokens=[1e6], output_tokens=[1e6]), Pricer(table, use_genai=False)
    )
    assert df["cost_usd"][0] == 3.0 and df["priced"][0]


def test_csv_prices_one_model_under_two_providers(tmp_path):
    (tmp_path / "p.csv").write_text("provider,model,input,output\nacme,m1,1,1\nbeta,m1,2,2\n,vendor/m2,3,3\n")
    table = PriceTable.load(tmp_path / "p.csv")
    assert (table.lookup("m1", "acme").input, table.lookup("m1", "beta").input) == (1.0, 2.0)
    assert table.lookup("vendor/m2").input == 3.0 and table.lookup("m1") is None


def test_unknown_cache_counts_are_recorded_as_assumptions():
    df = price_frame(
        calls(
            model=["m-full", "m-full", "m-full", "m-bare", "m-full"],
            input_tokens=[100, 100, 100, 100, np.nan],
            output_tokens=[1, 1, 1, 1, 1],
            cached_input_tokens=[np.nan, 10, np.nan, np.nan, np.nan],
            cache_write_input_tokens=[0, np.nan, np.nan, np.nan, np.nan],
        ),
        TABLE,
    )
    # m-full has its own cached and cache-write prices: counting unknown as 0 changes its cost; m-bare's does not;
    # the last row is unpriced (unknown input), so nothing was assumed for it
    assert df.attrs["price_assumptions"] == {"m-full": {"cached_input_tokens": 2, "cache_write_input_tokens": 2}}
    assert df["priced"].tolist() == [True, True, True, True, False]
