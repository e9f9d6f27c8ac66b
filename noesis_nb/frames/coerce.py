"""Defensive reading of run documents: a malformed field becomes NA and a problem, never an exception.

One bad run (``metrics: [1]``, ``act_count: "three"``, ``governance: "x"``) must not spoil a
whole load: ``obj`` reads a sub-document that is not an object as empty, and ``clean_row`` checks
each value of a frame row against its column's kind, replacing what does not fit by None. Both
report what they replaced through ``report(reason)`` so the frame lists it in ``attrs["errors"]``
(or raises under ``strict=True``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from ..secrets.quoted import quoted
from .timetext import micros_of

__all__ = ["obj", "clean_row", "Report", "typed_values", "extra_problem"]

Report = Callable[[str], None]
_NUMBER = (int, float)


def obj(doc: Any, key: str, report: Report | None = None, where: str = "") -> dict[str, Any]:
    """``doc[key]`` when it is an object; ``{}`` when absent or null; ``{}`` and a report when it is anything else."""
    value = doc.get(key) if type(doc) is dict else None
    if value is None or type(value) is dict:
        return value or {}
    if report is not None:
        report(f"{where}{key} is a JSON {_kind(value)} ({_short(value)}), not an object; read as empty")
    return {}


def clean_row(row: dict[str, Any], columns: Mapping[str, tuple[str, str]], report: Report) -> dict[str, Any]:
    """``row`` with every value that does not fit its column's kind replaced by None (and reported)."""
    for name, (kind, _) in columns.items():
        value = row.get(name)
        if value is None or type(value) in _EXACT.get(kind, ()) or _fits(kind, value):
            continue
        report(f"{name} is {_short(value)} (a JSON {_kind(value)}), not {_WANT[kind]}; read as unknown")
        row[name] = None
    return row


_EXACT: dict[str, set[type]] = {
    "int": {int},
    "float": {int, float},
    "bool": {bool},
    "datetime": {str},
    "str": {str},
    "category": {str},
}  # fast path
_WANT = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true/false",
    "datetime": "an ISO-8601 time",
    "str": "text",
    "category": "text",
    "object": "a value",
}


_INT64 = 2**63


def _whole(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, numbers.Integral):
        return -_INT64 <= int(v) < _INT64
    return isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer() and -_INT64 <= float(v) < _INT64


_EXTRA_FITS: dict[str, Callable[[Any], bool]] = {  # extra columns whose values are read by their kind's rule
    "int": _whole,  # numpy's numbers too: a ``fn=`` column may return them
    "float": lambda v: isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)),
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
}
_TYPED = set(_EXTRA_FITS)
_NO_TIME = np.iinfo(np.int64).min  # micros_of's mark for a value that is no time (NaT)


def typed_values(kind: str, values: list[Any]) -> tuple[list[Any], list[tuple[int, Any]]]:
    """A ``Column(type=kind)``'s values with each of another kind read as None, and (index, value) of those.

    The rule of every frame's own columns (``clean_row``): ``"12"`` is no int, ``1`` is not true, ``12.5`` is no
    whole number, ``"false"`` is not false, ``1740823200.0`` is no ISO-8601 time; such a value is unknown, never
    converted into a plausible one. An int beyond int64 is unknown too (no column can hold it). Other kinds are
    returned as they are.
    """
    if kind == "datetime":  # a number (epoch seconds? ms?), a flag or text that is no time: NaT, said as the others
        at = micros_of(values)
        bad = [(i, v) for i, v in enumerate(values) if at[i] == _NO_TIME and not _missing(v)]
    elif kind in _TYPED:
        fits = _EXTRA_FITS[kind]
        bad = [(i, v) for i, v in enumerate(values) if not (_missing(v) or fits(v))]
    else:
        return values, []
    if not bad:
        return values, []
    out = list(values)
    for i, _ in bad:
        out[i] = None
    return out, bad


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


def extra_problem(name: str, kind: str, value: Any) -> str:
    """Why a value of extra column ``name`` is read as unknown (``typed_values``)."""
    return f"column {quoted(name)} (type {kind}) is {_short(value)} (a JSON {_kind(value)}), not {_WANT[kind]}; read as unknown"


def _fits(kind: str, value: Any) -> bool:
    if kind == "int":
        return (type(value) is int) or (type(value) is float and value.is_integer())
    if kind == "float":
        return isinstance(value, _NUMBER) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "datetime":
        return isinstance(value, (str, datetime, date))
    if kind in ("str", "category"):
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)
    return True


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), type(value).__name__
    )


def _short(value: Any, limit: int = 40) -> str:
    return quoted(value, limit)  # redacted, then cut: read data may hold a key
