"""A SIGINT at every bytecode of the making of a run, not at random moments: ``solve``, ``solve_async`` on a loop
whose SIGINT raises (a sync-run loop, a patched one) and a sync cell's ``start``.

The interpreter runs a Python signal handler between two bytecodes of the main thread; here a tracer calls the
handler in place (the package's hold, or the default one raising KeyboardInterrupt) at the k-th bytecode run in
``runtime/api.py`` and ``runtime/interrupt.py`` (where a run is made and handed on), for every k until the episode's
own ``run`` begins. Whatever k: every run folder made is sealed and unlocked, no staging folder is left; a
KeyboardInterrupt comes out raw only before any run exists, or (``start``) from the hold's own end, its run then
owned by its task; else the call ends with the one ``EpisodeInterrupted`` line (``test_interrupt_while_creating``
sends real signals, at random).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeInterrupted
from noesis_nb.runtime.episode import Episode
from noesis_nb.store import is_sealed
from tests.runlock import lock_held
from tests.runtime.in_child import in_child

_PKG = os.sep + "noesis_nb" + os.sep
_WATCHED = (os.path.join("runtime", "api.py"), os.path.join("runtime", "interrupt.py"))
#: where a start() may let a KeyboardInterrupt out once its run exists: the hold's end, its task owning the run
_HOLD_ENDS = {"held_interrupts", "create_and_launch", "start"}


def agent(task: str, ctx: Any) -> str:
    ctx.emit("note", {"i": 1})
    return "done"


class _SigintAt:
    """A tracer running the SIGINT handler in place at the ``k``-th bytecode of the watched files (until
    ``Episode.run`` begins); ``landed`` names where."""

    def __init__(self, k: int) -> None:
        self.k, self.seen, self.landed, self.done = k, 0, "", False

    def calls(self, frame: FrameType, event: str, arg: Any) -> Any:
        if self.done:
            return None
        if frame.f_code is Episode.run.__code__:  # the episode's own path from here
            self.done = True
            return None
        if _PKG in frame.f_code.co_filename and frame.f_code.co_filename.endswith(_WATCHED):
            frame.f_trace_opcodes = True
            return self.opcodes
        return None

    def opcodes(self, frame: FrameType, event: str, arg: Any) -> Any:
        if self.done or event != "opcode":
            return self.opcodes
        self.seen += 1
        if self.seen == self.k:
            self.done = True
            self.landed = f"{frame.f_code.co_name}:{frame.f_lineno}"
            sys.settrace(None)
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler):
                handler(signal.SIGINT, frame)  # what the interpreter does between two bytecodes
        return self.opcodes


def _entry(mode: str, runs: Path, loop: asyncio.AbstractEventLoop) -> Callable[[int], Any]:
    if mode == "solve":
        return lambda i: noesis_nb.solve(f"s{i}", using=agent, runs_dir=runs)
    if mode == "solve_async":  # run_until_complete under the default handler: a SIGINT raises KeyboardInterrupt
        return lambda i: loop.run_until_complete(noesis_nb.solve_async(f"s{i}", using=agent, runs_dir=runs))

    async def cell(i: int) -> Any:  # a sync cell's start(): its episode then runs on the loop
        return noesis_nb.start(f"s{i}", using=agent, runs_dir=runs)

    return lambda i: loop.run_until_complete(cell(i))


def _settle(loop: asyncio.AbstractEventLoop) -> None:
    tasks = asyncio.all_tasks(loop)
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


@pytest.mark.parametrize("mode", ["solve", "solve_async", "start"])
def test_a_sigint_at_any_bytecode_of_a_runs_making_leaves_it_sealed_and_says_one_line(
    tmp_path: Path, mode: str, request: pytest.FixtureRequest
) -> None:
    if not in_child(request):  # its tracer raises from opcode events: a crash fails this test alone
        return
    runs = tmp_path / "runs"
    loop = asyncio.new_event_loop()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    warnings.simplefilter("ignore")
    call = _entry(mode, runs, loop)
    wrong: list[tuple[str, str, list[str]]] = []
    try:
        call(-1)
        _settle(loop)
        k = 0
        while True:
            k += 1
            before = set(runs.iterdir())
            sigint = _SigintAt(k)
            sys.settrace(sigint.calls)
            try:
                call(k)
                said = "ended"
            except EpisodeInterrupted as exc:
                said = "interrupted" if "\n" not in str(exc) else f"two lines: {exc}"
            except KeyboardInterrupt as exc:
                inside = [f.name for f in traceback.extract_tb(exc.__traceback__) if _PKG in f.filename]
                said = "raw: " + " <- ".join(inside[::-1])
            finally:
                sys.settrace(None)
                signal.signal(signal.SIGINT, signal.default_int_handler)
            _settle(loop)  # start's episode runs to its end
            if not sigint.landed:  # every bytecode up to the episode's run has had its SIGINT
                break
            made = sorted(p.name for p in set(runs.iterdir()) - before)
            left = [f"unsealed {n}" for n in made if n.startswith("ep_") and not is_sealed(runs / n)]
            left += [f"locked {n}" for n in made if n.startswith("ep_") and lock_held(runs / n)]
            left += [f"staging {n}" for n in made if not n.startswith("ep_")]
            raw_once_made = said.startswith("raw") and made and (mode != "start" or set(said[5:].split(" <- ")) - _HOLD_ENDS)
            if left or said.startswith("two lines") or raw_once_made:
                wrong.append((sigint.landed, said, left))
    finally:
        sys.settrace(None)
        signal.signal(signal.SIGINT, previous)
        loop.close()
    assert k > 100, k  # the making of a run was stepped through
    assert wrong == [], wrong[:12]
