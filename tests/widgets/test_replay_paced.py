"""1× and 10× play in the run's own time: each frame shows every event due, at most ten redraws a second (they moved
one event a frame, so a run of 10,000 events over half a second took a minute at 1×)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.widgets.replayspeed import MAX_GAP_S, REDRAW_S, SPEEDS, paced_frame, run_clock
from noesis_nb.widgets.replayview import ReplayView
from tests.frames.runkit import model_calls_run


@pytest.mark.parametrize("speed", ["1×", "10×"])
def test_a_fast_run_plays_in_its_own_time_on_a_pretend_clock(speed: str) -> None:
    times: list[float | None] = [1000.0 + 0.497 * i / 10_014 for i in range(10_015)]  # the tester's run
    times[5000] = None  # a time unknown counts as no gap
    times[6000:] = [t + 60.0 for t in times[6000:]]  # a person's minute, shortened to MAX_GAP_S
    clock = run_clock(times)
    span = clock[-1]
    assert span == pytest.approx(0.497 + MAX_GAP_S, abs=1e-3)
    played, shown, frames = 0.0, 0, 0  # a pretend clock: the sleeps asked for plus 6 ms a redraw
    while shown < len(times):
        now, delay = paced_frame(clock, 0, speed, played)
        if now > shown:
            shown, frames = now, frames + 1
            played += 0.006
            delay = max(delay, REDRAW_S)
        if shown < len(times):
            played += delay
    assert played <= span / SPEEDS[speed] + REDRAW_S + 0.006  # over when the run was, not a minute on
    assert frames <= span / SPEEDS[speed] / REDRAW_S + 2  # redraws capped, not one per event
    half, _ = paced_frame(clock, 0, speed, 0.497 / 2 / SPEEDS[speed])
    assert 4900 <= half <= 5100  # halfway through its time, halfway through its first 10,000 events


def test_play_from_the_middle_starts_where_it_is() -> None:
    clock = run_clock([float(i) for i in range(10)])  # one event a second
    assert paced_frame(clock, 4, "1×", 0.0) == (4, 1.0)
    assert paced_frame(clock, 4, "10×", 0.25) == (6, pytest.approx(0.05))
    assert paced_frame(clock, 4, "1×", 99.0) == (10, 0.0)


def test_playing_a_busy_run_at_1x_draws_far_fewer_frames_than_events(runs_dir: Path, comm_log: list) -> None:
    replay = ReplayView(model_calls_run(runs_dir, 400, "a busy run"))
    span = run_clock(replay.times)[-1]
    assert replay.total > 400 and span < 2.0, (replay.total, span)
    seeks = 0

    def watch(frame: Any, event: str, arg: Any) -> None:
        nonlocal seeks
        if event == "call" and frame.f_code.co_name == "seek" and frame.f_locals.get("self") is replay:
            seeks += 1

    async def main() -> None:
        replay.seek(0)
        sys.setprofile(watch)
        try:
            await replay.play("1x")
        finally:
            sys.setprofile(None)

    asyncio.run(main())
    assert replay.k == replay.total
    assert seeks <= span / REDRAW_S + 3, (seeks, replay.total, span)  # one redraw a tenth of a second at most
