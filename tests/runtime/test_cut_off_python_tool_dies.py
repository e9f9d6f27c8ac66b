"""A ``python`` tool's processes are cut off by a cancel or an interrupt as a ``subprocess`` tool's are.

The tool's function (on its own thread) starts a real process, which starts a child of its own; each writes a marker
1.5 s later. Once the run is sealed ``cancelled`` with the tool's outcome unknown, neither process is alive and
neither marker ever appears; meanwhile another tool call, started on another thread, keeps its process.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeInterrupted
from tests.runtime.test_cut_off_tool_dies import _TOOL, _alive, _check_nothing_outlived, _interrupt_once_started


def _starts_processes(folder: str) -> str:
    """The python tool: runs the two-process tool of the subprocess tests and waits for it."""
    done = subprocess.run([sys.executable, "-c", _TOOL, folder], check=False)
    return f"exit {done.returncode}"


def test_a_cancel_kills_a_python_tools_processes_before_the_seal(tmp_path: Path) -> None:
    folder = tmp_path / "tool"
    folder.mkdir()
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])  # another thread's: left alone

    async def calls(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"args": [str(folder)]}, fn=_starts_processes, effect="write", risk="low")

    async def main() -> Path:
        handle = noesis_nb.start("cut off", using=calls, runs_dir=tmp_path / "runs")
        while not (folder / "pids").exists():
            await asyncio.sleep(0.005)
        handle.cancel()
        await handle.wait()
        return handle.run_dir

    try:
        _check_nothing_outlived(asyncio.run(main()), folder)
        assert _alive(bystander.pid), "the cut killed a process the tool did not start"
    finally:
        bystander.kill()
        bystander.wait()


def test_an_interrupt_of_solve_kills_a_python_tools_processes_before_the_seal(tmp_path: Path) -> None:
    folder = tmp_path / "tool"
    folder.mkdir()

    def calls(task: str, ctx: Any) -> Any:
        return ctx.tool("fs.append", {"args": [str(folder)]}, fn=_starts_processes, effect="write", risk="low")

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


def _keeps_starting(folder: str) -> str:
    """Starts its process, then, killed or not, tries to start another (refused once its call was cut off)."""
    _starts_processes(folder)
    time.sleep(0.2)
    try:
        subprocess.run([sys.executable, "-c", f"open({str(Path(folder) / 'after')!r}, 'w').write('x')"], check=False)
    except OSError as exc:
        (Path(folder) / "refused").write_text(str(exc))
    return "went on"


def test_a_cut_off_python_tool_starts_no_process_afterwards(tmp_path: Path) -> None:
    folder = tmp_path / "tool"
    folder.mkdir()

    async def calls(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"args": [str(folder)]}, fn=_keeps_starting, effect="write", risk="low")

    async def main() -> None:
        handle = noesis_nb.start("cut off", using=calls, runs_dir=tmp_path / "runs")
        while not (folder / "pids").exists():
            await asyncio.sleep(0.005)
        handle.cancel()
        await handle.wait()

    asyncio.run(main())
    deadline = time.monotonic() + 10
    while not (folder / "refused").exists() and not (folder / "after").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)
    assert not (folder / "after").exists(), "a process started after its call was cut off"
    assert "cancelled" in (folder / "refused").read_text()
