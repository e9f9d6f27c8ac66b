"""A run whose start is after its end (a summary's ``started_at`` a year late) had a negative ``duration_s``
(-31,535,970 s), and one whose start is decades before its log's events a duration of 26 years, neither said. Now a
negative duration is NA and a problem names the run and its two times; an absurdly long one is kept and said."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import noesis_nb

from .runkit import basic_events, write_run

DAY = "2025-03-01"
CASES = {"ep_future": "2026-03-01T10:00:00+00:00", "ep_past": "2001-01-01T00:00:00+00:00", "ep_fine": f"{DAY}T10:00:00+00:00"}


@pytest.fixture
def frame(tmp_path: Path) -> pd.DataFrame:
    root = tmp_path / "runs"
    for ep, started in CASES.items():
        write_run(root, ep, basic_events(ep, day=DAY), summary={"episode_id": ep, "status": "ok", "started_at": started})
    with pytest.warns(UserWarning):
        return noesis_nb.runs_df(root, cache=False)


def _problems(frame: pd.DataFrame, ep: str) -> list[str]:
    return [p["reason"] for p in frame.attrs["errors"] if Path(p["path"]).parent.name == ep]


def test_a_start_after_the_end_is_no_duration_and_is_said(frame: pd.DataFrame) -> None:
    row = frame.set_index("episode_id").loc["ep_future"]
    assert row["started_at"] > row["ended_at"]
    assert pd.isna(row["duration_s"])
    (reason,) = _problems(frame, "ep_future")
    assert "'ep_future'" in reason and "ends before it starts" in reason
    assert row["started_at"].isoformat() in reason and row["ended_at"].isoformat() in reason


def test_a_start_decades_early_is_said(frame: pd.DataFrame) -> None:
    row = frame.set_index("episode_id").loc["ep_past"]
    assert row["duration_s"] == (row["ended_at"] - row["started_at"]).total_seconds()
    (reason,) = _problems(frame, "ep_past")
    assert "'ep_past'" in reason and row["started_at"].isoformat() in reason and row["ended_at"].isoformat() in reason


def test_a_sound_run_is_quiet(frame: pd.DataFrame) -> None:
    row = frame.set_index("episode_id").loc["ep_fine"]
    assert row["duration_s"] == (row["ended_at"] - row["started_at"]).total_seconds() > 0
    assert _problems(frame, "ep_fine") == []
