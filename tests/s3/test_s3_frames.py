"""Frames read straight from S3 (s3fs against a local moto server) equal the frames read from disk."""

from __future__ import annotations

import pandas as pd
import pytest

from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df

from ..frames.runkit import basic_events, hand_summary, make_engine_runs, write_run


@pytest.fixture(scope="module")
def uploaded(s3_endpoint, tmp_path_factory):
    import s3fs

    root = tmp_path_factory.mktemp("s3src") / "runs"
    ids = make_engine_runs(root)
    write_run(
        root / "legacy-label", "ep_hand", basic_events("ep_hand"), style="old", summary=hand_summary("ep_hand", task="by hand")
    )
    fs = s3fs.S3FileSystem(key="testing", secret="testing", client_kwargs={"endpoint_url": s3_endpoint})
    fs.mkdir("noesis-test")
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        fs.put_file(str(path), f"noesis-test/team/runs/{path.relative_to(root).as_posix()}")
    options = {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": s3_endpoint}}
    return root, ids, options


def _same(local: pd.DataFrame, remote: pd.DataFrame, drop: tuple[str, ...] = ("run_dir",)) -> None:
    pd.testing.assert_frame_equal(
        local.drop(columns=[c for c in drop if c in local]),
        remote.drop(columns=[c for c in drop if c in remote]),
        check_categorical=False,
    )


def test_frames_from_s3_match_local(uploaded):
    root, ids, options = uploaded
    url = "s3://noesis-test/team/runs"
    clear_cache()
    remote_runs = runs_df(url, storage_options=options)
    assert len(remote_runs) == len(ids) + 1 and remote_runs["run_dir"].str.startswith("s3://noesis-test/team/runs/").all()
    _same(runs_df(root), remote_runs)
    statuses = dict(zip(remote_runs["episode_id"], remote_runs["status"].astype(str)))
    assert statuses[ids["paused"]] == "paused" and statuses[ids["veto_enforce"]] == "vetoed" and statuses["ep_hand"] == "ok"
    assert remote_runs.set_index("episode_id").loc[ids["success"], "manifest_ok"]
    _same(events_df(root), events_df(url, storage_options=options))
    _same(tools_df(root), tools_df(url, storage_options=options))
    _same(usage_df(root), usage_df(url, storage_options=options))
    one = events_df(f"{url}/{ids['success']}", storage_options=options)
    assert set(one["episode_id"]) == {ids["success"]} and len(one) == (root / ids["success"] / "events.jsonl").read_bytes().count(
        b"\n"
    )


def test_missing_s3_extra_is_explained(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_fsspec(name, *args, **kwargs):
        if name == "fsspec" or name.startswith("fsspec."):
            raise ImportError("no fsspec")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_fsspec)
    with pytest.raises(ImportError, match=r"pip install 'noesis_nb\[s3\]'"):
        runs_df("s3://bucket/prefix")
