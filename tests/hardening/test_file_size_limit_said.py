"""A write refused with EFBIG (a file past the process's file size limit, ``ulimit -f``, or its file system's
largest file) is said as that, with its fix, never as a full disk to free space on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import json, resource, signal, sys
import noesis_nb
root = sys.argv[1]
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write then fails with EFBIG instead of the process dying
async def agent(task, ctx):
    for i in range(40):
        ctx.emit("note", {"i": i, "pad": "y" * 300})
    return "done"
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (4000, hard))
try:
    noesis_nb.solve("t", using=agent, runs_dir=root)
    said = {"raised": None}
except BaseException as exc:
    said = {"raised": type(exc).__name__, "errno": getattr(exc, "errno", None), "message": str(exc)}
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
print(json.dumps(said))
"""


def test_a_file_past_the_size_limit_is_said_as_such(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(root)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["raised"] == "RunWriteError" and said["errno"] == 27, said  # EFBIG
    message = said["message"]
    assert "EFBIG" in message and "ulimit -f" in message and "largest" in message
    assert "free space" not in message  # before: "File too large (EFBIG); free space on that disk"
