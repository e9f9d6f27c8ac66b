"""The watchdog a tethered tool runs under on Linux: it starts the tool and kills everything the tool started.

Run as a script (``python -I -S _watchdog.py CONTROL STATUS OUT ERR CWD -- ARGV...``; standard library only, so
it starts without importing the package). It makes itself a child subreaper, so every process the tool starts
stays its descendant even after a double fork and ``setsid`` (a daemon), and leads its own session, so no
process under it has a controlling terminal (opening ``/dev/tty`` fails at once instead of stopping the tool).

It reads nothing from CONTROL: end of file there (the runner closed it, or died and the kernel closed it) kills
every descendant. When the tool exits by itself, the descendants it left behind are killed as well: nothing the
tool started outlives the result the runner records. STATUS gets one line per event: ``ready``, then
``started PID`` or ``error ERRNO WHERE``, then ``exit CODE LEFTOVERS`` or ``killed LEFTOVERS``.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36
_QUIET_WALKS = 2  # a tree is empty after this many walks in a row find nothing (a walk can miss a reparenting)
_KILL_LIMIT_S = 10.0  # processes stuck in the kernel (state D) die when they leave it; the watchdog stops waiting


def _subreaper() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (ImportError, OSError, AttributeError):  # no prctl: descendants are found while their parents live
        pass


def _stat(pid: str) -> tuple[int, str, int] | None:
    """``(ppid, state, start time)`` of ``pid``, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0].decode(), int(fields[19])


def _children(pid: int) -> list[int] | None:
    """Children of every thread of ``pid``; None where the kernel does not list them."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                found += [int(word) for word in f.read().split()]
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{task}"):
                continue
            return None
        except OSError:
            continue
    return found


def _descendants(root: int) -> dict[int, int]:
    """Living descendants of ``root`` and their start times (zombies are dead already)."""
    listed = _children(root)
    if listed is None:
        return _descendants_by_scan(root)
    found: dict[int, int] = {}
    queue = listed
    while queue:
        pid = queue.pop()
        stat = _stat(str(pid))
        if stat is None or pid in found:
            continue
        if stat[1] not in ("Z", "X"):
            found[pid] = stat[2]
        queue += _children(pid) or []
    return found


def _descendants_by_scan(root: int) -> dict[int, int]:
    """The same, from every process's parent in ``/proc`` (kernels without the children lists)."""
    stats = {int(name): stat for name in os.listdir("/proc") if name.isdigit() and (stat := _stat(name)) is not None}
    below: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in stats.items():
        below.setdefault(ppid, []).append(pid)
    found: dict[int, int] = {}
    queue = list(below.get(root, ()))
    while queue:
        pid = queue.pop()
        if pid in found:
            continue
        if stats[pid][1] not in ("Z", "X"):
            found[pid] = stats[pid][2]
        queue += below.get(pid, ())
    return found


