"""Typed column storage for the event hot path: build compact arrays from Python lists, slice, concatenate.

With pyarrow (pandas 3 uses it for ``str``) strings become Arrow arrays and low-cardinality text
becomes dictionary arrays, so loaded batches hold no Python string objects; without pyarrow the
same interface falls back to numpy object arrays and ``pd.Categorical``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .timetext import NAT, micros_of

try:  # optional accelerator
    import pyarrow as pa
except ImportError:  # pragma: no cover - exercised where pyarrow is absent
    pa = None

__all__ = [
    "objects",
    "iso_to_utc",
    "build",
    "concat",
    "to_pandas",
    "HAVE_ARROW",
    "series_of",
    "timestamps",
    "categorical",
    "canonical",
    "detached",
    "missing",
    "text_values",
    "utc_times",
]

HAVE_ARROW = pa is not None
_STR = pd.Index([], dtype="str").dtype
_TEXT_TYPES = {str, type(None)}
_PANDAS3 = int(pd.__version__.split(".")[0]) >= 3
_DICT = pa.dictionary(pa.int32(), pa.string()) if HAVE_ARROW else None
_TS = "datetime64[us, UTC]"


def iso_to_utc(values: Any) -> pd.Series:
    """Text times → ``datetime64[us, UTC]`` by ``timetext``'s rule, value by value (not a time → NaT).

    Not ``pd.to_datetime``: it reads "now"/"today" as the moment of the load, and reads a value
    differently depending on the values beside it; a run's time must mean one instant always.
    """
    micros = micros_of(values)
    return pd.Series(micros.view("M8[us]")).dt.tz_localize("UTC")


def timestamps(values: list[Any]) -> Any:
    """ISO-8601 strings → UTC timestamps (not a time → NaT): the writer's fixed shape parsed on arrays, the rest by
    ``timetext``'s rule, with or without pyarrow (so both installs hold the same instants)."""
    from .isotimes import TimeColumn  # it imports this module

    column = TimeColumn()
    column.extend(values)
    return utc_times(column.micros()[0])


def utc_times(micros: np.ndarray, *, arrow: bool = True) -> Any:
    """UTC microseconds (``NAT``: unknown) as a batch's timestamp column: with pyarrow (and ``arrow``) an Arrow array
    built from the integers, nulls where unknown (no pandas round trip), else ``datetime64[us, UTC]``."""
    if HAVE_ARROW and arrow:
        return pa.array(micros, type=pa.timestamp("us", tz="UTC"), mask=micros == NAT)
    return pd.Series(micros.view("M8[us]")).dt.tz_localize("UTC").array


def categorical(values: Any) -> pd.Categorical:
    """Text values (None: missing) as a Categorical whose categories are sorted ``str`` — also when there are none.

    One canonical form, so categoricals built from different batches (one with no values, one
    read before a new run added a category) always concatenate and compare equal to a cold load.
    """
    codes, uniques = pd.factorize(objects(values), sort=True, use_na_sentinel=True)
    return pd.Categorical.from_codes(codes, categories=pd.Index(np.asarray(uniques, dtype=object), dtype="str"))


def canonical(cat: pd.Categorical) -> pd.Categorical:
    """``cat`` with ``str`` categories in sorted order (the codes remapped), whatever order its parts were built in."""
    cats = cat.categories
    if cats.dtype != _STR or not cats.is_monotonic_increasing:
        order = np.argsort(np.asarray(cats, dtype=object), kind="stable")
        remap = np.empty(len(cats), dtype=np.int64)
        remap[order] = np.arange(len(cats))
        codes = np.asarray(cat.codes, dtype=np.int64)
        if len(cats):
            codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
        cat = pd.Categorical.from_codes(codes, categories=pd.Index(np.asarray(cats, dtype=object)[order], dtype="str"))
    return cat


def detached(df: pd.DataFrame) -> pd.DataFrame:
    """A frame the caller may modify without touching the cached one it came from.

    pandas 3 copies on write, so a shallow copy is enough (and free); older pandas gets a
    deep copy of the columns (payload dicts stay shared either way).
    """
    cow = _PANDAS3 or getattr(pd.options.mode, "copy_on_write", False) is True
    return df.copy(deep=not cow)


def counts(values: np.ndarray) -> pd.arrays.IntegerArray:
    """Whole-number counts held as float64 with NaN for unknown (how they are summed and priced) as nullable Int64."""
    known = ~np.isnan(values)
    out = np.zeros(len(values), dtype=np.int64)
    out[known] = values[known]
    return pd.arrays.IntegerArray(out, ~known)


