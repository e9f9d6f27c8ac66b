"""SIGINT in the first milliseconds of a sync ``solve()``, while its run is being created: one line, a sealed run.

A real process calls ``solve()`` again and again and is sent SIGINT at seeded random moments in its first ~20 ms
(KeyboardInterrupt, as a kernel's sync cell gets it). While that process still lives, every run folder it left is
sealed and unlocked, no staging folder is left, and no KeyboardInterrupt escaped from inside the package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from noesis_nb.store import is_sealed
from tests.runlock import lock_held

_REPO = Path(__file__).resolve().parents[2]

_SWEEP = r"""
import json, os, random, signal, sys, traceback, warnings
import noesis_nb
from noesis_nb.errors import EpisodeInterrupted
warnings.simplefilter("ignore")
runs = sys.argv[1]

def agent(task, ctx):
    for i in range(40):
        ctx.emit("note", {"i": i})
    return "done"

noesis_nb.solve("warm", using=agent, runs_dir=runs)
signal.signal(signal.SIGALRM, lambda *a: os.kill(os.getpid(), signal.SIGINT))
rng = random.Random(12)
said = []
for i in range(30):
    try:
        signal.setitimer(signal.ITIMER_REAL, rng.uniform(0.0002, 0.02))
        try:
            noesis_nb.solve(f"s{i}", using=agent, runs_dir=runs)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        said.append("ended")
    except EpisodeInterrupted as exc:
        said.append("interrupted" if "\n" not in str(exc) else "two lines")
    except KeyboardInterrupt as exc:
        inside = [f.name for f in traceback.extract_tb(exc.__traceback__) if os.sep + "noesis_nb" + os.sep in f.filename]
        said.append("raw: " + " <- ".join(inside[::-1]) if inside else "before solve")
print(json.dumps(said), flush=True)
sys.stdin.read()  # alive, holding whatever it holds, until the test has looked
"""


def test_an_interrupt_while_solve_creates_its_run_leaves_it_sealed_and_free(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    sweep = subprocess.Popen(
        [sys.executable, "-c", _SWEEP, str(runs)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(_REPO)},  # this checkout's package, whatever the cwd
    )
    try:
        line = sweep.stdout.readline() if sweep.stdout else ""
        assert line, sweep.communicate(timeout=30)[1][-3000:]
        said = json.loads(line)
        folders = sorted(p for p in runs.iterdir())
        unsealed = [p.name for p in folders if p.name.startswith("ep_") and not is_sealed(p)]
        locked = [p.name for p in folders if p.name.startswith("ep_") and lock_held(p)]
        staging = [p.name for p in folders if not p.name.startswith("ep_")]
    finally:
        _, err = sweep.communicate(input="", timeout=30)
    raw = [s for s in said if s.startswith("raw") or s == "two lines"]
    assert (len(unsealed), len(locked), len(staging), len(raw)) == (0, 0, 0, 0), (unsealed, locked, staging, raw, err[-2000:])
    assert said.count("interrupted") >= 10, said  # the interrupts came while solve ran


_CREATING = ("create_episode", "_made_episode", "create", "_hand_on", "_launched")  # where a run is made and handed on


@pytest.mark.parametrize("mode", ["solve", "ns.solve", "start", "batch", "import", "resume"])
def test_an_interrupt_while_any_entry_point_makes_a_run_leaves_it_sealed_and_free(tmp_path: Path, mode: str) -> None:
    """``interrupt_sweep``: 150 calls of one entry point (solve, the facade's, a sync cell's start(), a batch a cell
    awaits, a trace import, resume_run of a decided pause), each sent SIGINT at a seeded moment in its first ~20 ms.
    However early it lands, every run folder is sealed (or its call's one EpisodeInterrupted line said it is not
    sealed yet) and unlocked while the process lives, no staging folder is left, and no KeyboardInterrupt comes out
    of the making of a run."""
    runs = tmp_path / "runs"
    sweep = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("interrupt_sweep.py")), mode, str(runs)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(_REPO)},
    )
    try:
        line = sweep.stdout.readline() if sweep.stdout else ""
        assert line, sweep.communicate(timeout=60)[1][-3000:]
        said = json.loads(line)
        folders = sorted(p for p in runs.iterdir() if p.name != "batches")
        said_unsealed = {s.split(": ", 1)[1] for s in said if s.startswith(("said unsealed: ", "untouched: "))}
        unsealed = [p.name for p in folders if p.name.startswith("ep_") and not is_sealed(p) and p.name not in said_unsealed]
        locked = [p.name for p in folders if p.name.startswith("ep_") and lock_held(p)]
        staging = [p.name for p in folders if not p.name.startswith("ep_")]
    finally:
        _, err = sweep.communicate(input="", timeout=60)
    # a KeyboardInterrupt before any run was asked for (the facade's or a batch's own checks) leaves nothing behind
    making = [s for s in said if s == "two lines" or (s.startswith("raw") and set(s[5:].split(" <- ")) & set(_CREATING))]
    left = {name: _what_is_in(runs / name) for name in unsealed}
    unusual = [s for s in said if s != "interrupted"]  # what the failure is about, ahead of the long list
    assert (unsealed, locked, staging, making) == ([], [], [], []), (left, unusual, err[-2000:])
    assert said.count("interrupted") >= 10, said  # the interrupts came while runs were made


def _what_is_in(run_dir: Path) -> tuple[list[str], list[str]]:
    """A run folder's files and its last events' phases (what an unsealed one got to)."""
    events = run_dir / "events.jsonl"
    lines = events.read_text().splitlines()[-4:] if events.exists() else []
    return sorted(p.name for p in run_dir.iterdir()), [json.loads(line).get("phase", "?") for line in lines]
