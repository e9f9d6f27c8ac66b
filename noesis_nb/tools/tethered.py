"""Run a tool's process tethered to this one: when this process dies (even by kill -9), the tool dies too.

A tool left running after its runner died finishes its effect later, unseen: a user who checks, sees nothing
yet and retries gets the effect twice. So on POSIX a watchdog (``/bin/sh``, a few hundred bytes of memory)
leads a new process group that the tool joins. It waits on a pipe only this process holds open: when the
pipe closes without the word ``done`` (this process died; the kernel closes its descriptors), it kills the
whole group, the tool and anything the tool started. A timeout kills the group too. Where no watchdog can
be started (Windows, no ``/bin/sh``), the tool runs as a plain child, killed only on timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["TetheredRun", "run_tethered"]

_SHELL = "/bin/sh"
# reads one line; anything but "done" (EOF when the runner died) kills the group it leads: itself and the tool.
# The group is not the terminal's foreground group: a tool reading the terminal stops the whole group (SIGTTIN),
# so the watchdog ignores the terminal's stop signals and stays able to act
_WATCH = 'trap "" TTIN TTOU TSTP; read -r word; [ "$word" = done ] || kill -KILL 0'


@dataclass(frozen=True)
class TetheredRun:
    returncode: int | None  # None when the timeout ended it
    stdout: str
    stderr: str


def _watchdog() -> tuple[subprocess.Popen[bytes], int] | None:
    """A watchdog leading a new process group, and the write end of its pipe; None where there can be none."""
    if os.name != "posix" or not os.access(_SHELL, os.X_OK):
        return None
    read_end, write_end = os.pipe()  # not inheritable: no other child of this process holds the write end
    try:
        dog = subprocess.Popen(
            [_SHELL, "-c", _WATCH],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,
        )
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return dog, write_end


def _release(watch: tuple[subprocess.Popen[bytes], int] | None, *, kill_group: bool) -> None:
    """Stop the watchdog: with ``kill_group`` let it kill the group (EOF), else tell it ``done``."""
    if watch is None:
        return
    dog, write_end = watch
    try:
        if not kill_group:
            os.write(write_end, b"done\n")
    except OSError:
        pass
    finally:
        os.close(write_end)
    dog.wait()


def run_tethered(argv: list[str], *, cwd: str | None, env: Mapping[str, str] | None, timeout: float | None) -> TetheredRun:
    """Run ``argv`` to the end (or ``timeout`` seconds), output decoded as UTF-8 with replacement.

    Blocks the calling thread (callers run it off the event loop). Raises OSError when ``argv`` cannot start."""
    watch = _watchdog()
    group = watch[0].pid if watch is not None else None
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            process_group=group,
        )
    except BaseException:
        _release(watch, kill_group=False)
        raise
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc, watch)
        out, err = proc.communicate()
        return TetheredRun(None, out or "", err or "")
    except BaseException:  # interrupted while waiting: the tool does not outlive the wait
        _kill(proc, watch)
        proc.wait()
        raise
    _release(watch, kill_group=False)
    return TetheredRun(proc.returncode, out or "", err or "")


def _kill(proc: subprocess.Popen[str], watch: tuple[subprocess.Popen[bytes], int] | None) -> None:
    """Kill the tool and everything it started (its group), else the tool alone.

    The group is killed from here, not through the watchdog: a stopped process (a tool that read the terminal,
    stopped by SIGTTIN with its group) is killed by SIGKILL, while a watchdog asked to act might be stopped too."""
    if watch is not None:
        try:
            os.killpg(watch[0].pid, signal.SIGKILL)
        except OSError:  # the group is gone already: the watchdog is told below
            pass
        _release(watch, kill_group=True)
        return
    try:
        proc.send_signal(signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)
    except OSError:
        pass
