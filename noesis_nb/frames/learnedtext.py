"""Every frame hides the values this process has learned as secrets, whenever it learned them.

A value the kernel learns after a run's rows were made (a later episode names it as a password) was not hidden in
those rows: the cached events, the kept run rows and the memoised frames hold them as they were made, and a cold
``runs_df`` (whose texts pass ``shown``) hid it where ``events_df`` showed it. Each frame's text columns are
scrubbed here with ``known_shown()`` (what ``shown`` hides) on their way out: nothing to do while nothing is learned,
and a column already scrubbed with the same values (the same array, served again from a cache) is not read again.

A load also hides what any of its runs reveals (``also``: a password run A names, echoed by run B in the same root,
is hidden in B's rows too, cached or not), as it hides what the process learned.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import orjson
import pandas as pd

from ..secrets.guard import RunSecrets, known_shown
from .shownids import ID_COLUMNS

__all__ = ["learned_hidden", "hidden_values"]

_SLICE = 4096  # values judged by one JSON pass: only a slice that may hold a value is scrubbed value by value
_GUARD: tuple[tuple[str, ...] | None, RunSecrets | None] = (None, None)
# (id of a column's values, id of the learned values) -> (the values, the learned values, the scrubbed values or None)
_DONE: OrderedDict[tuple[int, int], tuple[Any, Any, Any]] = OrderedDict()
_DONE_MAX = 64


#: what was found holding none of the learned values (``_CLEAN[0]``): payloads by identity (a warm load serves the
#: same cached objects in new columns), texts by value; each judged once while the learned values stay the same
_CLEAN: tuple[tuple[str, ...] | None, dict[int, Any], set[str]] = (None, {}, set())
_CLEAN_MAX = 1 << 21


def _clean_under(values: tuple[str, ...]) -> tuple[dict[int, Any], set[str]]:
    global _CLEAN
    if _CLEAN[0] is not values:
        _CLEAN = (values, {}, set())
    return _CLEAN[1], _CLEAN[2]


def _remember_clean(clean: dict[int, Any], texts: set[str], items: list[Any]) -> None:
    if len(clean) + len(texts) + len(items) > _CLEAN_MAX:
        clean.clear()
        texts.clear()
    for v in items:
        if type(v) is str:
            texts.add(v)
        elif isinstance(v, (dict, list)):  # numbers, None and NaN hold none
            clean[id(v)] = v  # kept alive with its id, so the id is never another object's


def _guard(values: tuple[str, ...]) -> RunSecrets:
    global _GUARD
    if _GUARD[0] is not values or _GUARD[1] is None:
        guard = RunSecrets()
        guard.learn(values)
        _GUARD = (values, guard)
    return _GUARD[1]  # type: ignore[return-value]


#: (the learned values, a load's revealed values, both as one tuple): the same tuple while neither changes, so the
#: caches keyed by its identity serve again
_BOTH: tuple[tuple[str, ...], frozenset[str], tuple[str, ...]] = ((), frozenset(), ())


def hidden_values(also: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The values every frame hides: those the process learned (``known_shown``) and ``also``, what the runs of the
    load reveal."""
    global _BOTH
    known = known_shown()
    if not also or also.issubset(known):
        return known
    if _BOTH[0] is known and _BOTH[1] == also:
        return _BOTH[2]
    both = tuple(sorted({*known, *also}, key=len, reverse=True))
    _BOTH = (known, also, both)
    return both


def learned_hidden(df: pd.DataFrame, also: frozenset[str] = frozenset()) -> pd.DataFrame:
    """``df`` with the learned values and ``also`` (what the load's runs reveal) hidden in its text columns (ids are
    ``ids_shown``'s); ``df`` itself when none is there. Categories are scrubbed as categories, so a column of a few
    distinct texts costs a few scrubs."""
    values = hidden_values(also)
    if not values or df.empty:
        return df
    guard = _guard(values)
    changed: dict[str, Any] = {}
    for name in df.columns:
        if name in ID_COLUMNS:
            continue
        column = df[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            cats = column.cat.categories
            if cats.dtype == object or pd.api.types.is_string_dtype(cats.dtype):
                out = _scrubbed(cats.to_numpy(dtype=object), values, guard, cats)
                if out is not None:
                    changed[name] = _categories(column, list(out))
        elif column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
            array = column.array
            out = _scrubbed(column.to_numpy(dtype=object), values, guard, array)
            if out is not None:
                changed[name] = pd.Series(out, index=column.index, dtype=column.dtype, name=name)
    if not changed:
        return df
    df = df.copy(deep=False)
    for name, series in changed.items():
        df[name] = series
    return df


def _categories(column: pd.Series, out: list[Any]) -> pd.Series:
    names = list(column.cat.categories)
    if len(set(out)) == len(out):
        return column.cat.rename_categories(out)
    return column.astype(object).map(dict(zip(names, out))).astype("category")  # two texts shown alike


def _scrubbed(items: np.ndarray, values: tuple[str, ...], guard: RunSecrets, owner: Any) -> list[Any] | None:
    """``items`` scrubbed of ``values`` (None when none holds one); remembered by ``owner``'s identity (the column's
    array, kept alive with the answer), so the same array served again costs a dict lookup."""
    key = (id(owner), id(values))
    done = _DONE.get(key)
    if done is not None and done[0] is owner and done[1] is values:
        _DONE.move_to_end(key)
        return done[2]  # type: ignore[no-any-return]
    seq = list(items)
    out = None
    clean, texts = _clean_under(values)
    for start in range(0, len(seq), _SLICE):
        part = seq[start : start + _SLICE]
        # what may hold a value and was not judged on an earlier load (a cached row's payload; a text by its value)
        unread = [
            v
            for v in part
            if (v not in texts if type(v) is str else clean.get(id(v)) is not v and isinstance(v, (dict, list, str)))
        ]
        if not unread:
            continue
        try:
            # one line each, as a log holds them (the guard reads a list split across one line's records as one)
            blob = b"\n".join([orjson.dumps(v, default=str) for v in unread])
        except (TypeError, orjson.JSONEncodeError):  # a key that is no text: each value scrubbed
            blob = None
        if blob is not None and not guard._holds(blob):
            _remember_clean(clean, texts, unread)
            continue
        got = [guard.scrub(v) if isinstance(v, (str, dict, list)) else v for v in part]
        _remember_clean(clean, texts, [a for a, b in zip(part, got) if a is b])
        if any(a is not b for a, b in zip(got, part)):
            out = seq if out is None else out
            out[start : start + _SLICE] = got
    _DONE[key] = (owner, values, out)
    if len(_DONE) > _DONE_MAX:
        _DONE.popitem(last=False)
    return out
