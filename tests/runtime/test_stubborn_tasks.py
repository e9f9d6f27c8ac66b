"""An adapter or a scorer that swallows its cancellation (catches ``CancelledError`` and goes on) is stopped
within a bound anyway: its run sealed, the cell's wait ended, no task left running for good, the person told."""

from __future__ import annotations

import asyncio
import signal
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeInterrupted
from noesis_nb.store import read_events, read_final
from tests.compat.checker import check_run

BOUND_S = 8.0  # well past the grace a swallowed cancel gets (3 s), far short of "for good"


def stubborn(state: dict[str, Any], value: Any = "never") -> Any:
    """An async callable that catches every cancellation and keeps going; ``state`` says whether it still runs."""

    async def body(*args: Any) -> Any:
        state["alive"] = True
        try:
            while True:
                try:
                    await asyncio.sleep(0.05)
                except asyncio.CancelledError:
                    state["swallowed"] = state.get("swallowed", 0) + 1
        finally:
            state["alive"] = False
        return value

    return body


def test_an_interrupted_cell_awaiting_an_adapter_that_swallows_its_cancel_ends_with_the_run_sealed(tmp_path: Path) -> None:
    state: dict[str, Any] = {}
    adapter = stubborn(state)
    pressed: list[float] = []

    async def press_once_running() -> None:  # the interrupt (■) while the adapter runs
        while not state.get("alive"):
            await asyncio.sleep(0.01)
        pressed.append(time.monotonic())
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    async def cell() -> None:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        previous = signal.signal(signal.SIGINT, lambda s, f: loop.call_soon_threadsafe(task.cancel))  # ipykernel's way
        try:
            pressing = asyncio.ensure_future(press_once_running())
            await noesis_nb.solve_async("stubborn", adapter, runs_dir=tmp_path)
            pressing.cancel()
        finally:
            signal.signal(signal.SIGINT, previous)

    with pytest.raises(EpisodeInterrupted) as caught:
        asyncio.run(cell())
    # timed from the key, not from the cell's start: the run's making before it (first imports, files) took 4-8 s at
    # load 14 on two cores and failed the bound; without a bound the cell waits for good
    took = time.monotonic() - pressed[0]
    assert took < BOUND_S, f"the cell waited {took:.1f} s for the adapter after the interrupt"
    said = str(caught.value)
    assert "sealed cancelled" in said and "\n" not in said, said
    assert state["swallowed"] >= 1 and state["alive"] is False  # its finally ran: nothing of it runs on
    run_dir = tmp_path / caught.value.episode_id
    assert (read_final(run_dir) or {}).get("outcome") == "cancelled"
    assert check_run(run_dir) == []


def test_a_cancelled_episode_whose_adapter_swallows_the_cancel_is_sealed_and_the_person_told(tmp_path: Path) -> None:
    state: dict[str, Any] = {}

    async def main() -> Any:
        handle = noesis_nb.start("stubborn", stubborn(state), runs_dir=tmp_path)
        while not state.get("alive"):
            await asyncio.sleep(0.01)
        handle.cancel()
        await asyncio.wait_for(handle.wait(), BOUND_S)  # before: waited for good, the run never sealed
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled" and state["alive"] is False
    assert any("the adapter body went on" in p and "catches asyncio.CancelledError" in p for p in handle.problems)
    assert check_run(handle.run_dir) == []
    assert not (handle.run_dir / ".owner.lock").exists()


def test_a_batch_cancelled_while_a_scorer_swallows_its_cancel_leaves_no_scorer_running(tmp_path: Path) -> None:
    state: dict[str, Any] = {}
    scorer = stubborn(state, 1.0)

    async def agent(task: str, ctx: Any) -> str:
        return "answer"

    async def main() -> Any:
        b = noesis_nb.batch(["one"], using=agent, runs_dir=tmp_path, score=scorer, batch_id="stubborn-score")
        while not state.get("alive"):
            await asyncio.sleep(0.01)
        b.cancel()
        await b
        deadline = time.monotonic() + BOUND_S
        while state["alive"] and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return b

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        b = asyncio.run(main())  # before: the scorer ran for good, and asyncio.run never returned
    assert state["alive"] is False, "the scorer still runs after its batch was cancelled"
    said = [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]
    assert any("the scorer body" in s and "catches asyncio.CancelledError" in s for s in said), said
    run_dir = b.entries[0].run_dir
    assert (read_final(run_dir) or {}).get("outcome") == "cancelled"
    ids = [e["id"] for e in read_events(run_dir / "events.jsonl")]
    assert len(ids) == len(set(ids)) and check_run(run_dir) == []
