"""An interrupt, or a cancel, while an adapter's thread still writes: what reaches the run and what the thread hears.

Without a kernel: SIGINT sent to the main thread, whose handler raises KeyboardInterrupt as a kernel's sync cell's does.
(``tests/kernel/test_kernel_interrupt.py`` presses the real kernel's ■.)
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeInterrupted, EpisodeStateError
from noesis_nb.runtime.resume import NothingToResume, paused_on
from noesis_nb.store import read_events, read_final
from tests.compat.checker import check_run


def chatty(told: list[str]) -> Any:
    """A sync adapter that emits as fast as it can until the episode refuses its events."""

    def adapter(task: str, ctx: Any) -> str:
        try:
            for i in range(1_000_000):
                ctx.emit("reason", {"text": f"tick {i}"})
        except Exception as exc:
            told.append(f"{type(exc).__name__}: {exc}")
            raise
        return "done"

    return adapter


def test_a_thread_left_running_writes_nothing_after_the_terminate(tmp_path: Path) -> None:

    async def cancelled_after(events: int, told: list[str]) -> str:
        handle = noesis_nb.start(f"chat {events}", using=chatty(told), runs_dir=tmp_path)
        while handle.event_count < events:
            await asyncio.sleep(0.001)
        handle.cancel()
        await handle.wait()
        return handle.episode_id

    for round_ in range(8):  # the window between the terminate and the closed log is short: try it often
        told: list[str] = []
        episode = asyncio.run(cancelled_after(50 + 40 * round_, told))
        deadline = time.monotonic() + 5
        while not told and time.monotonic() < deadline:
            time.sleep(0.01)
        assert told and told[0].startswith("EpisodeStateError") and episode in told[0], told
        phases = [e["phase"] for e in read_events(tmp_path / episode / "events.jsonl")]
        assert "reason" not in phases[phases.index("terminate") :], phases[-6:]
        assert check_run(tmp_path / episode) == []


def test_an_interrupt_during_solve_inside_a_loop_seals_the_run_cancelled(tmp_path: Path) -> None:
    """``solve`` in a notebook cell runs the episode on a worker thread; the interrupt lands in the waiting one."""
    told: list[str] = []

    def slow(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "working"})
        try:
            for _ in range(200):
                time.sleep(0.02)
                ctx.emit("reason", {"text": "still"})
        except EpisodeStateError as exc:
            told.append(str(exc))
        return "done"

    async def cell() -> None:  # a running loop, and SIGINT raising KeyboardInterrupt, as in a kernel's sync cell
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            threading.Timer(0.3, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)).start()
            noesis_nb.solve("slow", using=slow, runs_dir=tmp_path)
        finally:
            signal.signal(signal.SIGINT, previous)

    with pytest.raises(EpisodeInterrupted, match="sealed cancelled") as caught:
        asyncio.run(cell())
    run_dir = tmp_path / caught.value.episode_id
    assert (read_final(run_dir) or {}).get("outcome") == "cancelled"
    assert check_run(run_dir) == []
    deadline = time.monotonic() + 5
    while not told and time.monotonic() < deadline:
        time.sleep(0.01)
    assert told, "the adapter's thread was never told the episode ended"


def test_a_tool_cut_off_by_a_cancel_is_recorded_with_its_outcome_unknown(tmp_path: Path) -> None:
    async def calls_a_slow_tool(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", "import time; time.sleep(5)"]
        return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="low")

    async def main() -> Path:
        handle = noesis_nb.start("slow tool", using=calls_a_slow_tool, runs_dir=tmp_path)
        while not any((e.get("payload") or {}).get("event_name") == "tool.execution.started" for e in handle.events):
            await asyncio.sleep(0.01)
        handle.cancel()
        await handle.wait()
        return handle.run_dir

    run_dir = asyncio.run(main())
    names = [str((e.get("payload") or {}).get("event_name") or e["phase"]) for e in read_events(run_dir / "events.jsonl")]
    started = names.index("tool.execution.started")
    assert names[started + 1 : started + 3] == ["tool.execution.outcome_unknown", "terminate"], names[started:]
    assert (read_final(run_dir) or {}).get("outcome") == "cancelled"
    assert check_run(run_dir) == []


def _paused_on_a_slow_tool(runs_dir: Path) -> tuple[str, str]:
    """A run paused on disk on a decided draft whose tool takes 30 s: ``resume_run`` runs that tool."""

    async def asks(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", "import time; time.sleep(30)"]
        return await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")

    episode = noesis_nb.solve("slow tool", using=asks, runs_dir=runs_dir)  # returns at the pause, on disk
    waiting = paused_on(runs_dir / episode)
    assert waiting is not None and waiting[0] == "draft"
    return episode, waiting[1]


def _check_cut_off_and_sealed(runs_dir: Path, episode: str, draft: str, said: str | None) -> None:
    """What an interrupt of ``resume_run`` during the tool leaves, as ``solve`` does: sealed ``cancelled``, the tool's
    outcome recorded unknown once and never run again, the lock released, the one line saying so."""
    run_dir = runs_dir / episode
    if said is not None:
        assert f"resume_run({episode!r}) stopped by the interrupt while the tool of draft {draft!r} ran" in said, said
        assert "\n" not in said and "sealed cancelled" in said and "outcome is unknown" in said, said
    assert (read_final(run_dir) or {}).get("outcome") == "cancelled"
    events = read_events(run_dir / "events.jsonl")
    names = [str((e.get("payload") or {}).get("event_name") or e["phase"]) for e in events]
    assert names.count("tool.execution.started") == 1 and names.count("tool.execution.outcome_unknown") == 1, names
    assert names[names.index("tool.execution.started") + 1 : names.index("terminate") + 1] == [
        "tool.execution.outcome_unknown",
        "terminate",
    ], names
    assert len({e["id"] for e in events}) == len(events)
    assert check_run(run_dir) == []
    with pytest.warns(NothingToResume, match="already sealed"):  # the run is free and finished: nothing runs again
        noesis_nb.resume_run(episode, runs_dir=runs_dir, unknown_outcome="retry")
    assert [e["id"] for e in read_events(run_dir / "events.jsonl")] == [e["id"] for e in events]


@pytest.mark.parametrize("call", ["resume_run", "await resume_run_async"])
def test_an_interrupt_during_a_resume_in_a_cell_seals_the_run_cancelled(tmp_path: Path, call: str) -> None:
    """``resume_run`` (sync, in a cell: a worker thread) ends like ``solve`` under the interrupt: sealed, one line.
    ``await resume_run_async(…)`` in a cell too: there the kernel turns SIGINT into a cancel of the cell (simulated
    here, as ipykernel's handler for an async cell does)."""
    episode, draft = _paused_on_a_slow_tool(tmp_path)
    noesis_nb.approve_draft(episode, draft, approver_id="ana", runs_dir=tmp_path)

    async def cell() -> None:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()

        def kernel_interrupt(signum: int, frame: Any) -> None:
            loop.call_soon_threadsafe(task.cancel)

        handler = signal.default_int_handler if call == "resume_run" else kernel_interrupt
        previous = signal.signal(signal.SIGINT, handler)
        try:
            threading.Timer(1.0, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)).start()
            if call == "resume_run":
                noesis_nb.resume_run(episode, runs_dir=tmp_path)
            else:
                await noesis_nb.resume_run_async(episode, runs_dir=tmp_path)
        finally:
            signal.signal(signal.SIGINT, previous)

    began = time.monotonic()
    with pytest.raises(EpisodeInterrupted) as caught:
        asyncio.run(cell())
    assert time.monotonic() - began < 20, "the interrupt did not stop the tool's wait"
    assert caught.value.episode_id == episode and caught.value.status == "cancelled"
    _check_cut_off_and_sealed(tmp_path, episode, draft, str(caught.value))


