"""Run a tool's process tethered to this one: when this process dies (even by kill -9), the tool dies too.

A tool left running after its runner died finishes its effect later, unseen: a user who checks, sees nothing
yet and retries gets the effect twice. So the tool runs under a watchdog that holds a pipe only this process
holds open: when the pipe closes (this process died; the kernel closes its descriptors) or the timeout comes,
the watchdog kills the tool and everything the tool started. The tool's standard input is ``/dev/null``.

On Linux the watchdog is ``_watchdog.py``, a Python process (one interpreter start-up per tool, measured by
``benchmarks/bench_tethered.py``): a child subreaper in its own session that starts the tool. Every process the
tool starts stays its descendant, a daemon too (double fork, ``setsid``), and all are killed, also when the tool
exits by itself leaving them behind: the result is then the tool's own, recorded when it exits, not when its last
child lets go of its output. No process under it has a controlling terminal: a tool opening ``/dev/tty`` gets an
error at once instead of stopping until its timeout.

Elsewhere (no prctl, or no usable Python executable) the watchdog is ``/bin/sh`` leading a process group that
the tool joins: a process that leaves the group (``setsid``) escapes it, and the tool's result waits for every
holder of its output. Where no watchdog can be started (Windows, no ``/bin/sh``), the tool runs as a plain
child, killed only on timeout.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from . import cutoff

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
    leftovers: int = 0  # processes besides the tool killed at its end (left running, or at the timeout); Linux only


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

    Blocks the calling thread (callers run it off the event loop). Raises OSError when ``argv`` cannot start, or
    when the tool call it belongs to was cut off (``cutoff``): a cut kills the tool and all it started from the
    thread that cuts, and waits until this returns."""
    with cutoff.held_place(argv[0]) as place:
        if _subreaper_possible():
            done = _run_watched(argv, cwd=cwd, env=env, timeout=timeout, place=place)
            if done is not None:
                return done
        return _run_grouped(argv, cwd=cwd, env=env, timeout=timeout, place=place)


def _run_grouped(
    argv: list[str],
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,
    timeout: float | None,
    place: cutoff.Place = cutoff.NO_PLACE,
) -> TetheredRun:
    """The tool in the process group a ``/bin/sh`` watchdog leads (where no subreaper can watch it)."""
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
    place.arm(lambda: _kill_now(proc, group))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        place.arm(_nothing)  # killed here (the watchdog reaped after: its id may then name another group)
        _kill(proc, watch)
        out, err = proc.communicate()
        return TetheredRun(None, out or "", err or "")
    except BaseException:  # interrupted while waiting: the tool does not outlive the wait
        place.arm(_nothing)
        _kill(proc, watch)
        proc.wait()
        raise
    place.arm(_nothing)  # ended: its group's id may name another group once the watchdog is reaped
    _release(watch, kill_group=False)
    return TetheredRun(proc.returncode, out or "", err or "")


def _kill_now(proc: subprocess.Popen[str], group: int | None) -> None:
    """Kill the tool's group (the watchdog, not reaped yet, keeps its id), else the tool (a cut from another thread)."""
    if group is not None:
        _killpg(group)
    elif proc.returncode is None:
        proc.kill()


def _nothing() -> None:
    return None


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


_WATCHDOG = Path(__file__).with_name("_watchdog.py")
_READ = 65536
_DRAIN_S = 2.0  # output still open once the tool's whole tree is dead is held outside it: read it this long more
_DOG_WAIT_S = 15.0  # the watchdog kills for up to 10 s (processes stuck in the kernel); after this it is killed


def _subreaper_possible() -> bool:
    """Whether the Linux watchdog can run: Linux, and this process's interpreter is a Python that can start it."""
    exe = sys.executable or ""
    return (
        sys.platform.startswith("linux")
        and os.path.basename(exe).lower().startswith(("python", "pypy"))
        and os.access(exe, os.X_OK)
        and _WATCHDOG.is_file()
        and os.path.isdir("/proc/self/task")  # where the watchdog finds the tool's descendants
    )


def _run_watched(
    argv: list[str],
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,
    timeout: float | None,
    place: cutoff.Place = cutoff.NO_PLACE,
) -> TetheredRun | None:
    """The tool under the Linux watchdog; None when the watchdog could not start (the tool did not either)."""
    watched = _Watched.start(argv, cwd, env)
    if watched is None:
        return None
    place.arm(watched.kill)  # a cut from another thread: the watchdog kills the tree, the pump below sees it end
    timed_out = False
    try:
        if not watched.pump(None if timeout is None else time.monotonic() + timeout):
            timed_out = True
            watched.kill()
            watched.pump(time.monotonic() + _DOG_WAIT_S)
    except BaseException:  # interrupted while waiting: the tool does not outlive the wait
        watched.kill()
        watched.end()
        raise
    watched.end()
    if not watched.status:  # the watchdog never ran (the interpreter could not run it): the tool did not start
        return None
    return watched.result(argv, cwd, timed_out)


