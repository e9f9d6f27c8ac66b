"""Times as text in the frames: the store's one rule (``store.instants``) applied to columns, value by value.

``utc_micros`` and ``by_rule`` are ``store.instants``' (the views' clocks and the OTLP export read a
time by the same rule, so one string means the same instant everywhere, on every machine): ISO-8601
text, no offset read as UTC, anything else unknown. pandas is not asked: it reads a value
differently depending on the values parsed beside it (one nanosecond fraction in a batch makes a
year-1500 time NaT). Every reader (``is_time``, the events' time column, the runs/tools/usage frames,
the day a call is priced on) uses ``utc_micros``, so a string means the same instant at every load.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..store.instants import EPOCH as _EPOCH
from ..store.instants import MAX_LENGTH, MAX_US, MIN_US, by_rule, utc_micros

__all__ = ["utc_micros", "by_rule", "micros_of", "NAT", "MAX_LENGTH"]

NAT = np.iinfo(np.int64).min  # numpy's NaT as int64


def micros_of(values: Any) -> np.ndarray:
    """``utc_micros`` of each value as int64 (``NAT`` when unknown); ``datetime`` objects (a column function's) kept."""
    out = np.empty(len(values), dtype=np.int64)
    for i, value in enumerate(values):
        if type(value) is str:
            got = utc_micros(value)
        elif isinstance(value, datetime):  # pandas Timestamps too; a naive one is UTC, as a naive text time is
            got = _aware_micros(value)
        else:
            got = None
        out[i] = NAT if got is None else got
    return out


def _aware_micros(value: datetime) -> int | None:
    if value != value:  # pandas' NaT
        return None
    try:
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        micros = (value - _EPOCH) // _EPOCH.resolution
    except (OverflowError, ValueError):
        return None
    return int(micros) if MIN_US <= micros <= MAX_US else None
