"""Pricing model calls from token counts, at analysis time (run-time costs are never trusted).

Rule (USD per million tokens; input/output are totals, the rest are parts of them)::

    cost = (input - cached - cache_write) * p_input + cached * p_cached
           + cache_write * p_cache_write + output * p_output

Reasoning tokens are inside ``output`` and priced once. A missing cached/cache-write price
falls back to the input price (recorded in ``attrs["price_fallbacks"]``). Unknown input or
output, or an unknown model, give ``cost_usd`` NaN and ``priced`` False, never 0. An unknown
cached/cache-write count is priced as 0 (those tokens charged as uncached input) and the row
stays priced; where that part has its own price, so the assumption changes the cost, the rows
are counted in ``attrs["price_assumptions"]`` (``{"provider/model": {"cached_input_tokens": n}}``).
Prices come from a user ``PriceTable`` (dict, YAML or CSV) first, then genai-prices' bundled
data (offline).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Price", "PriceTable", "Pricer", "price_frame", "reprice", "cost_of", "GENAI_SOURCE"]

GENAI_SOURCE = "genai-prices"
_FIELDS = ("input", "cached_input", "cache_write", "output")


@dataclass(frozen=True)
class Price:
    """USD per million tokens. ``cached_input``/``cache_write`` None means "charged as input"."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    source: str = "user"

    @property
    def fallbacks(self) -> tuple[str, ...]:
        return tuple(name for name in ("cached_input", "cache_write") if getattr(self, name) is None)


def cost_of(price: Price, input_tokens: float, output_tokens: float, cached: float = 0.0, cache_write: float = 0.0) -> float:
    """One call's cost under ``price`` (the module rule); NaN when input or output is unknown."""
    got = _vector_cost(price, *(np.asarray([v], dtype=float) for v in (input_tokens, output_tokens, cached, cache_write)))
    return float(got[0])


def _vector_cost(price: Price, inp: np.ndarray, out: np.ndarray, cached: np.ndarray, cw: np.ndarray) -> np.ndarray:
    cached = np.nan_to_num(cached, nan=0.0)
    cw = np.nan_to_num(cw, nan=0.0)
    p_cached = price.input if price.cached_input is None else price.cached_input
    p_cw = price.input if price.cache_write is None else price.cache_write
    uncached = np.maximum(inp - cached - cw, 0.0)
    return (uncached * price.input + cached * p_cached + cw * p_cw + out * price.output) / 1e6


