"""The kernel's interrupt (■) while a sync cell's ``start(…)`` makes its run: never a half-made run.

However early the SIGINT lands in the call, the cell returns the handle or ends on the one ``EpisodeInterrupted`` line
(never a KeyboardInterrupt traceback through the package), the kernel answers after each, and once the episodes
ended every run folder is sealed and unlocked, with no staging folder left.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.store import is_sealed
from tests.runlock import lock_held

pytestmark = pytest.mark.kernel

#: where a run is made and handed to its task (a KeyboardInterrupt through any of them could leave it half made)
_MAKING = ("create_episode", "_made_episode", "create", "_hand_on", "_launched", "launch")

AGENT = """
import os, signal, threading
_started = []
def early(task, ctx):
    for i in range(40):
        ctx.emit("note", {"i": i})
    return "done"
"""


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup(prelude=AGENT)
    kernel.run("await noesis_nb.start('warm', using=early).wait()")  # imports done: the next cells start at once


def _through_making(traceback: str) -> bool:
    plain = re.sub(r"\x1b\[[0-9;]*m", "", traceback)
    return any(re.search(rf"\bin (\w+\.)?{name}\(", plain) for name in _MAKING)


def test_an_interrupt_while_start_makes_its_run_leaves_no_half_made_run(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    rng = random.Random(11)
    ended: list[str] = []
    for i in range(40):
        cell = (  # the ■ (SIGINT, as interrupt_kernel sends it) from inside the cell, while start() runs
            f"_press = threading.Timer({rng.uniform(0.0, 0.012)!r}, os.kill, (os.getpid(), signal.SIGINT))\n"
            "_press.start()\n"
            "try:\n"
            f"    _started.append(noesis_nb.start('a{i}', using=early, runs_dir={str(runs)!r}))\n"
            "finally:\n"
            "    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the window is start() alone (the kernel restores its own)\n"
            "    _press.cancel()\n"
            "    _press.join()\n"
        )
        out = kernel.collect(kernel.kc.execute(cell), 30, "the interrupted cell did not end in 30 s")
        if out["raised"] is None:
            ended.append("returned")
        else:
            shown = "\n".join(out["traceback"])
            if out["raised"][0] == "EpisodeInterrupted" and "noesis_nb/" not in shown and len(out["traceback"]) <= 2:
                ended.append("one line")
            elif out["raised"][0] == "KeyboardInterrupt" and not _through_making(shown):
                ended.append("before or after the run was made")
            else:
                ended.append(f"{out['raised'][0]}: {shown[-600:]}")
        assert kernel.run("print(1 + 1)")["stdout"].strip() == "2"
    kernel.run("await asyncio.gather(*(h.wait() for h in _started))", timeout=60)
    folders = sorted(runs.iterdir())
    unsealed = [p.name for p in folders if p.name.startswith("ep_") and not is_sealed(p)]
    locked = [p.name for p in folders if p.name.startswith("ep_") and lock_held(p)]
    staging = [p.name for p in folders if not p.name.startswith("ep_")]
    odd = [e for e in ended if e not in ("returned", "one line", "before or after the run was made")]
    assert (odd, unsealed, locked, staging) == ([], [], [], []), ended
    assert ended.count("one line") >= 3, ended  # the interrupts came while start() made the runs