def missing(data: Any) -> np.ndarray:
    """Where a built column holds no value (null / NaT), as a numpy bool array."""
    if HAVE_ARROW and isinstance(data, (pa.Array, pa.ChunkedArray)):
        return np.asarray(data.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    return np.asarray(pd.isna(data), dtype=bool)


def build(kind: str, values: list[Any]) -> Any:
    """Compact storage for one batch of one column."""
    if kind == "datetime":
        return timestamps(values)
    if HAVE_ARROW and kind in ("str", "category"):
        typ = _DICT if kind == "category" else pa.string()
        try:
            return pa.array(values, type=typ)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return pa.array([_text(v) for v in values], type=typ)
    if HAVE_ARROW and kind == "float":
        try:
            return pa.array(values, type=pa.float64(), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return pa.array([_float(v) for v in values], type=pa.float64(), from_pandas=True)
    if kind == "float":
        try:
            return np.array(values, dtype=np.float64)
        except (TypeError, ValueError):
            return np.array([_float(v) for v in values], dtype=np.float64)
    if kind == "category":
        return categorical(text_values(values))
    return objects(values)


def objects(values: Any) -> np.ndarray:
    """``values`` as a 1-D object array, each item kept as it is (a list or tuple item is not spread out)."""
    return np.fromiter(values, dtype=object, count=len(values))


def text_values(values: list[Any]) -> list[Any]:
    """``values`` as str or None for a text column (``_text`` applied only when some value is neither)."""
    return values if set(map(type, values)) <= _TEXT_TYPES else [_text(v) for v in values]


def _text(value: Any) -> str | None:
    """A non-string value in a text column: a tool dict as ``namespace.name@version``, else its JSON-ish str."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and value.get("name"):
        ns, version = value.get("namespace"), value.get("version")
        return (f"{ns}." if ns else "") + str(value["name"]) + (f"@{version}" if version not in (None, "") else "")
    return str(value)


def _int(value: Any) -> int | None:
    """A value of an ``int`` column: None (NA) when it has no int64 value (text that is no number, a list, an
    object, infinity, a number beyond int64), so one odd value never stops the frame."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if -(2**63) <= number < 2**63 else None


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def concat(kind: str, parts: list[Any]) -> Any:
    """One array from slices of batch arrays (same kind)."""
    if not parts:
        return build(kind, [])
    if HAVE_ARROW and isinstance(parts[0], (pa.Array, pa.ChunkedArray)):
        return parts[0] if len(parts) == 1 else pa.chunked_array(parts)
    if kind == "category":
        return parts[0] if len(parts) == 1 else pd.api.types.union_categoricals(parts, sort_categories=True)
    if kind == "datetime":
        return parts[0] if len(parts) == 1 else pd.concat([pd.Series(p) for p in parts], ignore_index=True).array
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def to_pandas(kind: str, data: Any) -> Any:
    """The pandas array for a column (zero-copy where Arrow allows)."""
    if HAVE_ARROW and isinstance(data, (pa.Array, pa.ChunkedArray)):
        if kind == "category":
            if isinstance(data, pa.ChunkedArray):
                data = data.unify_dictionaries()
            got = data.to_pandas().array if isinstance(data, pa.ChunkedArray) else pd.Series(data.to_pandas()).array
            return canonical(got)
        series = data.to_pandas()
        if kind == "str":
            return series.astype("str").array if series.dtype == object else series.array
        if kind == "datetime":
            return pd.Series(series).dt.as_unit("us").array
        return np.asarray(series)
    if kind == "str":
        return pd.array(data, dtype="str") if _PANDAS3 else data
    if kind == "category":
        return canonical(data)
    return data


def series_of(kind: str, values: list[Any], index: Any = None) -> pd.Series:
    """A typed Series straight from Python values (small frames: runs, tools, usage)."""
    if kind == "datetime":
        return pd.Series(
            iso_to_utc(values).dt.as_unit("us").array,
            index=index,
        )
    if kind == "float":
        return pd.Series(
            build("float", values)
            if not HAVE_ARROW
            else np.array([_float(v) if v is not None else np.nan for v in values], dtype=np.float64),
            index=index,
        )
    if kind == "int":
        return pd.Series(pd.array([_int(v) for v in values], dtype="Int64"), index=index)
    if kind == "bool":
        return pd.Series(pd.array([None if v is None else bool(v) for v in values], dtype="boolean"), index=index)
    if kind == "category":
        return pd.Series(categorical([v if v is None or isinstance(v, str) else str(v) for v in values]), index=index)
    if kind == "str":
        return pd.Series([v if v is None or isinstance(v, str) else str(v) for v in values], dtype="str", index=index)
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return pd.Series(arr, index=index, dtype=object)
