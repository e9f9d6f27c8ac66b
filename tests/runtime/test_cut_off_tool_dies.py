"""A subprocess tool cut off by a cancel or an interrupt dies with everything it started before its run is sealed.

The tool (a real process, which starts a child of its own) writes the two pids, then writes a marker 1.5 s later,
its child another: once the run is sealed ``cancelled`` with the tool's outcome unknown, neither process is alive
and neither marker ever appears. The interrupt is SIGINT sent to the main thread, whose handler raises
KeyboardInterrupt as a kernel's sync cell's does (``tests/runtime/test_interrupts.py``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeInterrupted
from noesis_nb.runtime.resume import paused_on
from noesis_nb.store import read_events, read_final

_TOOL = r"""
import os, subprocess, sys, time
folder = sys.argv[1]
late = "import sys, time; time.sleep(1.5); open(sys.argv[1], 'w').write('late')"
child = subprocess.Popen([sys.executable, "-c", late, os.path.join(folder, "child-marker")])
with open(os.path.join(folder, "pids.tmp"), "w") as f:
    f.write(f"{os.getpid()} {child.pid} {time.time()}")
os.rename(os.path.join(folder, "pids.tmp"), os.path.join(folder, "pids"))
time.sleep(1.5)
open(os.path.join(folder, "marker"), "w").write("late")
"""


def _argv(folder: Path) -> list[str]:
    return [sys.executable, "-c", _TOOL, str(folder)]


def _started(folder: Path, limit_s: float = 20.0) -> tuple[list[int], float]:
    """The tool's pid, its child's, and when it started (once it wrote them)."""
    deadline = time.monotonic() + limit_s
    while not (folder / "pids").exists():
        assert time.monotonic() < deadline, "the tool never started"
        time.sleep(0.005)
    tool, child, at = (folder / "pids").read_text().split()
    return [int(tool), int(child)], float(at)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _check_nothing_outlived(run_dir: Path, folder: Path) -> None:
    """Sealed cancelled, the outcome unknown; the tool and its child dead already, and no marker ever written."""
    assert (read_final(run_dir) or {}).get("outcome") == "cancelled"
    names = [str((e.get("payload") or {}).get("event_name") or e["phase"]) for e in read_events(run_dir / "events.jsonl")]
    assert "tool.execution.outcome_unknown" in names, names
    pids, started = _started(folder)
    assert [pid for pid in pids if _alive(pid)] == [], "a process of the cut-off tool is still running after the seal"
    time.sleep(max(0.0, started + 2.5 - time.time()))  # a second after the markers were due
    assert not (folder / "marker").exists() and not (folder / "child-marker").exists()


def _interrupt_once_started(folder: Path) -> None:
    """SIGINT to the main thread once the tool wrote its pids (from a thread of its own)."""

    def send() -> None:
        _started(folder)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    threading.Thread(target=send, daemon=True).start()


def test_a_cancel_kills_the_tool_and_its_child_before_the_seal(tmp_path: Path) -> None:
    folder = tmp_path / "tool"
    folder.mkdir()

    async def calls(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"argv": _argv(folder)}, effect="write", risk="low")

    async def main() -> Path:
        handle = noesis_nb.start("cut off", using=calls, runs_dir=tmp_path / "runs")
        while not (folder / "pids").exists():
            await asyncio.sleep(0.005)
        handle.cancel()
        await handle.wait()
        return handle.run_dir

    _check_nothing_outlived(asyncio.run(main()), folder)


def test_an_interrupt_of_solve_in_a_cell_kills_the_tool_before_the_seal(tmp_path: Path) -> None:
    folder = tmp_path / "tool"
    folder.mkdir()

    def calls(task: str, ctx: Any) -> Any:
        return ctx.tool("fs.append", {"argv": _argv(folder)}, effect="write", risk="low")

    async def cell() -> None:  # a running loop, and SIGINT raising KeyboardInterrupt, as in a kernel's sync cell
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            _interrupt_once_started(folder)
            noesis_nb.solve("cut off", using=calls, runs_dir=tmp_path / "runs")
        finally:
            signal.signal(signal.SIGINT, previous)

    with pytest.raises(EpisodeInterrupted, match="sealed cancelled") as caught:
        asyncio.run(cell())
    _check_nothing_outlived(tmp_path / "runs" / caught.value.episode_id, folder)


def test_an_interrupt_of_resume_run_kills_the_tool_before_the_seal(tmp_path: Path) -> None:
    folder = tmp_path / "tool"
    folder.mkdir()
    runs = tmp_path / "runs"

    async def asks(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"argv": _argv(folder)}, effect="write", risk="high")

    episode = noesis_nb.solve("cut off", using=asks, runs_dir=runs)  # returns at the pause, on disk
    waiting = paused_on(runs / episode)
    assert waiting is not None and waiting[0] == "draft"
    noesis_nb.approve_draft(episode, waiting[1], approver_id="ana", runs_dir=runs)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_once_started(folder)
        with pytest.raises(EpisodeInterrupted, match="sealed cancelled"):
            noesis_nb.resume_run(episode, runs_dir=runs)
    finally:
        signal.signal(signal.SIGINT, previous)
    _check_nothing_outlived(runs / episode, folder)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc tells a live process from a dead one")
def test_the_check_sees_a_live_process() -> None:
    assert _alive(os.getpid())
