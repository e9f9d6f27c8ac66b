"""A SIGINT at any bytecode of ``watch_interrupts``' own bookkeeping (its entry and exit: the process's list of watches
and the handler it chains in front of the cell's) leaves the process as it was.

A tracer runs the SIGINT handler in place (as the interpreter does between two bytecodes) at the k-th bytecode run in
``runtime/interrupt.py`` during one ``solve_async`` (its watch's entry and exit, the hold around the run's making), for
every k. Whatever k and whatever the call then ended with: the cell's own handler is back in place, and a fresh
episode interrupted by a real SIGINT through a kernel's handler (which cancels the cell) ends with the one
``EpisodeInterrupted`` line, its run sealed ``cancelled`` — not a raw ``CancelledError`` from a watch that no longer
put its handler in place (the count of watches left one too high). Run in the process that ran the others: nothing
is reset between or after.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeInterrupted
from noesis_nb.runtime import interrupt
from noesis_nb.runtime.interrupt import watch_interrupts
from noesis_nb.store import read_final
from tests.runtime.in_child import in_child

_WATCHED = os.path.join("noesis_nb", "runtime", "interrupt.py")


async def quick(task: str, ctx: Any) -> str:
    ctx.emit("note", {"i": 1})
    return "done"


async def pressed_while_running(task: str, ctx: Any) -> str:
    """The person presses ■ while the episode runs: a real SIGINT to the main thread."""
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    await asyncio.sleep(30)
    return "never"


class _SigintAt:
    """A tracer running the SIGINT handler in place at the ``k``-th bytecode of ``runtime/interrupt.py``."""

    def __init__(self, k: int) -> None:
        self.k, self.seen, self.landed = k, 0, ""

    def calls(self, frame: FrameType, event: str, arg: Any) -> Any:
        if self.landed or not frame.f_code.co_filename.endswith(_WATCHED):
            return None
        frame.f_trace_opcodes = True
        return self.opcodes

    def opcodes(self, frame: FrameType, event: str, arg: Any) -> Any:
        if self.landed or event != "opcode":
            return self.opcodes
        self.seen += 1
        if self.seen == self.k:
            self.landed = f"{frame.f_code.co_name}:{frame.f_lineno}"
            sys.settrace(None)
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler):
                handler(signal.SIGINT, frame)  # what the interpreter does between two bytecodes
        return self.opcodes


def _kernel_handler(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> Callable[[int, Any], None]:
    """ipykernel's way for an async cell: the interrupt cancels the cell's task."""
    return lambda signum, frame: loop.call_soon_threadsafe(task.cancel)


def _settle(loop: asyncio.AbstractEventLoop) -> None:
    tasks = asyncio.all_tasks(loop)
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


def _fresh_interrupt_ends_as_documented(loop: asyncio.AbstractEventLoop, runs: Path) -> str:
    """'' when a fresh episode, interrupted through a kernel's handler, ends with the one line, sealed cancelled."""

    async def cell() -> Any:
        task = asyncio.current_task()
        assert task is not None
        previous = signal.signal(signal.SIGINT, _kernel_handler(loop, task))
        try:
            return await noesis_nb.solve_async("fresh", pressed_while_running, runs_dir=runs)
        finally:
            signal.signal(signal.SIGINT, previous)

    try:
        loop.run_until_complete(cell())
    except EpisodeInterrupted as exc:
        outcome = (read_final(runs / exc.episode_id) or {}).get("outcome")
        if exc.status != "cancelled" or outcome != "cancelled" or "\n" in str(exc):
            return f"interrupted: {exc.status}, sealed {outcome}: {exc}"
        return ""
    except BaseException as exc:  # what came out instead is the finding
        return f"ended in {type(exc).__name__}: {exc}"
    finally:
        _settle(loop)
    return "ended without the interrupt"


@pytest.mark.parametrize("cell", ["raising", "cancelling", "nested"])
def test_a_sigint_at_any_bytecode_of_the_watch_leaves_its_handler_and_later_interrupts_working(
    tmp_path: Path, cell: str, request: pytest.FixtureRequest
) -> None:
    """``raising``: the cell's SIGINT raises KeyboardInterrupt (a sync-run loop); ``cancelling``: it cancels the cell
    (a kernel's async cell); ``nested``: the call runs inside a watch already begun (``await handle`` around it)."""
    if not in_child(request):  # its tracer raises from opcode events: a crash fails this test alone
        return
    runs = tmp_path / "runs"
    loop = asyncio.new_event_loop()
    original = signal.getsignal(signal.SIGINT)
    warnings.simplefilter("ignore")
    wrong: list[tuple[str, str]] = []
    cells: list[Any] = []  # the handler the call's cell put in place

    async def call(i: int) -> Any:
        task = asyncio.current_task()
        assert task is not None
        if cell == "cancelling":
            signal.signal(signal.SIGINT, _kernel_handler(loop, task))
        cells.append(signal.getsignal(signal.SIGINT))
        if cell == "nested":
            with watch_interrupts():
                return await noesis_nb.solve_async(f"s{i}", quick, runs_dir=runs)
        return await noesis_nb.solve_async(f"s{i}", quick, runs_dir=runs)

    try:
        k = 0
        while True:
            k += 1
            signal.signal(signal.SIGINT, signal.default_int_handler)
            cells.clear()
            sigint = _SigintAt(k)
            sys.settrace(sigint.calls)
            try:
                loop.run_until_complete(call(k))
            except (KeyboardInterrupt, asyncio.CancelledError, EpisodeInterrupted):
                pass
            finally:
                sys.settrace(None)
            _settle(loop)
            after = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            if not sigint.landed:  # every bytecode of the call has had its SIGINT
                break
            if after is not cells[0]:
                left = "the watch's own" if after is interrupt._on_sigint else repr(after)
                wrong.append((sigint.landed, f"the cell's handler not back in place after its watches ended: {left}"))
            said = _fresh_interrupt_ends_as_documented(loop, runs)
            if said:
                wrong.append((sigint.landed, said))
            if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
                wrong.append((sigint.landed, f"after the fresh episode the handler is {signal.getsignal(signal.SIGINT)}"))
    finally:
        sys.settrace(None)
        signal.signal(signal.SIGINT, original)
        loop.close()
    assert k > 60, k  # the watch's entry and exit were stepped through
    assert wrong == [], (len(wrong), wrong[:12])