def _kill(pid: int, started: int) -> int | None:
    """SIGKILL ``pid`` if it is still the process listed (same start time); a pidfd to wait on, if any."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:  # gone since the walk: its pid may be someone else's already
        return None
    except (AttributeError, OSError):  # no pidfds (Linux < 5.3): a plain kill, right after the walk
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        return None
    stat = _stat(str(pid))  # the pidfd pins the process: a pid reused since the walk is not signalled
    try:
        if stat is not None and stat[2] == started:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass
    return fd


class Watchdog:
    def __init__(self, status: int) -> None:
        self.status = status
        self.tool: int | None = None
        self.tool_code: int | None = None

    def say(self, line: str) -> None:
        try:
            os.write(self.status, (line + "\n").encode())
        except OSError:  # the runner is gone: the tree is killed all the same
            pass

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.tool:
                self.tool_code = os.waitstatus_to_exitcode(status)

    def kill_all(self) -> int:
        """Kill every descendant, again until none remains (a forking process races the walk); how many."""
        killed: set[int] = set()
        quiet, end = 0, time.monotonic() + _KILL_LIMIT_S
        me = os.getpid()
        self.reap()
        if self.tool is not None and self.tool_code is None:  # not reaped, so its pid is still its own
            os.kill(self.tool, signal.SIGKILL)
        while quiet < _QUIET_WALKS and time.monotonic() < end:
            self.reap()
            found = _descendants(me)
            if not found:
                quiet += 1
                time.sleep(0.001)
                continue
            quiet = 0
            fds = [fd for pid, started in found.items() if (fd := _kill(pid, started)) is not None]
            killed.update(found)
            _wait_gone(fds, end)
        self.reap()
        return len(killed - {self.tool})

    def start(self, argv: list[str], cwd: str, out: int, err: int) -> bool:
        """Fork and exec the tool; False (reported) when it could not start."""
        check_r, check_w = os.pipe()  # close-on-exec: end of file with no word means the exec succeeded
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child replaces itself with the tool
            _exec(argv, cwd, out, err, check_w)
        os.close(check_w)
        os.close(out)
        os.close(err)
        self.tool = pid
        with os.fdopen(check_r, "rb") as check:
            failure = check.read()
        if failure:
            self.reap()
            self.say(f"error {failure.decode()}")
            return False
        self.say(f"started {pid}")
        return True


def _wait_gone(fds: list[int], end: float) -> None:
    """Wait (until ``end`` at most) for the processes behind ``fds`` to exit, then close the fds."""
    try:
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        pending = set(fds)
        while pending and time.monotonic() < end:
            for fd, _ in poller.poll(max(1, int((end - time.monotonic()) * 1000))):
                pending.discard(fd)
                poller.unregister(fd)
    finally:
        for fd in fds:
            os.close(fd)


def _exec(argv: list[str], cwd: str, out: int, err: int, check_w: int) -> None:
    """In the forked child: standard streams, default signals, no other descriptor, then the tool."""
    where = "cwd"
    try:
        for number in (signal.SIGPIPE, signal.SIGCHLD, signal.SIGTTIN, signal.SIGTTOU, signal.SIGTSTP, signal.SIGXFSZ):
            signal.signal(number, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.closerange(3, check_w)
        os.closerange(check_w + 1, 1 << 20)
        if cwd:
            os.chdir(cwd)
        where = "exec"
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(check_w, f"{exc.errno or 0} {where}".encode())
    except BaseException:
        os.write(check_w, f"0 {where}".encode())
    os._exit(127)


def main(args: list[str]) -> int:
    control, status, out, err = (int(word) for word in args[:4])
    cwd, argv = args[4], args[6:]
    for fd in (control, status):
        os.set_inheritable(fd, False)
    dog = Watchdog(status)
    _subreaper()
    try:
        os.setsid()
    except OSError:  # a group leader already (cannot happen when started by the runner)
        pass
    for number in (signal.SIGTTIN, signal.SIGTTOU, signal.SIGTSTP):
        signal.signal(number, signal.SIG_IGN)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    dog.say("ready")
    if not dog.start(argv, cwd, out, err):
        return 0
    poller = select.poll()  # not select(): a runner holding 1,024+ descriptors passes numbers select() refuses
    poller.register(control, select.POLLIN)
    poller.register(wake_r, select.POLLIN)
    while True:
        dog.reap()
        if dog.tool_code is not None:  # the tool ended by itself: what it left behind goes too
            dog.say(f"exit {dog.tool_code} {dog.kill_all()}")
            return 0
        try:
            ready = {fd for fd, _ in poller.poll()}
        except InterruptedError:
            continue
        if wake_r in ready:
            os.read(wake_r, 4096)
        if control in ready and not os.read(control, 4096):
            dog.reap()
            ended = dog.tool_code is not None
            leftovers = dog.kill_all()
            dog.say(f"exit {dog.tool_code} {leftovers}" if ended else f"killed {leftovers}")
            return 0


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))  # nothing buffered to flush: every write is os.write; skips the finalization
