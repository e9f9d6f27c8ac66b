"""SIGINT in the first milliseconds of a sync ``solve()``, while its run is being created: one line, a sealed run.

A real process calls ``solve()`` again and again and is sent SIGINT at seeded random moments in its first ~20 ms
(KeyboardInterrupt, as a kernel's sync cell gets it). While that process still lives, every run folder it left is
sealed and unlocked, no staging folder is left, and no KeyboardInterrupt escaped from inside the package.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

from noesis_nb.store import is_sealed

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


def _locked(run_dir: Path) -> bool:
    fd = os.open(run_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


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
        locked = [p.name for p in folders if p.name.startswith("ep_") and _locked(p)]
        staging = [p.name for p in folders if not p.name.startswith("ep_")]
    finally:
        _, err = sweep.communicate(input="", timeout=30)
    raw = [s for s in said if s.startswith("raw") or s == "two lines"]
    assert (len(unsealed), len(locked), len(staging), len(raw)) == (0, 0, 0, 0), (unsealed, locked, staging, raw, err[-2000:])
    assert said.count("interrupted") >= 10, said  # the interrupts came while solve ran
