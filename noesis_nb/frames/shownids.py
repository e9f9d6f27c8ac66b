"""A frame's ids and run folders as a person may see them: redacted by the one secret rule (``secrets.shown``).

A run folder named with a credential (``ep_ghp_…``, copied into a shared root) is read, and its rows name it
``[REDACTED:<mark>]`` in ``episode_id``, ``/root/[REDACTED:<mark>]`` in ``run_dir`` (the root as given) and
``draft:[REDACTED:<mark>]:req_…`` in ``draft_id``, as every view names it (minted ids, UUIDs and hex digests are ids,
kept: ``ids.is_minted``). The mark is a keyed hash of the text hidden (``secrets.namemarks``): two runs named with two
tokens are two ids, which a groupby or a join keeps apart. Those shown values still open the run
(``store.shownnames.found_shown``):
``show(row.run_dir)``, ``runs_df(row.run_dir)``, ``runs_df(root, episodes=df.episode_id.unique())``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..ids import MINTED
from ..store.shownnames import shown_ids, shown_parts

__all__ = ["ID_COLUMNS", "ids_shown", "ids_minted", "names_of"]

#: the columns naming a run by its folder: its id, its path or URL, ids made of the run's id
ID_COLUMNS = ("episode_id", "run_dir", "draft_id", "batch_id")


def _column(values: pd.Series, revealed: frozenset[str]) -> pd.Series | None:
    """``values`` with each shown, or None when none changes (one ``shown`` per distinct value)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        names = list(values.cat.categories)
        # a minted name is kept without a call (a cold load's budget of Python calls a run: two columns a run)
        texts = [n for n in names if isinstance(n, str) and not MINTED.fullmatch(n.rpartition("/")[2])]
        shown = dict(zip(texts, shown_ids(texts, revealed)))
        out = [shown.get(n, n) if isinstance(n, str) else n for n in names]
        if out == names:
            return None
        if len(set(out)) == len(out):
            return values.cat.rename_categories(out)
        return values.astype(object).map(dict(zip(names, out))).astype("category")  # two ids shown alike
    distinct = values.dropna().unique()
    texts = [v for v in distinct if isinstance(v, str) and not MINTED.fullmatch(v.rpartition("/")[2])]
    changed = {v: s for v, s in zip(texts, shown_ids(texts, revealed)) if s != v}
    if not changed:
        return None
    return values.map(lambda v: changed.get(v, v) if isinstance(v, str) else v).astype(values.dtype)


def ids_minted(df: pd.DataFrame) -> bool:
    """Whether every id and run folder in ``df`` is minted: ``ids_shown`` then changes none of its columns, in any
    process (a minted name is kept without a call), so a kept frame (``keptframe``) is served without looking again."""
    for name in ID_COLUMNS:
        if name in df.columns:
            values = df[name]
            distinct = values.cat.categories if isinstance(values.dtype, pd.CategoricalDtype) else values.dropna().unique()
            if any(isinstance(v, str) and not MINTED.fullmatch(v.rpartition("/")[2]) for v in distinct):
                return False
    return True


def names_of(df: pd.DataFrame) -> list[str]:
    """The names ``ids_shown`` shows of ``df``: the last part of each distinct id and run folder not minted."""
    names: set[str] = set()
    for name in ID_COLUMNS:
        if name in df.columns:
            values = df[name]
            distinct = values.cat.categories if isinstance(values.dtype, pd.CategoricalDtype) else values.dropna().unique()
            names.update(last for v in distinct if isinstance(v, str) and not MINTED.fullmatch(last := v.rpartition("/")[2]))
    return sorted(names)


def ids_shown(df: pd.DataFrame, *, minted: bool = False, revealed: frozenset[str] = frozenset()) -> pd.DataFrame:
    """``df`` (a frame a reader returns) with its id and run-folder columns and its problems' paths shown; the same
    object when nothing in them holds a secret (every run noesis_nb writes: their ids are refused with one).
    ``minted``: ``ids_minted(df)`` is known true (only the problems' paths are looked at). ``revealed``: what the
    load's runs reveal as secrets (all of them, a load of one run too: its rows' texts hide them already, its folder's
    name not), hidden in the ids as a value the environment holds is (``shown_ids``)."""
    columns = {} if minted else {n: new for n in ID_COLUMNS if n in df.columns and (new := _column(df[n], revealed)) is not None}
    errors = df.attrs.get("errors")
    shown_errors = _errors(errors) if isinstance(errors, list) else None
    if not columns and shown_errors is None:
        return df
    out = df.copy(deep=False)  # a kept or cached frame is never changed
    for name, new in columns.items():
        out[name] = new
    if shown_errors is not None:
        out.attrs = {**df.attrs, "errors": shown_errors}
    return out


def _errors(errors: list[Any]) -> list[Any] | None:
    """``df.attrs["errors"]`` with each problem's path shown; None when none changes."""
    out = []
    changed = False
    for error in errors:
        path = error.get("path") if isinstance(error, dict) else None
        if isinstance(path, str) and (new := shown_parts(path)) != path:
            error, changed = {**error, "path": new}, True
        out.append(error)
    return out if changed else None
