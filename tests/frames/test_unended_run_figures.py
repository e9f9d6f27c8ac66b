"""A run paused now: ``runs_df`` has no ``duration_s`` or ``waiting_s`` for it (neither is known until it resumes or
ends; a frame holds what the files say), while its view's header counts both as of now, its running time stopped at
the pause. The README says so where the frames are described (it said nothing, and the two read as disagreeing)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.widgets.state import Tally, view_state
from tests.documented import documented
from tests.frames.runkit import writer_adapter


def test_a_paused_runs_frame_has_no_duration_while_its_view_counts_as_of_now(runs_dir: Path) -> None:
    episode = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs_dir, approver="ask")
    row = noesis_nb.runs_df(runs_dir).iloc[0]
    assert row["status"] == "paused" and row["episode_id"] == episode
    assert math.isnan(row["duration_s"]) and math.isnan(row["waiting_s"]) and row["ended_at"] is pd.NaT

    run = noesis_nb.DiskRun(runs_dir / episode)
    tally = Tally()
    tally.extend(run.events)
    now = time.time()
    early, later = (view_state(run, tally, now=now + d) for d in (0.0, 30.0))
    assert early["running_s"] == later["running_s"]  # stopped at the pause
    assert later["waiting_s"] - early["waiting_s"] == pytest.approx(30.0)  # the wait grows until a decision

    said = " ".join(documented().split())  # the README or the docs page it links to
    assert "A frame holds what the run's files say, not a reading of the clock" in said
    assert "Its view's header counts them as of now instead" in said