class PriceTable:
    """User prices by model, USD per million tokens.

    ``PriceTable({"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10}})``, or
    ``PriceTable.load("prices.yaml" | "prices.csv")`` (CSV columns: ``model, input,
    cached_input, cache_write, output`` and optionally ``provider``). A key is the whole model
    name, slashes included (``"openrouter/openai/gpt-4o-mini"``); a price for one provider only
    says so in a ``provider`` field (or CSV column). A call matches its (provider, model), then
    its model for any provider, then ``"<provider>/<model>"`` as one key.
    """

    def __init__(self, prices: Mapping[str, Mapping[str, Any]] | Iterable[tuple[str, Mapping[str, Any]]], *, source: str = "user"):
        self.source = source
        self._prices: dict[tuple[str | None, str], Price] = {}
        for key, row in (prices.items() if isinstance(prices, Mapping) else prices):
            if not isinstance(row, Mapping):
                raise ValueError(f"price for {key!r} must be a mapping like {{'input': 2.5, 'output': 10}}, got {row!r}")
            model = str(key)
            provider = row.get("provider") or None
            missing = [name for name in ("input", "output") if row.get(name) in (None, "")]
            if missing:
                raise ValueError(f"price for {key!r} lacks {missing}; give USD per million tokens for input and output")
            self._prices[(provider.lower() if provider else None, model.lower())] = Price(
                input=float(row["input"]), output=float(row["output"]),
                cached_input=_opt(row.get("cached_input")), cache_write=_opt(row.get("cache_write")), source=source)
        canonical = json.dumps({f"{p or ''}/{m}": [getattr(v, f) for f in _FIELDS] for (p, m), v in sorted(self._prices.items(), key=str)})
        self.version = hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @classmethod
    def load(cls, spec: "PriceTable | Mapping[str, Any] | str | os.PathLike[str]") -> "PriceTable":
        """A table from a dict, a YAML/JSON file, or a CSV file."""
        if isinstance(spec, PriceTable):
            return spec
        if isinstance(spec, Mapping):
            return cls(spec)
        path = Path(spec)
        if not path.is_file():
            raise FileNotFoundError(f"price table {str(path)!r} does not exist; pass a dict, a .yaml or a .csv file")
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".csv":
            rows = list(csv.DictReader(io.StringIO(text)))
            if not rows or "model" not in rows[0]:
                raise ValueError(f"{path}: a price CSV needs a header with columns model,input,cached_input,cache_write,output")
            table = [(r["model"], r) for r in rows]  # a model may have one row per provider
        else:
            import yaml

            table = yaml.safe_load(text) or {}
            if not isinstance(table, Mapping):
                raise ValueError(f"{path}: expected a mapping of model -> prices, got {type(table).__name__}")
            table = table.get("models", table)
        return cls(table, source=f"user:{path.name}")

    def lookup(self, model: str, provider: str | None = None) -> Price | None:
        """The price for (provider, model), else for the model under any provider, else for the key ``provider/model``."""
        model = model.lower()
        provider = provider.lower() if provider else None
        hit = (self._prices.get((provider, model)) if provider else None) or self._prices.get((None, model))
        if hit is None and provider:
            hit = self._prices.get((None, f"{provider}/{model}"))
        return hit

    def __len__(self) -> int:
        return len(self._prices)


def _opt(value: Any) -> float | None:
    return None if value in (None, "") else float(value)


@dataclass
class Pricer:
    """User table first, then genai-prices. ``source``/``version`` describe what priced a frame."""

    table: PriceTable | None = None
    use_genai: bool = True
    _genai: dict[tuple[str | None, str, str], Price | None] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, prices: Any = None) -> "Pricer":
        if isinstance(prices, Pricer):
            return prices
        return cls(table=None if prices is None else PriceTable.load(prices))

    @property
    def source(self) -> str:
        parts = [self.table.source] if self.table is not None else []
        return " > ".join(parts + ([GENAI_SOURCE] if self.use_genai else []))

    @property
    def version(self) -> str:
        parts = [f"{self.table.source}#{self.table.version}"] if self.table is not None else []
        return " > ".join(parts + ([f"{GENAI_SOURCE} {_genai_version()}"] if self.use_genai else []))

    def lookup(self, model: str, provider: str | None, when: datetime | None = None) -> Price | None:
        if self.table is not None:
            hit = self.table.lookup(model, provider)
            if hit is not None:
                return hit
        if not self.use_genai:
            return None
        day = (when or datetime.now(timezone.utc)).strftime("%Y-%m-%d")
        key = (provider, model, day)
        if key not in self._genai:
            self._genai[key] = _genai_price(model, provider, when)
        return self._genai[key]


def _genai_version() -> str:
    try:
        import genai_prices

        return str(genai_prices.__version__)
    except ImportError:  # pragma: no cover - a dependency
        return "missing"


def _genai_price(model: str, provider: str | None, when: datetime | None) -> Price | None:
    """Per-token rates from genai-prices' bundled snapshot (no network); None when unknown or tiered."""
    try:
        from genai_prices import data_snapshot
    except ImportError:  # pragma: no cover
        return None
    snapshot = data_snapshot.get_snapshot()
    try:
        found_provider, info = snapshot.find_provider_model(model, None, provider, None)
    except LookupError:
        if provider is None:
            return None
        try:
            found_provider, info = snapshot.find_provider_model(model, None, None, None)
        except LookupError:
            return None
    prices = info.get_prices(when or datetime.now(timezone.utc))
    rates = {}
    for ours, theirs in (("input", "input_mtok"), ("output", "output_mtok"), ("cached_input", "cache_read_mtok"), ("cache_write", "cache_write_mtok")):
        value = getattr(prices, theirs, None)
        if value is not None and not hasattr(value, "__float__"):
            return None  # tiered prices depend on each call's size; not a flat rate
        rates[ours] = None if value is None else float(value)
    if rates["input"] is None or rates["output"] is None:
        return None
    return Price(source=f"{GENAI_SOURCE}:{found_provider.id}/{info.id}", **rates)


