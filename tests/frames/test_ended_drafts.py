"""A draft still waiting when its run ended can never be decided: tools_df says ``undecided``, runs_df counts no
pending approval for it, and a run sealed between two loads is not served as still waiting from the cache."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pandas as pd

import noesis_nb
from noesis_nb.frames import clear_cache, runs_df, tools_df
from noesis_nb.frames.fs import RACY_NS

from .runkit import writer_adapter


async def _cancelled_while_waiting(runs: Path) -> str:
    handle = noesis_nb.start("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    for _ in range(500):
        if handle.pending:
            break
        await asyncio.sleep(0.02)
    assert handle.pending, "the episode never asked for an approval"
    handle.cancel()
    for _ in range(500):
        if handle.done():
            break
        await asyncio.sleep(0.02)
    return handle.episode_id


def _pending_per_run(tools: pd.DataFrame) -> dict[str, int]:
    waiting = tools[tools["status"].astype(object) == "pending"]
    return {str(k): int(v) for k, v in waiting.groupby("episode_id", observed=True).size().items()}


def test_a_cancelled_runs_waiting_draft_is_undecided_and_counted_pending_nowhere(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    ended = asyncio.run(_cancelled_while_waiting(runs))
    waiting = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask")  # paused on disk

    tools = tools_df(runs).set_index("episode_id")
    runs_frame = runs_df(runs).set_index("episode_id")
    assert runs_frame.loc[ended, "status"] == "cancelled"
    assert tools.loc[ended, "status"] == "undecided"
    assert tools.loc[waiting, "status"] == "pending"  # its run is paused: a decision still counts
    # both frames say the same: runs_df's pending_approvals are tools_df's pending drafts
    counted = {k: int(v) for k, v in runs_frame["pending_approvals"].items() if v}
    assert counted == _pending_per_run(tools.reset_index()) == {waiting: 1}


def test_a_run_sealed_between_two_loads_is_not_served_as_waiting(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    waiting = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    run = runs / waiting
    time.sleep(RACY_NS / 1e9 * 3)  # the run's files settled: the first load keys the cache
    before = (run / "events.jsonl").stat()
    assert tools_df(runs)["status"].tolist() == ["pending"]
    # sealed elsewhere without a decision (the episode stopped), its log untouched
    (run / "final.json").write_text(json.dumps({"episode_id": waiting, "outcome": "cancelled"}))
    (run / "manifest.json").write_text(json.dumps({"schema_version": "manifest/1.0", "episode_id": waiting, "files": []}))
    assert (run / "events.jsonl").stat().st_size == before.st_size

    warm = tools_df(runs)
    clear_cache()
    cold = tools_df(runs)
    assert cold["status"].tolist() == ["undecided"]
    pd.testing.assert_frame_equal(warm, cold)
    assert runs_df(runs)["pending_approvals"].tolist() == [0]
