"""Ctrl-C in a script whose loop nest_asyncio patched: the run is sealed cancelled and the interrupt reaches the caller.

nest_asyncio's ``asyncio.run`` installs no SIGINT handler, so Ctrl-C raises KeyboardInterrupt at whatever bytecode the
loop thread runs: in a step of the episode's task, in a step of the task awaiting a sync adapter's thread, in a plain
callback. One landing in a task's step was taken for the adapter's own KeyboardInterrupt: the run sealed ``error``
(adapter_error or runtime_error), a ``start()`` episode kept it on its handle, so ``asyncio.run`` returned with the
interrupt lost, and the adapter's thread, going on, raised EpisodeStateError into a future nobody read (stderr:
"Future exception was never retrieved"). A real process (``nest_asyncio.apply()``, ``asyncio.run`` doing ``start()``
then ``await handle``) sends itself SIGINT at a named point, or at a seeded instant, while a sync adapter makes model
calls on its thread."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from noesis_nb.store import read_final
from tests.compat.checker import check_run

_REPO = Path(__file__).resolve().parents[2]

_SCRIPT = r"""
import asyncio, collections.abc, json, os, signal, sys, threading, time, warnings
import nest_asyncio
import noesis_nb
from noesis_nb.errors import EpisodeInterrupted

warnings.simplefilter("ignore")
point, runs = sys.argv[1:3]
nest_asyncio.apply()
sent, calls, LOOP = [], [], []


def agent(task, ctx):
    for i in range(40):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=812 + i, output_tokens=57)
        calls.append(i)
        if i == 3 and point == "callback":  # a plain callback of the loop's
            sent.append(point)
            LOOP[0].call_soon_threadsafe(signal.raise_signal, signal.SIGINT)
        time.sleep(0.01)
    return "done"


class Landing(collections.abc.Coroutine):
    # A task's coroutine, handed SIGINT in its first step once that step reached its await (the adapter's thread
    # started): the KeyboardInterrupt the signal raises lands at that await, as Ctrl-C there does
    def __init__(self, coro):
        self.coro, self.steps = coro, 0

    def send(self, value):
        self.steps += 1
        waits = self.coro.send(value)
        if self.steps == 1 and not sent:
            sent.append(point)
            try:
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt as landed:
                return self.coro.throw(landed)
        return waits

    def throw(self, *exc):
        return self.coro.throw(*exc)

    def close(self):
        return self.coro.close()

    def __await__(self):
        return self


TARGET = {"episode": "Episode.run", "adapter": "Stoppable.run"}.get(point)


def factory(loop, coro, **kwargs):
    if getattr(coro, "__qualname__", "") == TARGET:
        coro = Landing(coro)
    return asyncio.Task(coro, loop=loop, **kwargs)


async def main():
    LOOP.append(asyncio.get_running_loop())
    if TARGET:
        asyncio.get_running_loop().set_task_factory(factory)
    h = noesis_nb.start("sum the invoices", using=agent, runs_dir=runs, approver="auto")
    print(json.dumps({"episode": h.episode_id}), flush=True)
    await h
    return h.status


try:
    said = "returned " + asyncio.run(main())
except EpisodeInterrupted as exc:
    said = "EpisodeInterrupted: " + str(exc)
except KeyboardInterrupt:
    said = "KeyboardInterrupt"
time.sleep(0.3)  # the adapter's thread, still going, would raise into a future nobody reads now
print(json.dumps({"said": said, "sent": sent, "threads": [t.name for t in threading.enumerate()]}), flush=True)
"""


def _interrupted_run(runs: Path, point: str, delay_s: float | None = None) -> tuple[Path, str, str, list[str]]:
    """Run the script (SIGINT at ``point``, or ``delay_s`` after its run exists); its run, its line, stderr, what sent."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _SCRIPT, point, str(runs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(_REPO)},
    )
    first = proc.stdout.readline() if proc.stdout else ""
    if delay_s is not None and first:
        time.sleep(delay_s)
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert first and out.strip(), err[-3000:]
    told = json.loads(out.strip().splitlines()[-1])
    return runs / json.loads(first)["episode"], told["said"], err, told["sent"]


def _assert_interrupted(run: Path, said: str, err: str) -> None:
    final = read_final(run) or {}
    assert (final.get("outcome"), said.split(":")[0]) in {
        ("cancelled", "KeyboardInterrupt"),
        ("cancelled", "EpisodeInterrupted"),
    }, (final.get("outcome"), final.get("reason"), said, err[-3000:])
    assert "never retrieved" not in err and "EpisodeStateError" not in err, err[-3000:]
    assert check_run(run) == []


@pytest.mark.parametrize("point", ["episode", "adapter", "callback"])
def test_ctrl_c_at_a_named_point_under_nest_asyncio_seals_cancelled_and_reaches_the_caller(tmp_path: Path, point: str) -> None:
    run, said, err, sent = _interrupted_run(tmp_path / "runs", point)
    assert sent == [point], (said, err[-3000:])
    _assert_interrupted(run, said, err)


def test_ctrl_c_at_seeded_instants_under_nest_asyncio_seals_cancelled_and_reaches_the_caller(tmp_path: Path) -> None:
    chance = random.Random(20261206)
    for k in range(12):
        run, said, err, _ = _interrupted_run(tmp_path / f"runs{k}", "none", delay_s=chance.uniform(0.0, 0.35))
        _assert_interrupted(run, said, err)
