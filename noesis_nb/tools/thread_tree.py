"""The processes one thread of this process started, and everything they started: found and killed (Linux).

Linux lists a process's children per thread (``/proc/<pid>/task/<tid>/children``), so the processes a ``python``
tool's function started on its thread are told from those of other tools and episodes running meanwhile. The tree
is frozen (SIGSTOP) walk by walk until a walk finds nothing new, so no process forks a child out of reach (a child
whose parent dies is handed to init and leaves the tree), and then killed. What left the tree before the cut (a
daemon, double-forked) is out of reach: the ``subprocess`` protocol's watchdog catches those, a thread cannot.
"""

from __future__ import annotations

import os
import signal
import time

from . import _watchdog

__all__ = ["listed", "started_by", "kill_started_by"]


def listed() -> bool:
    """Whether this kernel lists each thread's children (Linux with ``CONFIG_PROC_CHILDREN``)."""
    return os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def started_by(tid: int) -> dict[int, int]:
    """The living processes thread ``tid`` of this process started, and their descendants: pid -> start time."""
    try:
        with open(f"/proc/{os.getpid()}/task/{tid}/children", "rb") as f:
            children = [int(word) for word in f.read().split()]
    except OSError:  # the thread ended: its children went to another thread of this process, out of reach
        return {}
    found: dict[int, int] = {}
    for child in children:
        stat = _watchdog._stat(str(child))
        if stat is not None and stat[1] not in ("Z", "X"):
            found[child] = stat[2]
        found.update(_watchdog._descendants(child))
    return found


def kill_started_by(tid: int, deadline: float) -> bool:
    """SIGKILL every process thread ``tid`` started, with all they started; True once none lives (by ``deadline``).

    A killed child of the thread stays a zombie until the thread's code waits for it (as ``subprocess.run`` does):
    dead, its effect over."""
    frozen: dict[int, int] = {}
    while time.monotonic() < deadline:  # freeze walk by walk: a stopped process forks nothing more
        new = {pid: started for pid, started in started_by(tid).items() if pid not in frozen}
        if not new:
            break
        for pid, started in new.items():
            _signal(pid, started, signal.SIGSTOP)
        frozen.update(new)
    for pid, started in frozen.items():
        _signal(pid, started, signal.SIGKILL)
    while True:
        # the frozen ones (handed to init as their parents died), and any started after the freeze (before the
        # refusal took hold): killed too
        left = {pid: started for pid, started in frozen.items() if _living(pid, started)} | started_by(tid)
        if not left:
            return True
        if time.monotonic() >= deadline:
            return False
        for pid, started in left.items():
            _signal(pid, started, signal.SIGKILL)
        time.sleep(0.002)


def _living(pid: int, started: int) -> bool:
    stat = _watchdog._stat(str(pid))
    return stat is not None and stat[2] == started and stat[1] not in ("Z", "X")


def _signal(pid: int, started: int, signum: int) -> None:
    """Send ``signum`` to ``pid`` if it is still the process walked (the same start time)."""
    stat = _watchdog._stat(str(pid))
    if stat is None or stat[2] != started:
        return
    try:
        os.kill(pid, signum)
    except OSError:
        pass
