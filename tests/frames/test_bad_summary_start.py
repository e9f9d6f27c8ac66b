"""A summary.json whose ``started_at`` cannot be read (a number, a text that is no time) or is missing gives the run
the start of its first event, as a run with no summary gets, and the bad field is still reported: before, such a run
had no start and no duration in runs_df."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import clear_cache

_FIRST, _LAST = "2025-11-11T02:19:10+00:00", "2025-11-11T02:19:40+00:00"
_SUMMARY_START = "2025-11-11T02:00:00+00:00"  # a readable start differs from the log's: the summary's wins

CASES = {"ep_number": 12345, "ep_not_a_time": "yesterday", "ep_missing": None, "ep_readable": _SUMMARY_START}


def _event(episode: str, i: int, when: str, phase: str, payload: dict[str, object]) -> str:
    return json.dumps(
        {"id": f"e{i}", "timestamp": when, "episode_id": episode, "agent_id": "system", "phase": phase, "payload": payload}
    )


@pytest.fixture(scope="module")
def frame(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    root = tmp_path_factory.mktemp("start") / "runs"
    for episode, started in CASES.items():
        run = root / episode
        run.mkdir(parents=True)
        lines = [
            _event(episode, 0, _FIRST, "start", {"task": "t"}),
            _event(episode, 1, _LAST, "terminate", {"status": "ok"}),
        ]
        (run / "events.jsonl").write_text("\n".join(lines) + "\n")
        summary: dict[str, object] = {"episode_id": episode, "task": "t"}
        if started is not None:
            summary["started_at"] = started
        (run / "summary.json").write_text(json.dumps(summary))
    clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return noesis_nb.runs_df(root, cache=False).set_index("episode_id")


@pytest.mark.parametrize("episode", ["ep_number", "ep_not_a_time", "ep_missing"])
def test_unreadable_start_falls_back_to_the_first_event(frame: pd.DataFrame, episode: str) -> None:
    assert frame.loc[episode, "started_at"] == pd.Timestamp(_FIRST)
    assert frame.loc[episode, "duration_s"] == (pd.Timestamp(_LAST) - pd.Timestamp(_FIRST)).total_seconds()


def test_readable_summary_start_is_kept(frame: pd.DataFrame) -> None:
    assert frame.loc["ep_readable", "started_at"] == pd.Timestamp(_SUMMARY_START)


def test_the_bad_field_is_still_reported(frame: pd.DataFrame) -> None:
    reported = {
        Path(p["path"]).parent.name
        for p in frame.attrs["errors"]
        if p["path"].endswith("summary.json") and "started_at" in p["reason"]
    }
    assert reported == {"ep_number", "ep_not_a_time"}
