"""A run's model calls as plain columns (``CallColumns``), read once per run record and kept with it.

``runusage`` prices and sums them for ``runs_df``; ``summaryusage`` compares their sums with the run's summary.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..store.vocab import PRICED_COUNTS
from .timetext import NAT, utc_micros
from .values import is_count

__all__ = ["CallColumns", "call_columns"]


class CallColumns(NamedTuple):
    """One run's calls as plain columns: time (µs, ``NAT`` unknown), weight, model, provider, token counts."""

    stamps: list[int]
    weights: list[float]
    models: list[Any]
    providers: list[Any]
    tokens: tuple[list[float], ...]  # by ``PRICED_COUNTS``; NaN when unknown or in conflict (``call_counts``' rule)


def call_columns(record: Any) -> CallColumns:
    """The run's calls as ``CallColumns``, kept with the record until its calls are replaced (``calls_from_events``)."""
    calls = record["calls"]
    kept = record.get("call_columns")
    if kept is not None and kept[0] is calls:
        columns: CallColumns = kept[1]
        return columns
    payloads = [payload for _, payload in calls]
    counts = [_counts(p) for p in payloads]
    got = CallColumns(
        stamps=[NAT if (micros := utc_micros(ts)) is None else micros for ts, _ in calls],
        weights=[p["model_calls"] if is_count(p.get("model_calls")) else 1 for p in payloads],
        models=[v if type(v := p.get("model")) is str else None for p in payloads],
        providers=[v if type(v := p.get("provider")) is str else None for p in payloads],
        tokens=tuple(map(list, zip(*counts))) if counts else tuple([] for _ in PRICED_COUNTS),
    )
    record["call_columns"] = (calls, got)
    return got


_NAN = float("nan")


def _counts(payload: dict[str, Any]) -> tuple[float, ...]:
    """One call's counts by ``PRICED_COUNTS``, by ``usage.call_counts``' rule (a test holds them equal):
    NaN when not a count, and a total with its parts NaN when the parts exceed it."""
    inp, cached, written, out, reasoning, hour, searches = (
        float(v) if is_count(v := payload.get(name)) else _NAN for name in PRICED_COUNTS
    )
    if (0.0 if cached != cached else cached) + (0.0 if written != written else written) > inp:
        inp = cached = written = _NAN
    if reasoning > out:
        out = reasoning = _NAN
    if hour > written:
        hour = _NAN
    return inp, cached, written, out, reasoning, hour, searches
