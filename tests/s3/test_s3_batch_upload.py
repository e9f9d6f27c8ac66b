"""batch(upload_to="s3://…"): every sealed run copied to (moto's) S3 with its manifest verified; runs_df reads them there."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.batch import UploadError, upload_run
from noesis_nb.frames import runs_ddf, runs_df

from ..batch.agents import echo, exact


def test_sealed_runs_are_uploaded_and_runs_df_reads_them_there(s3_endpoint, runs_dir: Path, monkeypatch) -> None:
    import s3fs

    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)  # s3fs (botocore) reads it: upload_to needs only the URL
    options = {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": s3_endpoint}}
    fs = s3fs.S3FileSystem(**options)
    fs.mkdir("noesis-batch")
    url = "s3://noesis-batch/team/runs"

    async def main():
        handle = noesis_nb.batch(["a", "b", "fail c"], using=echo, root=runs_dir, score=exact, upload_to=url)
        return await handle.wait()  # finished, and every run uploaded

    handle = asyncio.run(main())
    assert all(e.error is None for e in handle.entries), [e.error for e in handle.entries]
    remote = runs_df(url, storage_options=options).set_index("episode_id").sort_index()
    local = runs_df(runs_dir).set_index("episode_id").sort_index()
    assert sorted(remote.index) == sorted(handle.episode_ids)
    assert remote["manifest_ok"].tolist() == [True, True, True]
    pd.testing.assert_series_equal(remote["status"], local["status"], check_categorical=False)
    if importlib.util.find_spec("dask.dataframe") is not None:  # the dask extra: the same frame, partitioned
        ddf = runs_ddf(url, storage_options=options, runs_per_partition=2)
        assert ddf.npartitions == 2
        pd.testing.assert_frame_equal(
            ddf.compute(scheduler="sync").reset_index(drop=True),
            runs_df(url, storage_options=options).reset_index(drop=True),
            check_categorical=False,
        )


def test_a_run_that_does_not_match_its_manifest_is_not_uploaded(s3_endpoint, runs_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)

    async def main():
        return await noesis_nb.batch(["a"], using=echo, root=runs_dir)

    run_dir = asyncio.run(main()).entries[0].run_dir
    with (run_dir / "summary.json").open("a") as fh:
        fh.write(" ")
    with pytest.raises(UploadError, match="does not match its manifest"):
        upload_run(run_dir, "s3://noesis-batch/elsewhere")
