"""A tool that reads the terminal is still ended by its timeout when its runner sits in a terminal.

The tool runs in the process group its watchdog leads (so it dies with its runner), which is not the terminal's
foreground group: reading ``/dev/tty`` stops the whole group (SIGTTIN), the watchdog with it. The timeout asked
that stopped watchdog to kill the group and waited for it for ever. Here a real pseudo-terminal makes the runner
its foreground process; the tool prompts for a password and reads it.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

RUNNER = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
from noesis_nb.tools.tethered import run_tethered
argv = ["sh", "-c", "printf 'password: ' > /dev/tty; read x < /dev/tty; echo got=$x"]
t0 = time.monotonic()
done = run_tethered(argv, cwd=None, env=None, timeout=2)
with open(sys.argv[1], "w") as out:
    json.dump({"returncode": done.returncode, "seconds": time.monotonic() - t0}, out)
"""


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal and process groups are POSIX")
def test_a_tool_reading_the_terminal_is_ended_by_its_timeout(tmp_path: Path) -> None:
    result = tmp_path / "result.json"
    pid, fd = pty.fork()
    if pid == 0:  # the runner, in the terminal's foreground
        os.execv(sys.executable, [sys.executable, "-c", RUNNER, str(result), str(REPO)])
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end and not result.exists():
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    os.read(fd, 1024)  # the prompt, if it reaches the terminal; nobody answers it
                except OSError:
                    break
    finally:
        if not result.exists():
            os.killpg(os.getpgid(pid), signal.SIGKILL) if _alive(pid) else None
        _reap(pid)
        os.close(fd)
    assert result.exists(), "the runner never returned: the timeout did not end a tool stopped by reading the terminal"
    got = json.loads(result.read_text())
    assert got["returncode"] is None and got["seconds"] < 15, got  # ended by its 2 s timeout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
