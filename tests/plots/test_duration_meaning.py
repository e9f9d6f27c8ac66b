"""One running time everywhere: ``runs_df.duration_s`` is a run's wall time (Noēsis' ``summary.duration_sec``),
``waiting_s`` the time it was paused for a person (``run.interrupt`` or ``run.checkpoint`` to ``run.resume``), and
the duration figure and ``batch_summary`` show the running time between them (``duration_s - waiting_s``), saying so.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import noesis_nb
from noesis_nb import plots
from noesis_nb.frames import batch_summary, events_df, runs_df

from ..frames.runkit import writer_adapter


def paused_then_approved(runs: Path) -> str:
    """A run that paused for an approval, was approved on disk and resumed: its log holds the pause and the resume."""
    episode = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    time.sleep(0.3)  # a person reading the draft: a wait the view shows (it leaves out waits under 0.05 s)
    noesis_nb.approve_draft(episode, runs_dir=runs)
    noesis_nb.resume_run(episode, runs_dir=runs, using=writer_adapter)
    return episode


def pause_span_s(runs: Path, episode: str) -> float:
    """The paused span as events_df shows it: the run's interrupt to its resume."""
    events = events_df(runs)
    mine = events[events["episode_id"].astype(str) == episode]
    kinds = mine["event_name"].astype(object)
    paused = mine.loc[kinds == "run.interrupt", "timestamp"].min()
    resumed = mine.loc[kinds == "run.resume", "timestamp"].max()
    return (resumed - paused).total_seconds()


def test_waiting_s_is_the_pause_and_the_figure_and_summary_show_running_time(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    episode = paused_then_approved(runs)
    plain = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="auto")
    frame = runs_df(runs).set_index("episode_id")
    assert frame.loc[episode, "status"] == frame.loc[plain, "status"] == "ok"
    waited = pause_span_s(runs, episode)
    assert waited > 0
    assert frame.loc[episode, "waiting_s"] == pytest.approx(waited, abs=1e-6)
    assert frame.loc[plain, "waiting_s"] == 0.0
    assert frame.loc[episode, "duration_s"] >= waited  # the wall time holds the wait

    running = frame["duration_s"] - frame["waiting_s"]
    figure = plots.duration_by_adapter(frame.reset_index())
    assert figure.layout.yaxis.title.text == "running time (s), waiting for people left out"
    assert sorted(figure.data[0].y) == pytest.approx(sorted(running))

    summary = batch_summary(frame.reset_index())
    assert summary.attrs["duration"] == "running time (s), waiting for people left out"
    assert summary["duration_p50_s"].iloc[0] == pytest.approx(float(np.percentile(running, 50)))


def test_a_frame_without_waiting_s_is_plotted_as_wall_time_and_says_so(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    paused_then_approved(runs)
    frame = runs_df(runs).drop(columns=["waiting_s"])
    figure = plots.duration_by_adapter(frame)
    assert figure.layout.yaxis.title.text == "wall time (s), waiting for people included"
    assert list(figure.data[0].y) == pytest.approx(list(frame["duration_s"]))
