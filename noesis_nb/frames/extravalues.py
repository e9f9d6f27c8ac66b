"""Extra columns (``columns=[Column(...)]``) of the small frames typed by one rule, their odd values reported.

A value of another kind than the column's (``"false"`` in a bool column, ``"12"`` or ``12.5`` in an int one) is
read as unknown, as the frames' own columns read theirs (``coerce.typed_values``), and said once per place (a run's
file) that holds some: the first such value named, the others counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from . import _arrays
from .coerce import extra_problem, typed_values
from .columns import Column
from .problems import LoadProblem

__all__ = ["extra_series", "said_once", "typed_values"]


def extra_series(column: Column, values: list[Any], places: Sequence[str]) -> tuple[pd.Series, list[LoadProblem]]:
    """``column``'s Series of ``values`` (row ``i`` read from ``places[i]``) and the problems of its odd values."""
    kept, bad = typed_values(column.type, values)
    by_place: dict[str, list[tuple[int, Any]]] = {}
    for i, value in bad:
        by_place.setdefault(places[i], []).append((i, value))
    problems = [LoadProblem(place, None, said_once(column, found)[1]) for place, found in by_place.items()]
    return _arrays.series_of(column.type, kept), problems


def said_once(column: Column, bad: list[tuple[int, Any]]) -> tuple[int, str]:
    """(index of the first odd value of one place, why it is read as unknown, the others of the place counted)."""
    (index, value), more = bad[0], len(bad) - 1
    return index, extra_problem(column.name, column.type, value) + (f" ({more} more like it here)" if more else "")
