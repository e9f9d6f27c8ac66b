"""Whether a run's folder lock is held by some process (tests look without taking it for long)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def lock_held(run_dir: Path) -> bool:
    """True while another process holds the run's lock (``flock`` on its folder); the lock is let go at once."""
    fd = os.open(run_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
