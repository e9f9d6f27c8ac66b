"""Pricing model calls from token counts, at analysis time (run-time costs are never trusted).

Rule (USD per million tokens; input/output are totals, the rest are parts of them)::

    cost = (input - cached - cache_write) * p_input + cached * p_cached
           + (cache_write - cache_write_1h) * p_cache_write + cache_write_1h * p_cache_write_1h
           + (output - reasoning) * p_output + reasoning * p_reasoning
           + p_call + web_search_requests * p_web_search

``cache_write_1h`` (the part of the cache writes kept one hour) and ``web_search_requests`` are a call's
``store.vocab.BILLED_COUNTS``, read from its event when reported (none: priced as 0, genai-prices' rule).
Reasoning tokens are inside ``output`` and priced once (at the output price unless the model
prices them apart). A missing cached/cache-write price falls back to the input price (recorded
in ``attrs["price_fallbacks"]``). Tiered prices (genai-prices: ``claude-sonnet-4-5``,
``gemini-2.5-pro``, …) apply per call: when a call's total input tokens exceed a tier's start,
that tier's rate prices all of that call's tokens of the priced kind (rows per tier are counted
in ``attrs["price_tiers"]``). Prices that change with the time of day (off-peak rates) or from a
date on are chosen per call from its timestamp. Unknown input or output, or an unknown model,
give ``cost_usd`` NaN and ``priced`` False, never 0, and ``unpriced_reason`` says which (``UNPRICED_REASONS``: a
model with no known price is not a priced model whose output count is unknown); an unknown output costs nothing only
for a model that bills no output (an embedding model, priced for its input alone). An unknown cached/cache-write count is
priced as 0 (those tokens charged as uncached input) and the row stays priced; where that part
has its own price, so the assumption changes the cost, the rows are counted in
``attrs["price_assumptions"]`` (``{"provider/model": {"cached_input_tokens": n}}``).
Prices come from a user ``PriceTable`` (dict, YAML or CSV; flat rates) first, then
genai-prices' bundled data (offline).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _genai_rates as genai
from ._genai_rates import GENAI_SOURCE
from .errors import InvalidOptionError, NoesisNbError
from .secrets.display import shown
from .secrets.quoted import keys_hidden, quoted
from .store.facts import call_row, token_value, undated
from .store.instants import utc_micros
from .store.runfiles import UnreadableRunFile, read_file
from .store.vocab import BILLED_COUNTS, TOKEN_FIELDS

__all__ = [
    "Price",
    "PriceTable",
    "Pricer",
    "price_frame",
    "UNPRICED_REASONS",
    "unpriced_reasons",
    "reprice",
    "cost_of",
    "price_calls",
    "call_costs",
    "price_arrays",
    "price_attrs",
    "stamps_or_now",
    "GENAI_SOURCE",
]

_FIELDS = ("input", "cached_input", "cache_write", "output")
#: a user table's rates the model sets apart: ``reasoning`` USD per million reasoning tokens (none: the ``output``
#: rate), ``per_call`` USD per call whatever its size (none: 0)
_OWN_FIELDS = ("reasoning", "per_call")
#: a user table's rates of the counts billed apart (``store.vocab.BILLED_COUNTS``): ``cache_write_1h`` USD per million
#: tokens (none: the table's ``cache_write``), ``web_search`` USD per search (none: unknown, noted, never priced as 0)
_BILLED_FIELDS = ("cache_write_1h", "web_search")


@dataclass(frozen=True)
class Price:
    """USD per million tokens. ``cached_input``/``cache_write`` None means "charged as input".

    ``reasoning``: the model's own rate for reasoning tokens (None: they cost the output rate);
    ``per_call``: USD charged per call whatever its size; ``cache_write_1h``: the rate of cache writes kept one
    hour (None: the ``cache_write`` rate); ``web_search``: USD per server-side web search (None, a user table that
    gives none: unknown, the searches priced as none and counted in ``price_assumptions``); ``tiers``: ``(field, start, rate)``
    sorted by start: a call whose input tokens exceed ``start`` pays ``rate`` for all of that
    field's tokens (the highest such tier wins). A user table's prices are flat (no tiers).
    """

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    source: str = "user"
    reasoning: float | None = None
    per_call: float = 0.0
    tiers: tuple[tuple[str, int, float], ...] = ()
    cache_write_1h: float | None = None
    web_search: float | None = 0.0

    @property
    def fallbacks(self) -> tuple[str, ...]:
        return tuple(name for name in ("cached_input", "cache_write") if getattr(self, name) is None)

    @property
    def bills_output(self) -> bool:
        """Whether output tokens cost anything (an embedding model's price has no output rate: they cost 0)."""
        return bool(self.output or self.reasoning or any(name in ("output", "reasoning") for name, _, _ in self.tiers))

    @property
    def linear(self) -> bool:
        """Whether cost is proportional to tokens, so summed calls price as the calls would."""
        return not self.tiers and not self.per_call

    def own_rate(self, part: str) -> bool:
        """Whether ``part`` (cached_input, cache_write, reasoning) has a price of its own, at any tier, unlike its total's."""
        total = "output" if part == "reasoning" else "input"
        return getattr(self, part) is not None and self._ladder(part) != self._ladder(total)

    def _ladder(self, field: str) -> tuple[Any, ...]:
        return (getattr(self, field), *((start, rate) for name, start, rate in self.tiers if name == field))


def cost_of(
    price: Price, input_tokens: float, output_tokens: float, cached: float = 0.0, cache_write: float = 0.0, reasoning: float = 0.0
) -> float:
    """One call's cost under ``price`` (the module rule); NaN when input or output is unknown."""
    got = _vector_cost(
        price, *(np.asarray([v], dtype=float) for v in (input_tokens, output_tokens, cached, cache_write, reasoning))
    )
    return float(got[0])


def price_calls(calls: Sequence[Mapping[str, Any]], prices: Any = None) -> list[float | None]:
    """Each model call's cost (``model``, ``provider`` and token counts, as events hold them); None when unknown."""
    return [None if cost != cost else float(cost) for cost in call_costs(Pricer.from_spec(prices), calls)]


def call_costs(pricer: Pricer, calls: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Each model call's cost (NaN: unknown), priced as ``usage_df`` prices it: the same ``_priced_groups`` over
    the calls' ``model``, ``provider``, token counts (``call_row``'s rule) and ``timestamp`` (ISO text; none: now).

    Plain Python around the arrays (no frame): the live views price each call as it arrives with it."""
    n = len(calls)
    cost = np.full(n, np.nan)
    groups: dict[tuple[str | None, str], list[int]] = {}
    rows = []
    for i, call in enumerate(calls):
        row = call_row(call)
        rows.append(row)
        if row["model"]:
            groups.setdefault((row["provider"] or None, row["model"]), []).append(i)
    now = genai.micros(datetime.now(UTC))
    for (provider, model), where in groups.items():
        stamps = np.array([now if (us := utc_micros(calls[i].get("timestamp"))) is None else us for i in where], dtype=np.int64)
        tokens = {c: np.array([np.nan if (v := rows[i][c]) is None else v for i in where], dtype=float) for c in _TOKENS}
        for c in BILLED_COUNTS:  # (``call_row`` keeps the tokens alone)
            tokens[c] = np.array([np.nan if (v := token_value(calls[i].get(c))) is None else v for i in where], dtype=float)
        at = np.array(where, dtype=np.int64)
        for rows_at, _price, got, _part in _priced_groups(pricer, model, provider, stamps, tokens):
            cost[at[rows_at]] = got
    return cost


def _priced_groups(
    pricer: Pricer, model: str, provider: str | None, stamps: np.ndarray, tokens: dict[str, np.ndarray]
) -> Iterator[tuple[np.ndarray, Price, np.ndarray, dict[str, np.ndarray]]]:
    """The pricing rule of every figure shown: calls of one (provider, model) at ``stamps``, by the price in effect
    for each (``Pricer.rows``: a user table, else genai-prices at the call's time) and the module's rule (tiers per
    call). Yields (positions, price, cost with NaN unknown, the token counts at those positions)."""
    for at, price in pricer.rows(model, provider, stamps):
        part = {c: tokens[c][at] for c in _PRICED if c in tokens}
        yield at, price, _vector_cost(price, *(part[c] for c in _TOKENS), *(part.get(c) for c in BILLED_COUNTS)), part


def _rate(price: Price, field: str, base: float, inp: np.ndarray) -> np.ndarray | float:
    """``field``'s rate per call: its base, replaced by each tier whose start the call's input tokens exceed."""
    rate: np.ndarray | float = base
    for name, start, value in price.tiers:
        if name == field:
            rate = np.where(inp > start, value, rate)
    return rate


def _known_or_0(counts: np.ndarray) -> np.ndarray:
    """Counts with each unknown (NaN) taken as 0 (``np.nan_to_num`` costs ~5x this on the few calls a view prices)."""
    return np.where(np.isnan(counts), 0.0, counts)


def _vector_cost(
    price: Price,
    inp: np.ndarray,
    out: np.ndarray,
    cached: np.ndarray,
    cw: np.ndarray,
    reasoning: np.ndarray | None = None,
    cw_1h: np.ndarray | None = None,
    searches: np.ndarray | None = None,
) -> np.ndarray:
    cached = _known_or_0(cached)
    cw = _known_or_0(cw)
    if not price.bills_output:  # an unknown output count changes nothing here
        out = _known_or_0(out)
    p_in = _rate(price, "input", price.input, inp)
    p_cached = p_in if price.cached_input is None else _rate(price, "cached_input", price.cached_input, inp)
    p_cw = p_in if price.cache_write is None else _rate(price, "cache_write", price.cache_write, inp)
    p_out = _rate(price, "output", price.output, inp)
    uncached = np.maximum(inp - cached - cw, 0.0)
    total: np.ndarray = uncached * p_in + cached * p_cached + cw * p_cw
    if cw_1h is not None and price.cache_write_1h is not None:  # the hour-long writes at their rate, not the 5-minute one
        hour = np.minimum(_known_or_0(cw_1h), cw)
        total = total + hour * (_rate(price, "cache_write_1h", price.cache_write_1h, inp) - p_cw)
    if price.reasoning is not None and reasoning is not None:
        reasoning = _known_or_0(reasoning)
        total = total + np.maximum(out - reasoning, 0.0) * p_out + reasoning * _rate(price, "reasoning", price.reasoning, inp)
    else:
        total = total + out * p_out
    cost: np.ndarray = total / 1e6
    if price.per_call or any(name == "per_call" for name, _, _ in price.tiers):
        cost = cost + _rate(price, "per_call", price.per_call, inp)
    if searches is not None and price.web_search:
        cost = cost + _known_or_0(searches) * price.web_search
    return cost


class PriceTableNotFoundError(NoesisNbError, FileNotFoundError):
    """``prices=`` names a file that does not exist (one line in a cell; a ``FileNotFoundError`` still)."""


class PriceTable:
    """User prices by model, USD per million tokens.

    ``PriceTable({"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10}})``, or
    ``PriceTable.load("prices.yaml" | "prices.csv")`` (CSV columns: ``model, input,
    cached_input, cache_write, output`` and optionally ``provider``). A key is the whole model
    name, slashes included (``"openrouter/openai/gpt-4o-mini"``); a price for one provider only
    says so in a ``provider`` field (or CSV column). A call matches its (provider, model), then
    its model for any provider, then ``"<provider>/<model>"`` as one key; then the same for its model's undated
    name (``store.facts.undated``). ``reasoning`` and ``per_call`` rates are taken too (``_OWN_FIELDS``); another
    tool's name of a field (``thinking``, ``per_request``) is refused with ours.
    """

    def __init__(
        self, prices: Mapping[str, Mapping[str, Any]] | Iterable[tuple[str, Mapping[str, Any]]], *, source: str = "user"
    ):
        self.source = source
        self._prices: dict[tuple[str | None, str], Price] = {}
        #: each entry's name as the table gives it (``provider/model`` for a provider's row)
        self.names: dict[tuple[str | None, str], str] = {}
        for key, row in prices.items() if isinstance(prices, Mapping) else prices:
            if not isinstance(row, Mapping):
                raise InvalidOptionError(
                    f"price for {quoted(key)} must be a mapping like {{'input': 2.5, 'output': 10}}, got {quoted(row)}"
                )
            model = str(key)
            provider = row.get("provider") or None
            unknown = [k for k in row if k not in _ROW_KEYS and k not in (None, "") and _price_like(k)]
            if unknown:  # a misspelt cached_input would silently be charged at the input rate (a "notes" column is kept out)
                raise InvalidOptionError(
                    f"price for {quoted(key)} has unknown field(s) {unknown}"
                    f"{_close(unknown, _ROW_KEYS)}; the fields are {list(_FIELDS + _OWN_FIELDS + _BILLED_FIELDS)} (and provider)"
                )
            missing = [name for name in ("input", "output") if row.get(name) in (None, "")]
            if missing:
                raise InvalidOptionError(
                    f"price for {quoted(key)} lacks {missing}; give USD per million tokens for input and output"
                )
            where = (provider.lower() if provider else None, model.lower())
            self._prices[where] = Price(
                input=_rate_of(key, "input", row["input"]),
                output=_rate_of(key, "output", row["output"]),
                cached_input=_opt(key, "cached_input", row.get("cached_input")),
                cache_write=_opt(key, "cache_write", row.get("cache_write")),
                source=source,
                reasoning=_opt(key, "reasoning", row.get("reasoning")),
                per_call=_opt(key, "per_call", row.get("per_call"), "USD per call, e.g. 0.001") or 0.0,
                cache_write_1h=_opt(key, "cache_write_1h", row.get("cache_write_1h")),
                web_search=_opt(key, "web_search", row.get("web_search"), "USD per search, e.g. 0.01"),
            )
            self.names[where] = f"{provider}/{model}" if provider else model
        canonical = json.dumps(  # (the other rates only when given: a table without them keeps its version)
            {
                f"{p or ''}/{m}": [getattr(v, f) for f in _FIELDS]
                + [[f, getattr(v, f)] for f in _OWN_FIELDS + _BILLED_FIELDS if getattr(v, f) not in (None, 0.0)]
                for (p, m), v in sorted(self._prices.items(), key=str)
            }
        )
        self.version = hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @classmethod
    def load(cls, spec: PriceTable | Mapping[str, Any] | str | os.PathLike[str]) -> PriceTable:
        """A table from a dict, a YAML/JSON file, or a CSV file."""
        if isinstance(spec, PriceTable):
            return spec
        if isinstance(spec, Mapping):
            return cls(spec)
        if type(spec).__name__ == "DataFrame":  # its repr would fill the message with rows
            raise InvalidOptionError(
                "prices= is a DataFrame; pass a dict of model -> {'input': 2.5, 'output': 10}, such as "
                "df.set_index('model').to_dict('index'), or a .yaml or .csv file's path"
            )
        if not isinstance(spec, (str, os.PathLike)):
            raise InvalidOptionError(
                f"prices={quoted(spec, 80)}: pass a dict of model -> {{'input': 2.5, 'output': 10}}, or a .yaml or .csv "
                f"file's path"
            )
        path = Path(spec)
        try:
            got = read_file(os.fspath(path))  # a folder, FIFO or device is named, never waited on
        except UnreadableRunFile as exc:
            raise InvalidOptionError(f"price table {keys_hidden(str(exc))}; pass a dict, a .yaml or a .csv file") from None
        if got is None:
            raise PriceTableNotFoundError(
                f"price table {quoted(str(path))} does not exist; pass a dict, a .yaml or a .csv file"
                + ("" if path.suffix else " (genai-prices is the default: leave prices= out, or add a table of your own)")
            )
        try:
            text = got[0].decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidOptionError(
                f"price table {path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8"
            ) from None
        table: Mapping[str, Any] | list[tuple[str, dict[str, str]]]  # model -> prices, or (model, CSV row) pairs
        if path.suffix.lower() == ".csv":
            rows = list(csv.DictReader(io.StringIO(text)))
            if not rows or "model" not in rows[0]:
                raise InvalidOptionError(
                    f"{path}: a price CSV needs a header with columns model,input,cached_input,cache_write,output"
                )
            table = [(r["model"], r) for r in rows]  # a model may have one row per provider
        else:
            import yaml

            try:
                table = yaml.safe_load(text) or {}
            except (yaml.YAMLError, RecursionError) as exc:
                reason = str(exc).splitlines()[0] if isinstance(exc, yaml.YAMLError) else "nested too deeply"
                raise InvalidOptionError(f"price table {path}: not YAML ({reason}); fix the file or pass a dict") from None
            if not isinstance(table, Mapping):
                raise InvalidOptionError(f"{path}: expected a mapping of model -> prices, got {type(table).__name__}")
            table = table.get("models", table)
        return cls(table, source=f"user:{path.name}")

    def lookup(self, model: str, provider: str | None = None) -> Price | None:
        """The price for (provider, model), else for the model under any provider, else for the key ``provider/model``;
        then the same for the model's undated name (``store.facts.undated``: a captured call names the response's
        ``gpt-4o-mini-2024-07-18``, a table the ``gpt-4o-mini`` it was asked for)."""
        where = self.entry(model, provider)
        return None if where is None else self._prices[where]

    def entry(self, model: str, provider: str | None = None) -> tuple[str | None, str] | None:
        """The table's entry (``names``' key) that prices (provider, model) by ``lookup``'s rule; None when none does."""
        provider = provider.lower() if provider else None
        for name in dict.fromkeys((model.lower(), undated(model.lower()))):
            for where in ((provider, name), (None, name), (None, f"{provider}/{name}")) if provider else ((None, name),):
                if where in self._prices:
                    return where
        return None

    def __len__(self) -> int:
        return len(self._prices)

    @property
    def models(self) -> set[str]:
        """The model names the table prices (lower case, as looked up)."""
        return {model for _, model in self._prices}


_ROW_KEYS = (*_FIELDS, *_OWN_FIELDS, *_BILLED_FIELDS, "provider", "model")


_PRICE_WORDS = (
    *("input", "output", "cache", "cached", "read", "write", "price", "rate", "token", "cost", "usd"),
    *("reason", "think", "call", "request", "search"),  # (``thinking``, ``per_request``: other tools' names of ours)
)


def _price_like(name: Any) -> bool:
    """Whether a field no table takes reads like a price meant for one (a misspelling, another provider's term:
    ``cached_imput``, ``cache_read``, ``output_price``) rather than a note beside the prices (``notes``, ``tier``)."""
    import difflib

    text = str(name).lower()
    return any(word in text for word in _PRICE_WORDS) or bool(difflib.get_close_matches(text, _ROW_KEYS, n=1))


#: other tools' names of a field a table takes, for the message refusing them (``cache_read`` is no ``cache_write``)
_OTHER_NAMES = {
    "thinking": "reasoning",
    "thinking_output": "reasoning",
    "reasoning_output": "reasoning",
    "per_request": "per_call",
    "request": "per_call",
    "requests": "per_call",
    "cache_read": "cached_input",
    "cached": "cached_input",
    "cache_creation": "cache_write",
    "prompt": "input",
    "completion": "output",
}


def _close(names: list[Any], known: tuple[str, ...]) -> str:
    import difflib

    guesses = (_OTHER_NAMES.get(str(n).lower()) or next(iter(difflib.get_close_matches(str(n), known, n=1)), "") for n in names)
    close = [m for m in guesses if m]
    return f" (did you mean {', '.join(map(repr, close))}?)" if close else ""


def _rate_of(key: Any, name: str, value: Any, unit: str = "USD per million tokens as a number ≥ 0, e.g. 2.5") -> float:
    """One price of a user table: a finite number ≥ 0 of USD per million tokens (``web_search``: per search;
    number-like text, as in a CSV, too)."""
    rate: float | None = None
    if not isinstance(value, bool):
        try:
            rate = float(value)
        except (TypeError, ValueError):
            rate = None
    if rate is None or not math.isfinite(rate) or rate < 0:
        raise InvalidOptionError(f"price for {quoted(key)}: {name}={quoted(value, 40)} is not a price; give {unit}")
    return rate


def _opt(key: Any, name: str, value: Any, unit: str | None = None) -> float | None:
    if value is None or (type(value) is str and not value):
        return None
    return _rate_of(key, name, value) if unit is None else _rate_of(key, name, value, unit)


@dataclass
class Pricer:
    """User table first, then genai-prices. ``source``/``version`` describe what priced a frame."""

    table: PriceTable | None = None
    use_genai: bool = True
    _models: dict[tuple[str | None, str], genai.ModelRates | None] = field(default_factory=dict)
    _rates: dict[tuple[str, int], Price | None] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, prices: Any = None) -> Pricer:
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
        return " > ".join(parts + ([f"{GENAI_SOURCE} {genai.genai_version()}"] if self.use_genai else []))

    def rates(self, model: str, provider: str | None, when: datetime | None = None) -> Price | None:
        """The price of one call of ``model`` made at ``when`` (None: now), tiers and per-call charges included."""
        if self.table is not None and (hit := self.table.lookup(model, provider)) is not None:
            return hit
        found = self._genai(model, provider)
        if found is None:
            return None
        stamp = np.array([genai.micros(when or datetime.now(UTC))], dtype=np.int64)
        return self._converted(found, int(genai.choose(found, stamp)[0]))

    def lookup(self, model: str, provider: str | None, when: datetime | None = None) -> Price | None:
        """A flat price (cost proportional to tokens, one rate all day) for ``model``; None when unknown or not flat.

        For running sums of tokens (the live cost meter). Frames price each call with ``rates``. A provider
        that is no text (a damaged event's list or object) is read as unknown, as the frames read it.
        """
        provider = provider if isinstance(provider, str) else None
        price = self.rates(model, provider, when)
        if price is None or not price.linear or self.varies_within_day(model, provider):
            return None
        return price

    def varies_within_day(self, model: str, provider: str | None) -> bool:
        """Whether genai-prices gives this model rates that depend on the time of day (off-peak prices)."""
        if self.table is not None and self.table.lookup(model, provider) is not None:
            return False
        found = self._genai(model, provider)
        return found is not None and found.varies_within_day

    def rows(self, model: str, provider: str | None, stamps: np.ndarray) -> list[tuple[np.ndarray, Price]]:
        """``(positions, price)`` for calls of ``model`` at ``stamps`` (µs since the epoch, UTC): one pair per price in effect."""
        if self.table is not None and (hit := self.table.lookup(model, provider)) is not None:
            return [(np.arange(len(stamps)), hit)]
        found = self._genai(model, provider)
        if found is None:
            return []
        chosen = genai.choose(found, stamps)
        out = []
        for index in np.unique(chosen):
            price = self._converted(found, int(index))
            if price is not None:
                out.append((np.flatnonzero(chosen == index), price))
        return out

    def _genai(self, model: str, provider: str | None) -> genai.ModelRates | None:
        key = (provider, model)
        if key not in self._models:
            self._models[key] = genai.find_model(model, provider) if self.use_genai else None
        return self._models[key]

    def _converted(self, found: genai.ModelRates, index: int) -> Price | None:
        key = (found.key, index)
        if key not in self._rates:
            fields = found.options[index][1]
            self._rates[key] = None if fields is None else Price(**fields, source=f"{GENAI_SOURCE}:{found.key}")
        return self._rates[key]


def price_frame(df: pd.DataFrame, prices: Any = None) -> pd.DataFrame:
    """Add ``cost_usd``, ``priced``, ``price_source``, ``unpriced_reason`` to a frame of model calls (``usage_df`` columns).

    Rows are grouped by (provider, model); genai-prices' conditional prices are chosen per row
    from its timestamp (none: now), and tiers per row from its input tokens, all on arrays.
    ``df.attrs`` gets ``price_source``, ``price_version``, ``price_fallbacks``,
    ``price_assumptions`` (rows priced with an unknown cached/cache-write count taken as 0) and
    ``price_tiers`` (rows priced above a tier's start).
    """
    pricer = Pricer.from_spec(prices)
    n = len(df)
    if n:
        models = df["model"].astype(object).to_numpy()
        providers = df["provider"].astype(object).to_numpy() if "provider" in df else np.full(n, None, dtype=object)
        stamps = _stamps(df["timestamp"] if "timestamp" in df else None, n)
        tokens = {c: df[c].to_numpy(dtype=float, na_value=np.nan) if c in df else np.full(n, np.nan) for c in _TOKENS}
        tokens.update((c, df[c].to_numpy(dtype=float, na_value=np.nan)) for c in BILLED_COUNTS if c in df)
        cost, priced, source, notes = price_arrays(pricer, models, providers, stamps, tokens)
        reasons = unpriced_reasons(pricer, models, providers, stamps, tokens, priced)
    else:
        cost, priced, source, notes = np.full(0, np.nan), np.zeros(0, dtype=bool), np.empty(0, dtype=object), {}
        reasons = reason_column([])
    out = df.copy(deep=False)
    out["cost_usd"] = cost
    out["priced"] = priced
    out["price_source"] = _categorical(source)
    out["unpriced_reason"] = reasons
    out.attrs.update(df.attrs)
    out.attrs.update(price_attrs(pricer, notes))
    return out


#: why a call has no cost (``usage_df.unpriced_reason``; None for a priced call): a model no price table knows (or no
#: model named) is not a priced model whose token count is unknown, and the fix differs (a ``prices=`` row, or the
#: adapter reporting its tokens). ``LOG_CHANGED``: a sealed log edited since its seal, whose counts no seal vouches for.
NO_PRICE = "no price for model"
#: the provider that billed the call is one genai-prices has no prices of (a gateway's label, a local server's
#: address): never priced at another provider's rate, whatever its model
NO_PROVIDER_PRICE = "no price for provider"
INPUT_UNKNOWN = "input tokens unknown"
OUTPUT_UNKNOWN = "output tokens unknown"
TOKENS_UNKNOWN = "input and output tokens unknown"
LOG_CHANGED = "log changed since its seal"
UNPRICED_REASONS = (NO_PRICE, INPUT_UNKNOWN, OUTPUT_UNKNOWN, TOKENS_UNKNOWN, LOG_CHANGED, NO_PROVIDER_PRICE)


def reason_column(values: Sequence[str | None] | np.ndarray) -> pd.Categorical:
    """``unpriced_reason`` values as a categorical with every reason for its categories (frames concatenate alike)."""
    return pd.Categorical(values, categories=pd.Index(list(UNPRICED_REASONS), dtype="str"))


def unpriced_reasons(
    pricer: Pricer,
    models: np.ndarray,
    providers: np.ndarray,
    stamps: np.ndarray,
    tokens: dict[str, np.ndarray],
    priced: np.ndarray,
) -> pd.Categorical:
    """Why each call ``price_arrays`` left unpriced has no cost (``UNPRICED_REASONS``), None where priced.

    Only the unpriced calls are looked at: a price in effect at the call's time (``Pricer.rows``) with its input, or
    the output its model bills, unknown; else no price for the provider where genai-prices has no such provider
    (``_genai_rates.provider_unknown``), else no price for the model."""
    reason = np.full(len(models), None, dtype=object)
    todo = np.flatnonzero(~np.asarray(priced, dtype=bool))
    reason[todo] = NO_PRICE
    groups: dict[tuple[str | None, str], list[int]] = {}
    for i in todo:
        model, provider = models[i], providers[i]
        if isinstance(model, str) and model:
            groups.setdefault((provider if isinstance(provider, str) and provider else None, model), []).append(int(i))
    for (provider, model), where in groups.items():
        rows_of = np.array(where, dtype=np.int64)
        if pricer.use_genai and genai.provider_unknown(provider):
            reason[rows_of] = NO_PROVIDER_PRICE  # (a user table's price for it would have priced the call)
        for at, price in pricer.rows(model, provider, stamps[rows_of]):
            rows = rows_of[at]
            inp = np.isnan(tokens["input_tokens"][rows])
            out = np.isnan(tokens["output_tokens"][rows]) & price.bills_output
            said = np.where(inp & out, TOKENS_UNKNOWN, np.where(inp, INPUT_UNKNOWN, OUTPUT_UNKNOWN))
            reason[rows] = np.where(inp | out, said, NO_PRICE)
    return reason_column(reason)


def price_attrs(pricer: Pricer, notes: dict[str, Any]) -> dict[str, Any]:
    """The ``attrs`` a priced frame carries: the price source and version, and ``price_arrays``' notes."""
    return {
        "price_source": pricer.source,
        "price_version": pricer.version,
        "price_fallbacks": notes.get("price_fallbacks", {}),
        "price_assumptions": notes.get("price_assumptions", {}),
        "price_tiers": notes.get("price_tiers", {}),
    }


def price_arrays(
    pricer: Pricer, models: np.ndarray, providers: np.ndarray, stamps: np.ndarray, tokens: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """(cost, priced, price source, notes) of calls given as arrays, the pricing ``price_frame`` does.

    ``stamps``: µs since the epoch (UTC); ``tokens``: float64 counts (NaN unknown) by ``TOKEN_FIELDS``.
    ``runs_df`` prices its calls here without building a frame of them first (a fixed cost of every load).
    """
    n = len(models)
    cost = np.full(n, np.nan)
    priced = np.zeros(n, dtype=bool)
    source = np.empty(n, dtype=object)
    fallbacks: dict[str, list[str]] = {}
    assumptions: dict[str, dict[str, int]] = {}
    tiered: dict[str, dict[str, int]] = {}
    if n:
        keys = pd.MultiIndex.from_arrays([pd.Series(providers).fillna("").to_numpy(), pd.Series(models).fillna("").to_numpy()])
        codes, uniques = pd.factorize(keys)
        for code, (provider, model) in enumerate(uniques):
            group = np.flatnonzero(codes == code)
            if not model:
                continue
            # the notes' key as usage_df's columns show the call (a key in a crafted call's provider redacted,
            # the model kept): runs_df prices its calls as read, and its attrs would show the key whole
            name = f"{shown(provider) + '/' if provider else ''}{shown(model)}"
            group_tokens = {c: tokens[c][group] for c in _PRICED if c in tokens}
            for at, price, got, part in _priced_groups(pricer, model, provider or None, stamps[group], group_tokens):
                rows = group[at]
                ok = ~np.isnan(got)
                cost[rows], priced[rows] = got, ok
                source[rows[ok]] = price.source
                _note(name, price, part, ok, fallbacks, assumptions, tiered)
    notes = {"price_fallbacks": fallbacks, "price_assumptions": assumptions, "price_tiers": tiered}
    return cost, priced, source, notes


_TOKENS = TOKEN_FIELDS
_PRICED = (*TOKEN_FIELDS, *BILLED_COUNTS)
_PARTS = (("cached_input", "cached_input_tokens"), ("cache_write", "cache_write_input_tokens"), ("reasoning", "reasoning_tokens"))


def _note(
    name: str,
    price: Price,
    part: dict[str, np.ndarray],
    ok: np.ndarray,
    fallbacks: dict[str, list[str]],
    assumptions: dict[str, dict[str, int]],
    tiered: dict[str, dict[str, int]],
) -> None:
    """Record what priced these rows beyond the base rates: input-price fallbacks, assumed counts, tiers."""
    used = [f"{f} priced as input" for f, c in _PARTS[:2] if f in price.fallbacks and np.nansum(part[c]) > 0]
    hour = part.get("cache_write_1h_input_tokens")
    if price.cache_write_1h is None and hour is not None and np.nansum(hour[ok]) > 0:
        used.append("cache_write_1h priced as cache_write")  # (a table's hour-long writes at its 5-minute rate)
    if used:
        fallbacks[name] = used
    for field_, column in _PARTS:
        if price.own_rate(field_):
            assumed = int((ok & np.isnan(part[column])).sum())
            if assumed:  # unknown count priced as 0: its tokens were charged at its total's rate
                counts = assumptions.setdefault(name, {})
                counts[column] = counts.get(column, 0) + assumed
    for start in sorted({start for _, start, _ in price.tiers}):
        above = int((ok & (part["input_tokens"] > start)).sum())
        if above:
            counts = tiered.setdefault(name, {})
            label = f"input_tokens > {start}"
            counts[label] = counts.get(label, 0) + above
    searches = part.get("web_search_requests")
    if price.web_search is None and searches is not None:  # a table with no web-search rate: the searches unpriced
        unpriced = int((ok & (np.nan_to_num(searches) > 0)).sum())
        if unpriced:
            counts = assumptions.setdefault(name, {})
            counts["web_search_requests"] = counts.get("web_search_requests", 0) + unpriced


def _stamps(ts: Any, n: int) -> np.ndarray:
    """Call times as µs since the epoch (UTC); a missing time is now, as genai-prices does."""
    now = genai.micros(datetime.now(UTC))
    if ts is None:
        return np.full(n, now, dtype=np.int64)
    ts = pd.Series(ts)
    if pd.api.types.is_datetime64_any_dtype(ts.dtype):
        ts = ts.dt.tz_localize("UTC") if ts.dt.tz is None else ts.dt.tz_convert("UTC")
    else:  # text (a frame of one's own): ISO-8601 only, so "now" or a bare number is not read as a time
        from .frames._arrays import iso_to_utc  # frames import this module

        ts = iso_to_utc(list(ts))
    return stamps_or_now(ts.dt.as_unit("us").to_numpy(dtype="datetime64[us]").astype(np.int64))  # NaT: int64's least


def stamps_or_now(micros: np.ndarray) -> np.ndarray:
    """Call times as µs since the epoch (``int64``; NaT's value: no time) with a missing one read as now, as ``_stamps``."""
    return np.where(micros == np.iinfo(np.int64).min, genai.micros(datetime.now(UTC)), micros)


def _categorical(values: np.ndarray) -> pd.Categorical:
    codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    return pd.Categorical.from_codes(codes, categories=pd.Index(np.asarray(uniques, dtype=object), dtype="str"))


def reprice(df: pd.DataFrame, prices: Any) -> pd.DataFrame:
    """Price a ``usage_df`` frame again with another table (e.g. negotiated rates)."""
    priced = ("cost_usd", "priced", "price_source", "unpriced_reason")
    return price_frame(df.drop(columns=[c for c in priced if c in df]), prices)
