"""The view's running time is the frames' ``duration_s - waiting_s``, and its wait their ``waiting_s``: the same
start (the run's ``started_at``) and end (its ``terminate``), for a run that waited for an approval and one that
did not."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import runs_df
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store.instants import epoch_seconds
from noesis_nb.widgets.state import Tally, format_seconds, view_state
from tests.frames.runkit import writer_adapter
from tests.plots.test_duration_meaning import paused_then_approved
from tests.widgets.lostruns import lost_while_running


def _view_of(run_dir: Path) -> dict:
    source = DiskRun(run_dir)
    tally = Tally()
    tally.extend(source.events)
    return view_state(source, tally)


def test_the_view_and_runs_df_give_one_running_time_and_one_wait(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    waited = paused_then_approved(runs)
    plain = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="auto")
    frame = runs_df(runs).set_index("episode_id")
    for episode in (waited, plain):
        row = frame.loc[episode]
        view = _view_of(runs / episode)
        assert view["running_s"] == pytest.approx(row["duration_s"] - row["waiting_s"], abs=1e-6)
        assert view["waiting_s"] == pytest.approx(row["waiting_s"], abs=1e-6)
        assert view["header"]["elapsed"] == format_seconds(row["duration_s"] - row["waiting_s"])
    assert frame.loc[waited, "waiting_s"] > 0
    assert _view_of(runs / waited)["header"]["waited"] == format_seconds(frame.loc[waited, "waiting_s"])


def test_a_lost_run_sealed_later_ran_until_its_last_sign_of_life(tmp_path: Path) -> None:
    """Its writer was killed while its adapter ran; ``resume_run`` sealed it later. The running time ends at the last
    event the writer left (its adapter's ``reason``), not at the seal: it once counted the time the run lay dead."""
    runs = tmp_path / "runs"
    lost_while_running(runs, "ep_lost")
    with pytest.warns(RunRecovered):
        noesis_nb.resume_run("ep_lost", runs_dir=runs)
    source = DiskRun(runs / "ep_lost")
    last_life = next(e for e in source.events if e.get("phase") == "reason")  # what the writer did before it died
    sealed = next(e for e in source.events if e.get("phase") == "terminate")
    assert epoch_seconds(sealed["timestamp"]) > epoch_seconds(last_life["timestamp"])
    view = _view_of(runs / "ep_lost")
    started = epoch_seconds(source.started_at)
    assert view["running_s"] == pytest.approx(epoch_seconds(last_life["timestamp"]) - started, abs=1e-6)
    assert view["header"]["elapsed"] == format_seconds(epoch_seconds(last_life["timestamp"]) - started)


def test_a_lost_run_sealed_later_lasts_as_long_in_the_frame_as_in_the_view(tmp_path: Path) -> None:
    """``summary.duration_sec`` (so ``runs_df``'s ``duration_s``) of a run sealed after its process died ends at its
    last sign of life too: it counted the time the run lay dead, so the frame and the view disagreed."""
    runs = tmp_path / "runs"
    lost_while_running(runs, "ep_lost")
    time.sleep(1.0)  # the run lies dead a while before the seal
    with pytest.warns(RunRecovered):
        noesis_nb.resume_run("ep_lost", runs_dir=runs)
    source = DiskRun(runs / "ep_lost")
    last_life = next(e for e in source.events if e.get("phase") == "reason")
    lived = epoch_seconds(last_life["timestamp"]) - epoch_seconds(source.started_at)
    summary = json.loads((runs / "ep_lost" / "summary.json").read_text())
    assert summary["duration_sec"] == pytest.approx(lived, abs=1e-3)
    row = noesis_nb.runs_df(runs).set_index("episode_id").loc["ep_lost"]
    assert row["duration_s"] == pytest.approx(lived, abs=1e-3)
    assert _view_of(runs / "ep_lost")["running_s"] == pytest.approx(row["duration_s"] - (row["waiting_s"] or 0), abs=1e-3)


def test_the_live_view_the_replay_and_the_summary_give_one_running_time(tmp_path: Path) -> None:
    """A run started while its cell still holds the loop (a view being built) writes its first event late: the live
    view counted from the handle's own clock and the replay from the first event, so the three disagreed (the replay
    said 4.5 s of a 7 s run). All now count from the run's ``started_at``, to its ``terminate``; and that start is the
    run's first event, so the time the cell held the loop is in none of them."""
    from noesis_nb.runtime.moment import RunMoment
    from noesis_nb.widgets.replayview import ReplayView

    async def quick(task, ctx):
        ctx.emit("reason", {"text": "done"})
        return "ok"

    async def main():
        handle = noesis_nb.start("hold the loop", using=quick, runs_dir=tmp_path / "runs")
        time.sleep(0.3)  # the cell goes on a while before the loop runs the episode (stands for a view being built)
        await handle
        return handle

    handle = asyncio.run(main())
    summary = json.loads((handle.run_dir / "summary.json").read_text())
    source = DiskRun(handle.run_dir)
    assert source.started_at == source.events[0]["timestamp"]
    assert summary["duration_sec"] < 0.25  # the 0.3 s the loop was held came before the run began
    tally = Tally()
    tally.extend(handle.events)
    live = view_state(handle, tally)
    assert live["running_s"] == pytest.approx(summary["duration_sec"], abs=1e-3)
    moment = RunMoment(source, len(source.events))
    replayed = view_state(moment, tally)
    assert replayed["running_s"] == pytest.approx(summary["duration_sec"], abs=1e-3)
    replay = ReplayView(handle.run_dir)
    terminate = next(i for i, e in enumerate(source.events) if e.get("phase") == "terminate") + 1
    replay.seek(terminate)
    assert f"+{summary['duration_sec']:.1f} s into the run" in replay.clock.value


def test_a_run_waiting_for_a_person_now_has_no_wait_figure_yet(tmp_path: Path) -> None:
    """A paused run's wait is still growing: ``waiting_s`` is unknown (<NA>, as its ``duration_s``), never 0.0, a
    figure that sums and means would take for none; once approved and resumed it is the pause, as the view counts it,
    also on a warm reload of the same folder."""
    runs = tmp_path / "runs"
    episode = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="ask")
    row = runs_df(runs).set_index("episode_id").loc[episode]
    assert row["status"] == "paused"
    assert pd.isna(row["waiting_s"]) and pd.isna(row["duration_s"])
    time.sleep(0.1)
    noesis_nb.approve_draft(episode, runs_dir=runs)
    noesis_nb.resume_run(episode, runs_dir=runs, using=writer_adapter)
    row = runs_df(runs).set_index("episode_id").loc[episode]  # the same folder again: a warm reload
    assert row["status"] == "ok"
    assert row["waiting_s"] >= 0.1
    assert _view_of(runs / episode)["waiting_s"] == pytest.approx(row["waiting_s"], abs=1e-6)
