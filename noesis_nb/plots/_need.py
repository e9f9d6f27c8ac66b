"""What a plot reads from its frame, checked before anything is drawn: one clear error naming the
columns that are missing and the frame that has them (a ``KeyError`` deep in pandas says neither)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..errors import InvalidOptionError
from ..frames.columns import EVENT_COLUMNS, RUN_COLUMNS, TOOL_COLUMNS, USAGE_COLUMNS
from ..secrets.quoted import quoted

__all__ = ["as_times", "need"]

_FRAME_COLUMNS = {"runs_df": RUN_COLUMNS, "events_df": EVENT_COLUMNS, "tools_df": TOOL_COLUMNS, "usage_df": USAGE_COLUMNS}


def need(df: Any, columns: Iterable[str], what: str, frame: str, *, by: Any = None, times: bool = True) -> None:
    """Raise unless ``df`` is a DataFrame with every one of ``columns`` (``frame``: the loader that makes it).

    ``by``: the column the caller chose (one of ``columns``); when it alone is missing from the right frame, the
    error names it as a misspelt ``by=`` rather than asking for another frame. ``times=False``: a ``timestamp``
    column of text or dates is the caller's to read (``as_times``), not refused here."""
    if not isinstance(df, pd.DataFrame):
        raise InvalidOptionError(f"{what} takes a DataFrame from noesis_nb.{frame}(source), not {type(df).__name__}")
    columns = list(columns)
    for c in columns:  # a by= list or None: pandas' "unhashable type" names neither
        if not isinstance(c, str):
            raise InvalidOptionError(f"{what}: {quoted(c, 60)} is not a column name; pass one name such as by='model'")
    missing = [c for c in columns if c not in df.columns]
    if missing == [by] and by not in _FRAME_COLUMNS.get(frame, ()):  # a column the right frame would have: another frame
        known = [str(c) for c in df.columns]
        close = difflib.get_close_matches(str(by), known, n=1, cutoff=0.6)
        guess = f" (did you mean {quoted(close[0])}?)" if close else ""
        raise InvalidOptionError(
            f"{what}: by={quoted(by)} is not a column of the {frame} frame{guess}; pass by= one of its columns"
        )
    if missing:
        raise InvalidOptionError(f"{what} needs {frame} columns {missing}; pass noesis_nb.{frame}(source)")
    if times and "timestamp" in columns and not _times(df["timestamp"]):  # e.g. written to CSV and read back
        raise _not_times(df["timestamp"], what)


_NUMBERS = ("integer", "floating", "mixed-integer-float", "decimal")  # numbers kept in an object column


def as_times(column: pd.Series, what: str) -> pd.Series:
    """``column`` as times: as it is when it holds times or numbers, else read as times (ISO text, ``datetime.date``
    values, which plots took before they were checked); what cannot be read is the one error ``need`` gives."""
    if pd.api.types.is_datetime64_any_dtype(column):
        return column
    if pd.api.types.is_bool_dtype(column):
        raise _not_times(column, what)
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.infer_dtype(column, skipna=True) in _NUMBERS:
        return column  # numbers (Unix seconds, a step count) plot as numbers, as before; read as times they'd be ns
    try:
        return pd.to_datetime(column, utc=True, format="mixed")
    except (ValueError, TypeError, OverflowError):
        raise _not_times(column, what) from None


def _not_times(column: pd.Series, what: str) -> InvalidOptionError:
    return InvalidOptionError(
        f"{what}: the timestamp column holds {column.dtype} values, not times; "
        "turn them back into times with df['timestamp'] = pd.to_datetime(df['timestamp'], utc=True)"
    )


def _times(column: pd.Series) -> bool:
    """Whether ``column`` holds times (as the frames give them, or as datetime objects), not text or numbers."""
    if pd.api.types.is_datetime64_any_dtype(column):
        return True
    return pd.api.types.infer_dtype(column, skipna=True) in ("datetime", "datetime64", "empty")
