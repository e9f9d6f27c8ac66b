"""Replay speeds: "max" is the fastest (it waited 0.05 s per event on a run of fewer than 200 events, slower than 1×),
and a speed is taken as typed ('10x', 10, 'MAX'), not only spelled with the multiplication sign."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.errors import InvalidOptionError
from noesis_nb.widgets.replayview import ReplayView
from tests.frames.runkit import model_calls_run


def quick_run(runs_dir: Path) -> Path:
    """A finished run of 30 model calls, its events a few milliseconds apart."""
    return model_calls_run(runs_dir, 30, "a quick run")


def played(replay: ReplayView, speed: Any) -> tuple[int, float]:
    """(frames drawn, seconds waited in all) playing from the start at ``speed``: the sleeps asked for, not the clock."""
    waits: dict[int, tuple[Any, float]] = {}  # a sleep's frame (held, so its id is not reused) and its delay
    seeks = 0

    def watch(frame: Any, event: str, arg: Any) -> None:
        nonlocal seeks
        if event != "call":
            return
        code = frame.f_code
        if code.co_name == "sleep" and Path(code.co_filename).parent.name == "asyncio":  # once, not at each resume
            waits.setdefault(id(frame), (frame, float(frame.f_locals["delay"])))
        elif code.co_name == "seek" and frame.f_locals.get("self") is replay:
            seeks += 1

    async def main() -> None:
        replay.seek(0)
        sys.setprofile(watch)
        try:
            await replay.play(speed)
        finally:
            sys.setprofile(None)

    asyncio.run(main())
    assert replay.k == replay.total
    return seeks, sum(delay for _frame, delay in waits.values())


def test_max_is_never_slower_than_ten_times(runs_dir: Path, comm_log: list) -> None:
    replay = ReplayView(quick_run(runs_dir))
    assert replay.total > 40
    frames = {speed: played(replay, speed) for speed in ("1×", "10×", "max")}
    assert frames["max"][1] <= frames["10×"][1] <= frames["1×"][1], frames  # seconds waited
    assert frames["max"][0] <= 100 + 1, frames  # frames drawn (1× and 10× draw at most ten a second, so fewer here)
    assert frames["max"][1] <= 0.05 * 100  # a run of any length plays in at most ~100 short frames


@pytest.mark.parametrize(
    ("typed", "shown"),
    [("10x", "10×"), ("10X", "10×"), (10, "10×"), ("10", "10×"), (10.0, "10×"), ("1x", "1×"), (1, "1×")]
    + [(" 1× ", "1×"), ("MAX", "max"), ("Max", "max"), ("max", "max")],
)
def test_a_speed_is_taken_as_typed(typed: Any, shown: str, runs_dir: Path, comm_log: list) -> None:
    replay = ReplayView(quick_run(runs_dir))

    async def main() -> None:
        await replay.play(typed)

    asyncio.run(main())
    assert replay.speed.value == shown and replay.k == replay.total


@pytest.mark.parametrize("typed", ["2x", "fast", 2, 0, True, "", "10 x"])
def test_any_other_speed_gets_one_message_in_ascii(typed: Any, runs_dir: Path, comm_log: list) -> None:
    replay = ReplayView(quick_run(runs_dir))
    with pytest.raises(InvalidOptionError) as caught:
        replay.play(typed)
    message = str(caught.value)
    assert "use '1x', '10x' or 'max' (or the numbers 1 and 10)" in message
    assert message.isascii() and message.startswith("speed=")
