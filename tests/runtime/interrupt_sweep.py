"""A process that starts runs by one entry point again and again, sent SIGINT at seeded moments in each call's first
~20 ms (``python interrupt_sweep.py MODE RUNS_DIR``): it prints what each call ended with as one JSON line, then
stays alive, holding whatever it holds, until its standard input closes (``test_interrupt_while_creating``)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.errors import BatchInterrupted, EpisodeInterrupted
from noesis_nb.integrations.replay import import_rows
from noesis_nb.runtime.registry import live_handles
from noesis_nb.runtime.resume import paused_on

TRIES = 150


def agent(task: str, ctx: Any) -> str:
    for i in range(40):
        ctx.emit("note", {"i": i})
    return "done"


def asks(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.read", {"argv": ["true"]}, effect="write", risk="high")


async def _ended(handle: Any) -> None:
    """Once everything ``handle`` (an episode's or a batch's) started has ended."""
    if hasattr(handle, "entries"):  # a batch: its episodes (an interrupted batch starts no more)
        for entry in handle.entries:
            if entry.handle is not None:
                await entry.handle.wait()
        return
    await handle.wait()


def _none(i: int) -> None:
    return None


def _calls(mode: str, runs: str) -> tuple[Callable[[int], Any], Callable[[], None], Callable[[int], Path | None]]:
    """The call to interrupt (given the try's number), what lets every episode it started end, and the run a try
    continues (resume) or None."""
    loop = asyncio.new_event_loop()  # a kernel's: one loop, cells run on it with SIGINT raising KeyboardInterrupt
    handles: list[Any] = []

    def settle() -> None:  # between cells: the episodes a call started run to their end, out of the interrupt's way
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            handles.extend(live_handles().values())  # one a start() the interrupt ended after its launch returned
            while handles:
                ended = loop.create_task(_ended(handles.pop()))
                while not ended.done():  # a KeyboardInterrupt out of a cell's task leaves the loop's stop pending,
                    try:  # and a batch's tasks the interrupt stopped hand theirs on as the loop runs them
                        loop.run_until_complete(ended)
                    except (RuntimeError, KeyboardInterrupt, asyncio.CancelledError):
                        continue
        finally:
            signal.signal(signal.SIGINT, previous)

    if mode == "solve":
        return (lambda i: noesis_nb.solve(f"s{i}", using=agent, runs_dir=runs)), settle, _none
    if mode == "ns.solve":
        return (lambda i: noesis_nb.ns.solve(f"s{i}", using=agent, runs_dir=runs)), settle, _none
    if mode == "start":  # a sync cell calling start()

        async def cell(i: int) -> None:
            handles.append(noesis_nb.start(f"s{i}", using=agent, runs_dir=runs))
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the window is start() alone: its episode then runs unhurt

        return (lambda i: loop.run_until_complete(cell(i))), settle, _none
    if mode == "batch":  # an async cell awaiting a batch: SIGINT cancels the cell, as ipykernel's handler does

        async def cell_batch(i: int) -> None:
            handle = noesis_nb.batch([f"s{i}a", f"s{i}b"], agent, runs_dir=runs, batch_id=f"b{i}")
            handles.append(handle)
            await handle

        def async_cell(i: int) -> None:
            task = loop.create_task(cell_batch(i))
            previous = signal.signal(signal.SIGINT, lambda *a: loop.call_soon_threadsafe(task.cancel))
            try:
                loop.run_until_complete(task)
            finally:
                signal.signal(signal.SIGINT, previous)

        return async_cell, settle, _none
    if mode == "import":  # a recorded trace imported
        rows = [("message", {"kind": "message", "role": "user", "text": f"m{n}"}) for n in range(40)]
        return (lambda i: import_rows(iter(rows), task=f"s{i}", source="test", runs_dir=runs)), settle, _none
    if mode == "resume":  # runs paused on a decided draft, continued from disk
        paused = []
        for i in range(-1, TRIES):
            episode = noesis_nb.solve(f"p{i}", using=asks, runs_dir=runs)  # returns at the pause, on disk
            waiting = paused_on(Path(runs) / episode)
            assert waiting is not None, episode
            noesis_nb.approve_draft(episode, waiting[1], approver_id="ana", runs_dir=runs)
            paused.append(episode)
        return (lambda i: noesis_nb.resume_run(paused[i + 1], runs_dir=runs)), settle, lambda i: Path(runs) / paused[i + 1]
    raise SystemExit(f"unknown mode {mode!r}")


def main(mode: str, runs: str) -> None:
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGINT, signal.default_int_handler)
    call, settle, continued = _calls(mode, runs)
    call(-1)  # imports done: every try starts at once
    settle()
    signal.signal(signal.SIGALRM, lambda *a: os.kill(os.getpid(), signal.SIGINT))
    rng = random.Random(12)
    said = []
    for i in range(TRIES):
        run = continued(i)
        log = (run / "events.jsonl").read_bytes() if run is not None else None
        try:
            signal.setitimer(signal.ITIMER_REAL, rng.uniform(0.0002, 0.02))
            try:
                call(i)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            said.append("ended")
        except (EpisodeInterrupted, BatchInterrupted) as exc:
            said.append("interrupted" if "\n" not in str(exc) else "two lines")
            # the line says its run is not sealed (yet): the interrupt cut its seal short, or its adapter's thread
            # had not ended (neither is a run's making; the line tells what became of it)
            if "left unsealed" in str(exc) or "has not ended yet" in str(exc):
                said.append(f"said unsealed: {exc.episode_id}")  # type: ignore[union-attr]
        except asyncio.CancelledError:  # an async cell cancelled before the package's call began
            said.append("cancelled")
        except KeyboardInterrupt as exc:
            inside = [f.name for f in traceback.extract_tb(exc.__traceback__) if os.sep + "noesis_nb" + os.sep in f.filename]
            said.append("raw: " + " <- ".join(inside[::-1]) if inside else "outside")
            if run is not None and (run / "events.jsonl").read_bytes() == log and not (run / "final.json").exists():
                # resume_run's (or resume_blocking's) first instruction, before any try of theirs: the signal came
                # before the call did anything, the run untouched (paused, decided), as before the call
                said.append(f"untouched: {run.name}")
        settle()
        signal.signal(signal.SIGINT, signal.default_int_handler)
    print(json.dumps(said), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
