"""A sealed run edited in place with every size kept (a count 90 made 99, an outcome rewritten) is reported by the
default quick check of every frame, per file, cold, warm and from the runs index: its tokens are unknown, as after an
edit that changes a size. A copy that moves the files' times with the same bytes (``cp`` without ``-p``) is not
reported, and each of its files is hashed once per process, not at every load."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import sealsizes
from noesis_nb.frames.cache import CACHE

from ..conftest import REPO

CHANGED = "changed since the manifest sealed the run"


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=90, cached_input_tokens=400, reasoning_tokens=10)
    return "ok"


def _edit_same_size(path: Path, old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
    data = path.read_bytes()
    assert data.count(old) == 1, (path, old)
    with open(path, "r+b") as fh:  # in place: same file, same size, a new mtime
        fh.write(data.replace(old, new))


def _loads(root: Path, cache: bool) -> dict[str, pd.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "runs_df": noesis_nb.runs_df(root, cache=cache),
            "usage_df": noesis_nb.usage_df(root, cache=cache),
            "events_df": noesis_nb.events_df(root, cache=cache),
        }


def _changed(df: pd.DataFrame) -> set[str]:
    return {Path(e["path"]).name for e in df.attrs["errors"] if CHANGED in e["reason"]}


def _sealed_run(runs_dir: Path) -> str:
    return noesis_nb.solve("count", using=_agent, runs_dir=runs_dir)


def test_a_same_size_edit_is_reported_cold_warm_and_from_the_index(runs_dir: Path, tmp_path: Path) -> None:
    ep = _sealed_run(runs_dir)
    _sealed_run(runs_dir)  # a second run: the runs index serves folders of runs
    clean = _loads(runs_dir, cache=True)  # read once before the edit: the warm path must see it
    assert clean["runs_df"].set_index("episode_id").loc[ep, "output_tokens"] == 90
    run = runs_dir / ep
    _edit_same_size(run / "events.jsonl", b'"output_tokens":90', b'"output_tokens":99')
    _edit_same_size(run / "final.json", b'"outcome": "success"', b'"outcome": "error!!"')
    for cache in (True, True, False):  # warm (the run cached before the edit), warm again, cold
        frames = _loads(runs_dir, cache)
        row = frames["runs_df"].set_index("episode_id").loc[ep]
        assert not pd.isna(row["manifest_ok"]) and not row["manifest_ok"]
        assert pd.isna(row["output_tokens"]) and pd.isna(row["cost_usd"])
        assert _changed(frames["runs_df"]) == {"events.jsonl", "final.json"}
        usage = frames["usage_df"][frames["usage_df"]["episode_id"] == ep]
        assert usage["output_tokens"].isna().all() and not usage["priced"].any()
        assert _changed(frames["usage_df"]) == _changed(frames["events_df"]) == {"events.jsonl", "final.json"}
    # a new process, served by the runs index the loads above left (the other run from it): the same verdict
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, warnings; warnings.simplefilter('ignore'); import noesis_nb; "
            "df = noesis_nb.runs_df(sys.argv[1]).set_index('episode_id'); "
            "print(df.loc[sys.argv[2], 'manifest_ok'], df['output_tokens'].isna().sum(), "
            "sorted({e['path'].rsplit('/', 1)[-1] for e in df.attrs['errors'] if sys.argv[3] in e['reason']}))",
            str(runs_dir),
            ep,
            CHANGED,
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == ["False", "1", "['events.jsonl',", "'final.json']"], child.stdout


def test_a_copy_with_new_times_is_hashed_once_and_not_reported(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ep = _sealed_run(runs_dir)
    _sealed_run(runs_dir)
    hashed: list[str] = []
    real = sealsizes._hashed_same

    def counted(path: str, stat: Any, digest: str) -> tuple[bool, bool]:
        hashed.append(path)
        return real(path, stat, digest)

    monkeypatch.setattr(sealsizes, "_hashed_same", counted)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(runs_dir), str(copy)], check=True)  # no -p: every file gets a new mtime
    manifest_mtime = (copy / ep / "manifest.json").stat().st_mtime_ns
    os.utime(copy / ep / "manifest.json", ns=(manifest_mtime, manifest_mtime - 10**9))  # copied first, as cp may
    for cache in (False, False, True):
        frames = _loads(copy, cache)
        for name, df in frames.items():
            assert df.attrs["errors"] == [], (name, df.attrs["errors"])
        row = frames["runs_df"].set_index("episode_id").loc[ep]
        assert bool(row["manifest_ok"]) and row["output_tokens"] == 90 and frames["usage_df"]["priced"].all()
    assert hashed, "the files modified after the manifest are hashed"
    assert len(hashed) == len(set(hashed)), "each file is hashed once, however often it is loaded"
    # an edit in the copy after that is seen, cold and warm
    _edit_same_size(copy / ep / "events.jsonl", b'"output_tokens":90', b'"output_tokens":99')
    CACHE.clear()
    for cache in (False, True):
        frames = _loads(copy, cache)
        assert _changed(frames["runs_df"]) == _changed(frames["usage_df"]) == {"events.jsonl"}
