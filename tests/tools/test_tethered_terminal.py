"""A tool that reads the terminal its runner sits in neither stops nor hangs the runner.

A tool in a background process group that reads ``/dev/tty`` is stopped (SIGTTIN) until its timeout, and the
timeout once waited for ever on a watchdog stopped with it. A tool has no terminal to read (nobody answers its
prompt): it gets an error at once and its own result, and a tool reading its standard input gets end of file.
Here a real pseudo-terminal makes the runner its foreground process; the tool prompts for a password and reads it.
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
import json, sys
sys.path.insert(0, sys.argv[2])
from noesis_nb.tools.tethered import _run_grouped, run_tethered
run = _run_grouped if sys.argv[5] == "grouped" else run_tethered
argv = ["sh", "-c", sys.argv[3]]
done = run(argv, cwd=None, env=None, timeout=float(sys.argv[4]))
with open(sys.argv[1], "w") as out:
    json.dump({"returncode": done.returncode, "stdout": done.stdout}, out)
"""


TTY_READER = "printf 'password: ' > /dev/tty; read x < /dev/tty; echo got=$x"


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal and process groups are POSIX")
def test_a_tool_reading_the_terminal_is_ended_by_its_timeout(tmp_path: Path) -> None:
    """Where the tool can still reach the terminal (the ``/bin/sh`` watchdog), the timeout ends it."""
    got = _in_terminal(tmp_path, TTY_READER, timeout=2, grouped=True)
    assert got["returncode"] is None, got  # ended by its timeout, not waited for for ever


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the tool's own session is the Linux watchdog's")
def test_a_tool_reading_the_terminal_fails_at_once_instead_of_stopping(tmp_path: Path) -> None:
    """No terminal for the tool: it is not stopped until its timeout (a result of None) but runs to its own end."""
    got = _in_terminal(tmp_path, TTY_READER + "; exit 7", timeout=600)
    assert (got["returncode"], got["stdout"]) == (7, "got=\n"), got


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal and process groups are POSIX")
def test_a_tool_reading_stdin_gets_end_of_file_not_the_terminal(tmp_path: Path) -> None:
    got = _in_terminal(tmp_path, "read x; echo status=$? x=$x", timeout=600)
    assert (got["returncode"], got["stdout"]) == (0, "status=1 x=\n"), got


def _in_terminal(tmp_path: Path, script: str, timeout: float, grouped: bool = False) -> dict:
    """What the runner, the foreground process of a pseudo-terminal, got running ``sh -c script``."""
    result = tmp_path / "result.json"
    mode = "grouped" if grouped else "watched"
    pid, fd = pty.fork()
    if pid == 0:  # the runner, in the terminal's foreground
        os.execv(
            sys.executable,
            [sys.executable, "-c", RUNNER, str(result), str(REPO), script, str(timeout), mode],
        )
    try:
        end = time.monotonic() + 60
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
    return json.loads(result.read_text())


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
