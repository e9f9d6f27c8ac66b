"""genai-prices' bundled price data (offline) read for ``noesis_nb.cost``: which model, which price at which time.

genai-prices keeps, per model, either one price or a list of conditional prices (from a start
date on, or within a daily window: off-peak rates), and a rate may be tiered by the call's
input tokens. ``choose`` replays its selection rule on arrays of call times; ``price_fields``
turns one of its prices into ``noesis_nb.cost.Price`` fields, tiers included.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

import numpy as np

__all__ = ["GENAI_SOURCE", "genai_version", "find_model", "price_fields", "constraints", "micros", "choose"]

GENAI_SOURCE = "genai-prices"


def genai_version() -> str:
    try:
        import genai_prices

        return str(genai_prices.__version__)
    except ImportError:  # pragma: no cover - a dependency
        return "missing"


def find_model(model: str, provider: str | None) -> Any:
    """(provider, model info) from genai-prices' bundled snapshot (no network); None when unknown."""
    try:
        from genai_prices import data_snapshot
    except ImportError:  # pragma: no cover
        return None
    snapshot = data_snapshot.get_snapshot()
    for provider_id in dict.fromkeys((provider, None)):
        try:
            return snapshot.find_provider_model(model, None, provider_id, None)
        except LookupError:
            continue
    return None


# genai-prices price key -> (our field, factor to USD per million tokens, or to USD per call for requests)
_GENAI_FIELDS = {
    "input_mtok": ("input", 1.0),
    "output_mtok": ("output", 1.0),
    "cache_read_mtok": ("cached_input", 1.0),
    "cache_write_mtok": ("cache_write", 1.0),
    "output_reasoning_mtok": ("reasoning", 1.0),
    "requests_kcount": ("per_call", 1e-3),
}


def price_fields(prices: Any) -> dict[str, Any] | None:
    """genai-prices' ``ModelPrice`` as ``Price`` fields (tiers kept); None without input and output prices.

    Other keys (audio, images, web searches, …) price usage that model calls here never report.
    """
    rates: dict[str, float | None] = {}
    tiers: list[tuple[str, int, float]] = []
    for key, (name, factor) in _GENAI_FIELDS.items():
        value = getattr(prices, key, None)
        if value is None:
            continue
        base = getattr(value, "base", value)
        rates[name] = float(base) * factor
        for tier in getattr(value, "tiers", ()):
            tiers.append((name, int(tier.start), float(tier.price) * factor))
    if rates.get("input") is None or rates.get("output") is None:
        return None
    tiers.sort(key=lambda t: (t[0], t[1]))
    return {
        "input": rates["input"],
        "output": rates["output"],
        "cached_input": rates.get("cached_input"),
        "cache_write": rates.get("cache_write"),
        "reasoning": rates.get("reasoning"),
        "per_call": rates.get("per_call") or 0.0,
        "tiers": tuple(tiers),
    }


def constraints(info: Any) -> list[Any]:
    return [c.constraint for c in info.prices] if isinstance(info.prices, list) else []


_DAY_US = 86_400_000_000


def micros(when: datetime) -> int:
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return int(when.timestamp()) * 1_000_000 + when.microsecond


def choose(info: Any, stamps: np.ndarray) -> np.ndarray:
    """Per call, the index of ``info.prices`` genai-prices uses at that time (its rule: the last active, else the first).

    Start dates compare UTC days, time-of-day windows the UTC time of day, all on arrays.
    """
    chosen = np.zeros(len(stamps), dtype=np.int64)
    if not isinstance(info.prices, list):
        return chosen
    open_ = np.ones(len(stamps), dtype=bool)
    for index in range(len(info.prices) - 1, -1, -1):
        hit = open_ & _active(info.prices[index].constraint, stamps)
        chosen[hit] = index
        open_ &= ~hit
    return chosen


def _active(constraint: Any, stamps: np.ndarray) -> np.ndarray:
    if constraint is None:
        return np.ones(len(stamps), dtype=bool)
    kind = type(constraint).__name__
    if kind == "StartDateConstraint":
        started: np.ndarray = stamps // _DAY_US >= (constraint.start_date - date(1970, 1, 1)).days
        return started
    if kind == "TimeOfDateConstraint":
        tod = stamps % _DAY_US
        start, end = _utc_time_us(constraint.start_time), _utc_time_us(constraint.end_time)
        return (tod >= start) | (tod < end) if end < start else (tod >= start) & (tod < end)
    uniques, inverse = np.unique(stamps, return_inverse=True)  # a constraint kind this module does not know: ask it
    answers = np.array([bool(constraint.active(datetime.fromtimestamp(u / 1e6, UTC))) for u in uniques.tolist()])
    return answers[inverse] if len(uniques) else np.zeros(0, dtype=bool)


def _utc_time_us(value: time) -> int:
    """A time of day (naive: UTC) as microseconds after midnight UTC."""
    if value.tzinfo is not None:
        value = datetime.combine(date(1970, 1, 1), value).astimezone(UTC).time()
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
