"""SIGINT sent at a named point of ``resume_run``, before its resume takes its first step: the run is sealed cancelled.

``resume_run`` runs its resume with ``asyncio.run``. An interrupt landing while ``asyncio.run`` makes its loop (before
its own SIGINT handler is in place: a plain KeyboardInterrupt), or as it starts the resume's task (its handler cancels
the task before that ran) stopped the call with the run untouched, still paused and not sealed, where one landing a
moment later seals it ``cancelled``. A real process pauses a run (on a tool draft, or on a governance veto), decides
it, and calls ``resume_run`` (or ``ns.resume_run``) with an event loop policy that sends the process SIGINT at one of
those points: the call ends on the one line saying the run is sealed cancelled, the run is sealed ``cancelled`` and
free, and nothing the decision allowed ran (the tool, the adapter again)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from noesis_nb.store import is_sealed, read_final
from tests.compat.checker import check_run
from tests.runlock import lock_held

_REPO = Path(__file__).resolve().parents[2]

_RESUME = r"""
import asyncio, json, os, signal, sys, warnings
import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import EpisodeInterrupted

warnings.simplefilter("ignore")
point, pause, entry, runs, marker = sys.argv[1:6]
armed, sent = [False], []


def asks(task, ctx):
    return ctx.tool("fs.write", {"argv": ["touch", marker]}, effect="write", risk="high")


def goes_on(task, ctx):  # runs only once the veto is overridden
    open(marker, "w").close()
    return "done"


def send(at):
    if armed[0] and point == at and not sent:
        sent.append(at)
        os.kill(os.getpid(), signal.SIGINT)


class Loop(asyncio.SelectorEventLoop):
    def run_until_complete(self, future):
        send("task")  # asyncio.run's handler is in place and the resume's task made, not yet run
        return super().run_until_complete(future)


class Policy(asyncio.DefaultEventLoopPolicy):
    def new_event_loop(self):
        send("loop")  # asyncio.run making its loop: its handler not in place yet
        return Loop()


signal.signal(signal.SIGINT, signal.default_int_handler)
asyncio.set_event_loop_policy(Policy())
if pause == "draft":
    episode = noesis_nb.solve("touch a file", using=asks, runs_dir=runs)
else:
    episode = noesis_nb.solve("Wipe the staging database", using=goes_on, governance="enforce", pause_on_veto=True, runs_dir=runs)
noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs)
armed[0] = True
try:
    if entry == "resume_run":
        noesis_nb.resume_run(episode, using=goes_on if pause == "veto" else None, runs_dir=runs)
    else:
        ns.resume_run(episode, using=goes_on if pause == "veto" else None, runs_dir=runs)
    said = "ended"
except EpisodeInterrupted as exc:
    said = str(exc)
except KeyboardInterrupt:
    said = "raw KeyboardInterrupt"
print(json.dumps({"episode": episode, "sent": sent, "said": said}), flush=True)
sys.stdin.read()  # alive, holding whatever it holds, until the test has looked
"""


@pytest.mark.parametrize("entry", ["resume_run", "ns.resume_run"])
@pytest.mark.parametrize("pause", ["draft", "veto"])
@pytest.mark.parametrize("point", ["loop", "task"])
def test_an_interrupt_before_the_resume_begins_seals_its_run_cancelled(
    tmp_path: Path, point: str, pause: str, entry: str
) -> None:
    runs, marker = tmp_path / "runs", tmp_path / "ran"
    proc = subprocess.Popen(
        [sys.executable, "-c", _RESUME, point, pause, entry, str(runs), str(marker)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(_REPO)},
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, proc.communicate(timeout=60)[1][-3000:]
        told = json.loads(line)
        run = runs / told["episode"]
        sealed, locked = is_sealed(run), lock_held(run)
    finally:
        _, err = proc.communicate(input="", timeout=60)
    assert told["sent"] == [point], (told, err[-2000:])  # the interrupt was sent there, once
    said = told["said"]
    assert "\n" not in said and said.endswith("stopped by the interrupt; its run is sealed (cancelled)"), (said, err[-2000:])
    assert (sealed, locked, (read_final(run) or {}).get("outcome")) == (True, False, "cancelled"), said
    assert not marker.exists()  # nothing the decision allowed ran: the tool, the adapter again
    assert check_run(run) == []
