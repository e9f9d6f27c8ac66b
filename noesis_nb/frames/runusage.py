"""Per-run model-call totals and cost for ``runs_df``, priced per call exactly as ``usage_df`` prices them.

A run's calls are its ``model.call`` events, or the summary's per-model sums when those price
the same (``runrecord`` decides what it can from the summary; the prices decide the rest here).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd

from ..cost import Pricer, price_arrays, price_attrs, stamps_or_now
from ..store.vocab import BILLED_COUNTS, PRICED_COUNTS
from ._arrays import objects
from .callcolumns import CallColumns, call_columns
from .columns import TOKEN_COLUMNS
from .runrecord import PARTS, RunRecord
from .timetext import utc_micros

__all__ = ["run_usage", "sums_hide_priced_parts", "PriceMemo", "CallColumns", "call_columns"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DAY_US = 86_400_000_000


class PriceMemo:
    """One load's price look-ups: the table version, and each (model, provider, day)'s verdict found once.

    A fleet's runs share a few models and days; ``Pricer.rates`` builds its answer anew on each call.
    """

    def __init__(self, pricer: Pricer):
        self.pricer = pricer
        self.version = pricer.version
        self._days: dict[Any, datetime | None] = {}
        self._hidden: dict[tuple[Any, ...], bool | None] = {}
        self._own: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def day(self, stamp: Any) -> datetime | None:
        key = stamp if isinstance(stamp, str) else None
        if key not in self._days:
            self._days[key] = _day(stamp)
        return self._days[key]

    def verdict(self, model: str, provider: str | None, day: datetime | None) -> bool | None:
        """None: unpriced; True: the calls are needed whatever their parts; False: only a null priced part needs them."""
        key = (model, provider, day)
        if key not in self._hidden:
            price = self.pricer.rates(model, provider, day)
            if price is None:
                self._hidden[key] = None
            else:
                self._hidden[key] = not price.linear or self.pricer.varies_within_day(model, provider)
                self._own[key] = tuple(count for part, count in PARTS if price.own_rate(part))
        return self._hidden[key]

    def own_counts(self, model: str, provider: str | None, day: datetime | None) -> tuple[str, ...]:
        """The token counts whose part has its own price for this model on this day (after ``verdict``)."""
        return self._own.get((model, provider, day), ())


def sums_hide_priced_parts(record: RunRecord, prices: Pricer | PriceMemo) -> bool:
    """Whether the summary's per-model sums would price differently from the run's calls.

    Sums price as the calls only when cost is proportional to tokens with one rate all day: a
    tiered price (the rate depends on each call's input size), a per-call charge, or an
    off-peak rate needs the calls. So does a part (cached, cache-write, reasoning) with its own
    price whose sum is null: a null part prices as 0 for the whole group, while the calls that
    did report it get their own rate. So does a call with a count billed apart (``BILLED_COUNTS``: web searches,
    hour-long cache writes), which the summary does not sum.
    """
    memo = prices if isinstance(prices, PriceMemo) else PriceMemo(prices)
    checked = record.setdefault("sums_checked", {})  # per price table: a cached run is decided once
    if memo.version not in checked:
        checked[memo.version] = _hidden_parts(record["calls"], memo)
    return checked[memo.version]


def _hidden_parts(calls: list[tuple[Any, dict[str, Any]]], memo: PriceMemo) -> bool:
    for ts, payload in calls:
        model, provider = payload.get("model"), payload.get("provider")
        if not isinstance(model, str) or not model:
            continue
        provider = provider if isinstance(provider, str) and provider else None
        day = memo.day(ts)
        hidden = memo.verdict(model, provider, day)
        if hidden is None:
            continue
        if hidden or any(payload.get(count) for count in BILLED_COUNTS):  # (searches, hour-long writes: no sums of them)
            return True
        if any(payload.get(count) is None for count in memo.own_counts(model, provider, day)):
            return True
    return False


def _day(stamp: Any) -> datetime | None:
    """Midnight UTC of an ISO time, read by the rule ``price_frame`` reads the call's time by (None: not a time)."""
    micros = utc_micros(stamp)
    if micros is None:
        return None
    return _EPOCH + timedelta(days=micros // _DAY_US)


def _calls_read(record: RunRecord) -> bool:
    """Whether the run's calls are known, none or not: its summary counts them (``model_calls`` 0, as an older
    release wrote it with null totals, or per-model sums), or its log was read whole: there, not gone, and no
    part of it left unread (a file that cannot be read, a sealed run without its log, a line that cannot be read:
    it may have been a call, so "none" is not known, as ``DiskRun`` reads it)."""
    if record["calls_from"] == "summary":
        return True
    ref = record["ref"]
    if record["stamp"].get("events.jsonl") is None:  # no log
        return False
    url = ref.fs.url(ref.file("events.jsonl"))
    return not any(p.path == url for p in record["problems"])


def run_usage(records: list[RunRecord], prices: Any) -> pd.DataFrame:
    """Per-run model-call totals and cost (priced per call, then summed); a total is NaN when any call's value is unknown.

    The calls are priced as ``usage_df`` prices them (``price_arrays`` over ``usage.call_counts``' rule), from
    arrays: a frame of the calls, built and dropped, was a fixed cost of every load. Each run's calls
    are read into plain columns once (``call_columns``, kept with the cached record), so a reload
    after one run changed reads only that run's calls again.
    """
    pricer = Pricer.from_spec(prices)
    n = len(records)
    columns_of = [call_columns(record) for record in records]
    sizes = np.fromiter((len(c.weights) for c in columns_of), dtype=np.int64, count=n)
    stamps: list[int] = []
    weights: list[float] = []
    models: list[Any] = []
    providers: list[Any] = []
    tokens_of: dict[str, list[float]] = {name: [] for name in PRICED_COUNTS}
    for c in columns_of:
        if c.weights:
            stamps += c.stamps
            weights += c.weights
            models += c.models
            providers += c.providers
            for name, counted in zip(PRICED_COUNTS, c.tokens):
                tokens_of[name] += counted
    tokens = {name: np.array(values, dtype=np.float64) for name, values in tokens_of.items()}
    cost, priced_calls, _, notes = price_arrays(
        pricer, objects(models), objects(providers), stamps_or_now(np.array(stamps, dtype=np.int64)), tokens
    )
    run = np.repeat(np.arange(n, dtype=np.int64), sizes)
    counts = np.bincount(run, weights=np.array(weights, dtype=float), minlength=n) if len(run) else np.zeros(n)
    # a sealed run whose log is gone or changed since (``runs._record``): its calls, tokens and cost are unknown, not 0
    lost = np.fromiter((bool(r.get("calls_unknown")) for r in records), dtype=bool, count=n)
    columns: dict[str, Any] = {"model_calls": pd.array(counts.astype(np.int64), dtype="Int64")}
    # a run known to have made no model call totals 0 tokens at $0.00 (priced), the sums of its usage_df rows (none);
    # one whose log could not be read (nor its summary say) has its calls unknown: its count too, never a plausible 0
    has = ((counts > 0) | np.fromiter((_calls_read(r) for r in records), dtype=bool, count=n)) & ~lost
    if not has.all():
        columns["model_calls"][~has] = pd.NA
    for name, values in (*((t, tokens[t]) for t in TOKEN_COLUMNS), ("cost_usd", cost)):
        # a total is unknown (NaN) when any call's value is unknown, never partial
        known = ~np.isnan(values)
        total = np.bincount(run[known], weights=values[known], minlength=n) if known.any() else np.zeros(n)
        any_unknown = np.bincount(run[~known], minlength=n) > 0 if not known.all() else np.zeros(n, dtype=bool)
        columns[name] = np.where(has & ~any_unknown, total, np.nan)
    unpriced = np.bincount(run[~priced_calls], minlength=n) > 0 if len(run) else np.zeros(n, dtype=bool)
    priced = has & ~unpriced
    columns["priced"] = pd.array(priced, dtype="boolean")
    if lost.any():
        columns["priced"][lost] = pd.NA
    columns["cost_usd"] = np.where(priced, columns["cost_usd"], np.nan)
    out = pd.DataFrame(columns, index=pd.RangeIndex(n), copy=False)  # one constructor call, not a setitem per column
    out.attrs.update(price_attrs(pricer, notes))
    return out