def price_frame(df: pd.DataFrame, prices: Any = None) -> pd.DataFrame:
    """Add ``cost_usd``, ``priced``, ``price_source`` to a frame of model calls (``usage_df`` columns).

    Rows are grouped by (provider, model, day) so each price is looked up once and applied to
    arrays. ``df.attrs`` gets ``price_source``, ``price_version``, ``price_fallbacks`` and
    ``price_assumptions`` (rows priced with an unknown cached/cache-write count taken as 0).
    """
    pricer = Pricer.from_spec(prices)
    n = len(df)
    cost = np.full(n, np.nan)
    priced = np.zeros(n, dtype=bool)
    source = np.empty(n, dtype=object)
    fallbacks: dict[str, list[str]] = {}
    assumptions: dict[str, dict[str, int]] = {}
    if n:
        models = df["model"].astype(object).to_numpy()
        providers = df["provider"].astype(object).to_numpy() if "provider" in df else np.full(n, None, dtype=object)
        ts = df["timestamp"] if "timestamp" in df else pd.Series(pd.NaT, index=df.index, dtype="datetime64[us, UTC]")
        day_codes, day_values = pd.factorize(ts.dt.floor("D"))
        day_names = [d.strftime("%Y-%m-%d") for d in day_values]
        days = np.array(day_names + [""], dtype=object)[day_codes]  # code -1 (no timestamp) → ""
        tokens = {c: df[c].to_numpy(dtype=float, na_value=np.nan) for c in
                  ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens")}
        keys = pd.MultiIndex.from_arrays([pd.Series(providers).fillna("").to_numpy(), pd.Series(models).fillna("").to_numpy(),
                                          pd.Series(days).fillna("").to_numpy()])
        codes, uniques = pd.factorize(keys)
        for code, (provider, model, day) in enumerate(uniques):
            rows = np.flatnonzero(codes == code)
            when = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=timezone.utc) if day else None
            price = pricer.lookup(model, provider or None, when) if model else None
            if price is None:
                continue
            got = _vector_cost(price, *(tokens[c][rows] for c in ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens")))
            ok = ~np.isnan(got)
            cost[rows] = got
            priced[rows] = ok
            source[rows[ok]] = price.source
            used = [f for f, c in (("cached_input", "cached_input_tokens"), ("cache_write", "cache_write_input_tokens"))
                    if f in price.fallbacks and np.nansum(tokens[c][rows]) > 0]
            name = f"{provider + '/' if provider else ''}{model}"
            if used:
                fallbacks[name] = [f"{f} priced as input" for f in used]
            for part, column in (("cached_input", "cached_input_tokens"), ("cache_write", "cache_write_input_tokens")):
                own = getattr(price, part)
                assumed = int((ok & np.isnan(tokens[column][rows])).sum()) if own is not None and own != price.input else 0
                if assumed:  # unknown count priced as 0: its tokens were charged as uncached input
                    counts = assumptions.setdefault(name, {})
                    counts[column] = counts.get(column, 0) + assumed
    out = df.copy(deep=False)
    out["cost_usd"] = cost
    out["priced"] = priced
    out["price_source"] = pd.Categorical(source)
    out.attrs.update(df.attrs)
    out.attrs.update(price_source=pricer.source, price_version=pricer.version, price_fallbacks=fallbacks,
                     price_assumptions=assumptions)
    return out


def reprice(df: pd.DataFrame, prices: Any) -> pd.DataFrame:
    """Price a ``usage_df`` frame again with another table (e.g. negotiated rates)."""
    return price_frame(df.drop(columns=[c for c in ("cost_usd", "priced", "price_source") if c in df]), prices)
