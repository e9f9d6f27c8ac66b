"""The kernel's interrupt (■) in the first milliseconds of ``await solve_async(…)``, while its run is being made.

However early it lands, the cell ends on the one ``EpisodeInterrupted`` line (or, too late to stop it, with the
episode's id), never a bare ``CancelledError`` traceback through the package; the kernel answers after each.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.kernel

AGENT = """
import os, signal, threading
async def early(task, ctx):
    for i in range(40):
        ctx.emit("note", {"i": i})
    return "done"
"""


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup(prelude=AGENT)
    kernel.run("await noesis_nb.solve_async('warm', using=early)")  # imports done: the next cells start at once


def test_an_interrupt_as_solve_async_begins_ends_on_one_line(kernel: Any, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    rng = random.Random(7)
    ended: list[str] = []
    for i in range(12):
        cell = (  # the ■ (SIGINT, as interrupt_kernel sends it) from inside the cell: never between two cells
            f"_press = threading.Timer({rng.uniform(0.0, 0.02)!r}, os.kill, (os.getpid(), signal.SIGINT))\n"
            "_press.start()\n"
            "try:\n"
            f"    await noesis_nb.solve_async('a{i}', using=early, runs_dir={str(runs)!r})\n"
            "finally:\n"
            "    _press.join()\n"
        )
        out = kernel.collect(kernel.kc.execute(cell), 30, "the interrupted cell did not end in 30 s")
        if out["raised"] is None:
            ended.append("returned")
        else:
            shown = "\n".join(out["traceback"])
            ok = out["raised"][0] == "EpisodeInterrupted" and "noesis_nb/" not in shown and len(out["traceback"]) <= 2
            ended.append("one line" if ok else f"{out['raised'][0]}: {shown[-300:]}")
        assert kernel.run("print(1 + 1)")["stdout"].strip() == "2"
    assert [e for e in ended if e not in ("returned", "one line")] == [], ended
    assert ended.count("one line") >= 3, ended  # the interrupts came while the cells ran
