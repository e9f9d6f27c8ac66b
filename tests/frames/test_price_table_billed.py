"""A user price table (``prices=``) prices the counts billed apart (``store.vocab.BILLED_COUNTS``) as genai-prices does:
``cache_write_1h`` (USD per million tokens) and ``web_search`` (USD per search) are fields of its rows, in a dict or a
CSV; a table without them prices the hour-long writes at its ``cache_write`` and leaves the searches unpriced, both
said in ``attrs`` (never silently 0)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from noesis_nb.cost import PriceTable, price_frame
from noesis_nb.errors import InvalidOptionError

genai_prices = pytest.importorskip("genai_prices")

MODEL = "claude-sonnet-4-5"
RATES = {"input": 3, "output": 15, "cached_input": 0.3, "cache_write": 3.75}  # genai-prices' own for this model


def _calls() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "provider": "anthropic",
                "model": MODEL,
                "timestamp": pd.Timestamp.now(tz="UTC"),
                "input_tokens": 12100,
                "output_tokens": 50,
                "cached_input_tokens": 2000,
                "cache_write_input_tokens": 10000,
                "reasoning_tokens": np.nan,
                "cache_write_1h_input_tokens": 6000,
                "web_search_requests": 5,
            }
        ]
    )


def _genai() -> float:
    usage = genai_prices.Usage(
        input_tokens=12100,
        cache_read_tokens=2000,
        cache_write_tokens=10000,
        cache_write_1h_tokens=6000,
        output_tokens=50,
        web_searches=5,
    )
    return float(genai_prices.calc_price(usage, model_ref=MODEL, provider_id="anthropic").total_price)


def test_a_table_with_the_billed_rates_prices_as_genai_prices(tmp_path: Path) -> None:
    table = {MODEL: {**RATES, "cache_write_1h": 6, "web_search": 0.01}}
    got = price_frame(_calls(), prices=table)
    assert got["cost_usd"].tolist() == pytest.approx([_genai()], rel=1e-9)
    assert got.attrs["price_assumptions"] == {} and got.attrs["price_fallbacks"] == {}
    csv = tmp_path / "prices.csv"
    csv.write_text(f"model,input,cached_input,cache_write,output,cache_write_1h,web_search\n{MODEL},3,0.3,3.75,15,6,0.01\n")
    assert price_frame(_calls(), prices=str(csv))["cost_usd"].tolist() == pytest.approx([_genai()], rel=1e-9)
    # the rates are part of the table's version (a memo keyed by it prices again)
    assert PriceTable(table).version != PriceTable({MODEL: RATES}).version


def test_a_table_without_them_says_what_it_did_not_price() -> None:
    got = price_frame(_calls(), prices={MODEL: RATES})
    tokens_at_5m = (100 * 3 + 2000 * 0.3 + 10000 * 3.75 + 50 * 15) / 1e6
    assert got["cost_usd"].tolist() == pytest.approx([tokens_at_5m], rel=1e-9)
    assert got.attrs["price_assumptions"] == {f"anthropic/{MODEL}": {"web_search_requests": 1}}
    assert got.attrs["price_fallbacks"] == {f"anthropic/{MODEL}": ["cache_write_1h priced as cache_write"]}


def test_a_web_search_rate_that_is_no_price_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="USD per search"):
        PriceTable({MODEL: {**RATES, "web_search": "ten"}})
    with pytest.raises(InvalidOptionError, match="web_search"):  # a misspelt field is named with the right one
        PriceTable({MODEL: {**RATES, "web_searches": 0.01}})
