"""Start one episode in the runs directory given and SIGKILL its process while the adapter runs (a lost process).

Run as a script: ``python killed_run.py RUNS_DIR``. The run is left unsealed, as ``kill -9`` leaves it.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import noesis_nb


def agent(task: str, ctx: object) -> None:
    ctx.emit("reason", {"text": "thinking before the kill"})  # type: ignore[attr-defined]
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    noesis_nb.solve("a task", using=agent, runs_dir=sys.argv[1])