class _Watched:
    """The runner's end of a Linux watchdog: reads the tool's output and the watchdog's status lines."""

    def __init__(self, dog: subprocess.Popen[bytes], control: int, status: int, out: int, err: int) -> None:
        self.dog, self.control = dog, control
        self._control_lock = threading.Lock()  # ``kill`` may come from another thread (a cut) than ``end``
        self.status, self.out, self.err = bytearray(), bytearray(), bytearray()
        self.open = {status: self.status, out: self.out, err: self.err}

    @classmethod
    def start(cls, argv: list[str], cwd: str | None, env: Mapping[str, str] | None) -> _Watched | None:
        pipes = [os.pipe() for _ in range(4)]  # control, status, stdout, stderr; none inheritable but as passed
        (control_r, control_w), (status_r, status_w), (out_r, out_w), (err_r, err_w) = pipes
        given = (control_r, status_w, out_w, err_w)
        try:
            dog = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_WATCHDOG), *map(str, given), cwd or "", "--", *argv],
                pass_fds=given,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=dict(env) if env is not None else None,
            )
        except OSError:
            for fd in (control_w, status_r, out_r, err_r):
                os.close(fd)
            return None
        except BaseException:  # an argument Popen refuses (a NUL byte in it): raised, no descriptor left open
            for fd in (control_w, status_r, out_r, err_r):
                os.close(fd)
            raise
        finally:
            for fd in given:
                os.close(fd)
        return cls(dog, control_w, status_r, out_r, err_r)

    def last(self) -> list[str]:
        """The watchdog's last complete status line, split in words."""
        lines = bytes(self.status).decode("ascii", "replace").split("\n")[:-1]
        return lines[-1].split() if lines else []

    def finished(self) -> bool:
        return self.last()[:1] in (["exit"], ["killed"], ["error"])

    def pump(self, deadline: float | None) -> bool:
        """Read what is ready until every pipe closed (True) or ``deadline`` passed (False)."""
        with selectors.DefaultSelector() as selector:
            for fd, sink in self.open.items():
                selector.register(fd, selectors.EVENT_READ, sink)
            while self.open:
                wait = None if deadline is None else deadline - time.monotonic()
                if wait is not None and wait <= 0:
                    return False
                for key, _ in selector.select(wait):
                    data = os.read(key.fd, _READ)
                    if data:
                        key.data.extend(data)
                        continue
                    selector.unregister(key.fd)
                    os.close(key.fd)
                    del self.open[key.fd]
                    if key.data is self.status and not self.finished():  # the tool killed its watchdog
                        _killpg(self.dog.pid)  # not reaped yet: its id still names its session only
                if self.finished() and (deadline is None or deadline - time.monotonic() > _DRAIN_S):
                    deadline = time.monotonic() + _DRAIN_S  # the tree is dead: what still holds the output is not ours
        return True

    def kill(self) -> None:
        """End of file on the control pipe: the watchdog kills every descendant and reports."""
        self._close_control()
        try:
            self.dog.send_signal(signal.SIGCONT)  # a watchdog the tool stopped acts all the same
        except OSError:
            pass

    def _close_control(self) -> None:
        with self._control_lock:
            if self.control >= 0:
                os.close(self.control)
                self.control = -1

    def end(self) -> None:
        """Reap the watchdog once it finished (killing its session first if it died or hangs without reporting)."""
        self._close_control()  # after its report this changes nothing; else it is asked to kill the tree
        exited = self._exited(time.monotonic() + _DOG_WAIT_S)
        for fd, sink in self.open.items():
            if sink is self.status and exited:  # its last words, written before it exited
                os.set_blocking(fd, False)
                try:
                    sink.extend(os.read(fd, _READ))
                except BlockingIOError:
                    pass
            os.close(fd)
        self.open.clear()
        if not self.finished():  # died or hangs without reporting (the tool killed or stopped it): its session goes,
            _killpg(self.dog.pid)  # while it is not reaped, so its id can name nothing else
        if not exited:
            self.dog.kill()
        self.dog.wait()

    def _exited(self, deadline: float) -> bool:
        """Wait until ``deadline`` for the watchdog to exit, without reaping it; whether it did."""
        pause = 0.0005
        while True:
            try:
                if os.waitid(os.P_PID, self.dog.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                    return True
            except ChildProcessError:  # reaped already (SIGCHLD ignored in this process)
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def result(self, argv: list[str], cwd: str | None, timed_out: bool) -> TetheredRun:
        word, out, err = self.last(), _text(self.out), _text(self.err)
        if word[:1] == ["error"]:
            number = int(word[1])
            raise OSError(number, os.strerror(number) if number else "cannot run", cwd if word[2] == "cwd" else argv[0])
        if word[:1] == ["exit"]:
            return TetheredRun(int(word[1]), out, err, int(word[2]))
        if word[:1] == ["killed"] or timed_out:
            return TetheredRun(None, out, err, int(word[1]) if word[:1] == ["killed"] else 0)
        started = any(line.startswith(b"started ") for line in bytes(self.status).split(b"\n"))
        if (self.dog.returncode or 0) > 0:  # it failed by itself (a signal is how a tool ends it)
            ran = "the tool was killed, but whether it had its effect is unknown" if started else "the tool never started"
            raise OSError(
                f"the watchdog that runs {argv[0]!r} failed (exit code {self.dog.returncode}) before the tool ended; "
                f"{ran}: check before running it again, and report this as a noesis_nb bug"
            )
        raise OSError(
            f"the watchdog of {argv[0]!r} ended (code {self.dog.returncode}) before the tool did (a tool must not "
            "signal its parent process); the tool was killed, but whether it had its effect is unknown: check before "
            "running it again"
        )


def _killpg(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass


def _text(data: bytearray) -> str:
    """Decoded as text-mode ``subprocess`` does: UTF-8 with replacement, universal newlines."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
