"""Another process holding a file's flock (a batch's lock, a run's copy lock) until the test lets it go."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..conftest import REPO

# holds an flock on argv[1] (made if missing) until argv[2] appears or argv[3] seconds went by, saying which
_HOLDER = """
import fcntl, os, sys, time
from pathlib import Path
path, release, seconds = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
path.parent.mkdir(parents=True, exist_ok=True)
fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("HELD", flush=True)
end = time.monotonic() + seconds
while not release.exists() and time.monotonic() < end:
    time.sleep(0.01)
print("RELEASED" if release.exists() else "TIMED OUT", flush=True)
os.close(fd)
"""


@contextmanager
def lock_held(path: Path, release: Path, seconds: float) -> Iterator[subprocess.Popen[str]]:
    """A process holding ``path``'s flock until ``release`` is made (it prints "RELEASED"), at most ``seconds``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [sys.executable, "-c", _HOLDER, str(path), str(release), str(seconds)]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "HELD"
        yield proc
    finally:
        release.touch()
        try:
            proc.wait(timeout=30)
        finally:
            proc.kill()
            proc.wait()
