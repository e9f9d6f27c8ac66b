"""An ended run (summary.json and state.json, no manifest) whose events.jsonl is empty or missing is reported: its
summary counts events (act_count equals the act events of a Noēsis run), so its calls and tokens are unknown, not 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb import frames


def _ended_run(tmp_path: Path, smoke_run: Path) -> tuple[Path, Path]:
    root = tmp_path / "runs"
    run = root / smoke_run.name
    shutil.copytree(smoke_run, run)
    (run / "manifest.json").unlink()  # ended, not sealed by a manifest (as older and crashed-then-summarised runs)
    frames.clear_cache()
    return root, run


@pytest.mark.parametrize("damage", ["empty", "missing"])
def test_empty_or_missing_log_of_an_ended_run_is_a_problem(tmp_path: Path, smoke_run: Path, damage: str) -> None:
    root, run = _ended_run(tmp_path, smoke_run)
    acts = json.loads((run / "summary.json").read_text())["metrics"]["act_count"]
    log = run / "events.jsonl"
    if damage == "empty":
        log.write_bytes(b"")
    else:
        log.unlink()
    df = noesis_nb.runs_df(root)
    lost = [p for p in df.attrs["errors"] if p["path"].endswith("events.jsonl")]
    assert len(lost) == 1, df.attrs["errors"]
    reason = lost[0]["reason"]
    assert run.name in reason
    assert ("empty (0 bytes)" if damage == "empty" else "missing") in reason
    assert f"act_count {acts}" in reason and "0 events" in reason
    assert "Copy the run's events.jsonl back" in reason
    assert pd.isna(df.loc[0, "model_calls"]) and pd.isna(df.loc[0, "input_tokens"])


def test_a_whole_log_of_an_ended_run_is_no_such_problem(tmp_path: Path, smoke_run: Path) -> None:
    root, _ = _ended_run(tmp_path, smoke_run)
    df = noesis_nb.runs_df(root)
    assert not [p for p in df.attrs["errors"] if "events.jsonl is" in p["reason"]], df.attrs["errors"]


def test_a_restored_log_clears_the_problem_on_reload(tmp_path: Path, smoke_run: Path) -> None:
    root, run = _ended_run(tmp_path, smoke_run)
    log = run / "events.jsonl"
    kept = log.read_bytes()
    log.write_bytes(b"")
    assert [p for p in noesis_nb.runs_df(root).attrs["errors"] if "events.jsonl is empty" in p["reason"]]
    log.write_bytes(kept)
    assert not [p for p in noesis_nb.runs_df(root).attrs["errors"] if "events.jsonl is" in p["reason"]]


def test_a_run_folder_holding_no_run_file_is_one_problem(tmp_path: Path, smoke_run: Path) -> None:
    root, run = _ended_run(tmp_path, smoke_run)
    empty = root / (run.name[:-2] + "ZZ")
    empty.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = root / (run.name[:-2] + "YY")
    linked.symlink_to(elsewhere, target_is_directory=True)
    (root / "notes").mkdir()  # a folder not named like a run: a user's own, said nothing of
    for load in (noesis_nb.runs_df, noesis_nb.events_df):
        frames.clear_cache()
        df = load(root)
        said = {Path(p["path"]).name: p["reason"] for p in df.attrs["errors"]}
        assert set(said) == {empty.name, linked.name}, df.attrs["errors"]
        assert all(r.startswith("not a run: no summary.json, state.json or events.jsonl") for r in said.values())
    (empty / "events.jsonl").write_bytes((run / "events.jsonl").read_bytes().replace(run.name.encode(), empty.name.encode()))
    again = noesis_nb.runs_df(root)  # files put into it: a run now, no longer said
    assert empty.name in set(again["episode_id"])
    assert [Path(p["path"]).name for p in again.attrs["errors"] if p["reason"].startswith("not a run")] == [linked.name]
