"""``runs_ddf`` / ``events_ddf``: the same frames as Dask DataFrames, one partition per group of run directories.

Each partition is ``runs_df`` / ``events_df`` of its run directories (local paths or fsspec URLs), so the
values are those of the pandas frames; on a ``distributed`` cluster the partitions load on the workers.
``runs_df`` has a ``tags_<key>`` column per tag found, so ``runs_ddf`` first gathers the tag keys (one small
task per partition, also on the cluster) and gives every partition the same columns. Needs the ``dask``
extra with ``dask[dataframe]`` (which brings pyarrow).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import InvalidOptionError, MissingExtraError
from ..secrets.quoted import quoted
from .events import events_df
from .runs import runs_df
from .source import Source, resolve_source

__all__ = ["runs_ddf", "events_ddf"]


def _dask() -> tuple[Any, Any]:
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise MissingExtraError(
            f"runs_ddf / events_ddf need Dask DataFrames, which are not installed ({exc}); "
            "install them with: pip install 'noesis_nb[dask]'"
        ) from exc
    return dask, dd


def _chunks(source: Source, storage_options: dict[str, Any] | None, per: int) -> list[list[str]]:
    if not isinstance(per, int) or isinstance(per, bool) or per < 1:
        raise InvalidOptionError(f"runs_per_partition={quoted(per)}: pass a whole number ≥ 1")
    urls = [ref.url for ref in resolve_source(source, storage_options=storage_options)]
    return [urls[i : i + per] for i in range(0, len(urls), per)]


def _tag_keys(chunk: list[str], storage_options: dict[str, Any] | None) -> set[str]:
    return {c for c in runs_df(chunk, storage_options=storage_options, progress=False).columns if c.startswith("tags_")}


def _runs_part(
    chunk: list[str], storage_options: dict[str, Any] | None, names: list[str], columns: list[str] | None = None
) -> pd.DataFrame:
    """One partition: ``runs_df`` of ``chunk`` with every column of the whole frame (``columns``: Dask's projection)."""
    df = runs_df(chunk, storage_options=storage_options, progress=False)
    for name in names:
        if name not in df:
            df[name] = pd.Series([None] * len(df), dtype=object)
    return df[names if columns is None else list(columns)]


def runs_ddf(source: Source = None, *, storage_options: dict[str, Any] | None = None, runs_per_partition: int = 200) -> Any:
    """``runs_df(source)`` as a Dask DataFrame of ``runs_per_partition`` runs a partition (index: row number in each)."""
    dask, dd = _dask()
    chunks = _chunks(source, storage_options, runs_per_partition)
    empty = runs_df([], progress=False)
    if not chunks:
        with dask.config.set({"dataframe.convert-string": False}):
            return dd.from_pandas(empty, npartitions=1)
    keys = sorted(set().union(*dask.compute(*[dask.delayed(_tag_keys)(c, storage_options) for c in chunks])))
    meta = empty.assign(**{k: pd.Series([], dtype=object) for k in keys})
    with dask.config.set({"dataframe.convert-string": False}):  # the partitions' own dtypes, as runs_df gives them
        return dd.from_map(
            _runs_part, chunks, args=(storage_options, list(meta.columns)), meta=meta, enforce_metadata=False, label="runs_df"
        )


def _events_part(chunk: list[str], storage_options: dict[str, Any] | None, options: dict[str, Any]) -> pd.DataFrame:
    return events_df(chunk, storage_options=storage_options, progress=False, **options)


def events_ddf(
    source: Source = None,
    *,
    storage_options: dict[str, Any] | None = None,
    runs_per_partition: int = 50,
    **options: Any,
) -> Any:
    """``events_df(source, **options)`` as a Dask DataFrame, ``runs_per_partition`` runs a partition."""
    dask, dd = _dask()
    chunks = _chunks(source, storage_options, runs_per_partition)
    meta = events_df([], progress=False, **options)
    if not chunks:
        return dd.from_pandas(meta, npartitions=1)
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_map(
            _events_part, chunks, args=(storage_options, options), meta=meta, enforce_metadata=False, label="events_df"
        )
