"""runs_ddf / events_ddf equal runs_df / events_df on a small corpus (local), partitioned by run directories."""

from __future__ import annotations

import pandas as pd
import pytest

from noesis_nb.frames import events_ddf, events_df, runs_ddf, runs_df

from .runkit import make_engine_runs

dd = pytest.importorskip("dask.dataframe", reason="runs_ddf needs dask[dataframe]: pip install 'noesis_nb[dask]'")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("ddf") / "runs"
    make_engine_runs(root)
    return root


def _same(pandas_frame: pd.DataFrame, dask_frame) -> None:
    computed = dask_frame.compute(scheduler="sync").reset_index(drop=True)
    expected = pandas_frame.reset_index(drop=True)
    assert list(computed.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(computed, expected, check_categorical=False)


def test_runs_ddf_equals_runs_df(corpus) -> None:
    ddf = runs_ddf(corpus, runs_per_partition=3)
    assert ddf.npartitions >= 3
    expected = runs_df(corpus)
    assert any(c.startswith("tags_") for c in expected.columns), "tag columns are found in some partitions only"
    _same(expected, ddf)


def test_events_ddf_equals_events_df(corpus) -> None:
    ddf = events_ddf(corpus, runs_per_partition=2, phases="tool")
    _same(events_df(corpus, phases="tool"), ddf)
    assert ddf.npartitions >= 2


def test_an_empty_root_and_a_bad_partition_size(tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    assert len(runs_ddf(tmp_path / "empty").compute()) == 0
    with pytest.raises(ValueError, match="runs_per_partition=0"):
        runs_ddf(tmp_path / "empty", runs_per_partition=0)
