"""What a plot reads from its frame, checked before anything is drawn: one clear error naming the
columns that are missing and the frame that has them (a ``KeyError`` deep in pandas says neither)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

__all__ = ["need"]


def need(df: Any, columns: Iterable[str], what: str, frame: str) -> None:
    """Raise unless ``df`` is a DataFrame with every one of ``columns`` (``frame``: the loader that makes it)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} takes a DataFrame from noesis_nb.{frame}(source), not {type(df).__name__}")
    columns = list(columns)
    for c in columns:  # a by= list or None: pandas' "unhashable type" names neither
        if not isinstance(c, str):
            raise TypeError(f"{what}: {c!r:.60} is not a column name; pass one name such as by='model'")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs {frame} columns {missing}; pass noesis_nb.{frame}(source)")