def test_a_cancelled_resume_run_async_seals_the_run_cancelled_as_a_cancelled_episode_does(tmp_path: Path) -> None:
    """A plain cancel (a timeout around it, a cancelled task), not the interrupt: the same run on disk, no line."""
    episode, draft = _paused_on_a_slow_tool(tmp_path)
    noesis_nb.approve_draft(episode, draft, approver_id="ana", runs_dir=tmp_path)

    async def main() -> None:
        await asyncio.wait_for(noesis_nb.resume_run_async(episode, runs_dir=tmp_path), timeout=1.0)

    with pytest.raises(TimeoutError):
        asyncio.run(main())
    _check_cut_off_and_sealed(tmp_path, episode, draft, None)


def test_an_interrupt_while_resume_run_reruns_an_overridden_adapter_seals_the_run_cancelled(tmp_path: Path) -> None:
    """After a veto override ``resume_run`` runs the adapter again: cut off there, the run is sealed, not left to be
    sealed later as ``process_lost``."""

    async def slow(task: str, ctx: Any) -> str:
        await asyncio.sleep(30)
        return "done"

    episode = noesis_nb.solve(
        "destroy the staging db", using=slow, runs_dir=tmp_path, governance="enforce", pause_on_veto=True
    )  # vetoed and paused on disk
    waiting = paused_on(tmp_path / episode)
    assert waiting is not None and waiting[0] == "veto", waiting
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=tmp_path)

    async def cell() -> None:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        previous = signal.signal(signal.SIGINT, lambda s, f: loop.call_soon_threadsafe(task.cancel))
        try:
            threading.Timer(0.5, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)).start()
            await noesis_nb.resume_run_async(episode, runs_dir=tmp_path, using=slow)
        finally:
            signal.signal(signal.SIGINT, previous)

    began = time.monotonic()
    with pytest.raises(EpisodeInterrupted) as caught:
        asyncio.run(cell())
    assert time.monotonic() - began < 20
    said = str(caught.value)
    assert caught.value.status == "cancelled" and "its run is sealed (cancelled)" in said, said
    assert (read_final(tmp_path / episode) or {}).get("outcome") == "cancelled"
    assert check_run(tmp_path / episode) == []
