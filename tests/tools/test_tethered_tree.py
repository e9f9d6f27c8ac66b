"""Everything a tethered tool starts ends with it: daemons (double fork + ``setsid``) too, on every path.

Real processes throughout. A runner process calls ``run_tethered`` and is killed -9; or the timeout comes; or
the tool exits by itself leaving processes behind (one holding its output open). Each process the tool starts
writes its pid and, after a long sleep, an effect line: afterwards /proc must show none of them alive (polled
for a bounded while) and no effect may have been written.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tooltest_helpers import sub_input

from noesis_nb.tools import ExecutionStatus
from noesis_nb.tools.tethered import _run_grouped, run_tethered

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; subreapers are Linux")

# argv: PIDS EFFECT MODE. Starts a daemon (fork, setsid, fork; stdio to /dev/null as daemons do) and, in mode
# "hold", a plain child that keeps stdout open; both sleep, then write the effect. The tool then sleeps
# ("stay") or exits 0 at once ("exit", "hold").
TOOL = r"""
import os, sys, time
pids, effect, mode = sys.argv[1:4]
def note(): open(pids, "a").write(f"{os.getpid()}\n")
def later(): time.sleep(30); open(effect, "a").write(f"{os.getpid()}\n"); os._exit(0)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2): os.dup2(null, fd)
        note(); later()
    os._exit(0)
if mode == "hold" and os.fork() == 0:
    note(); later()
note()
print("tool done", flush=True)
if mode == "stay": time.sleep(30)
"""

# a tool racing its killer: it keeps starting processes that leave its session and start more
FORKER = r"""
import os, sys, time
pids, effect = sys.argv[1:3]
while True:
    if os.fork() == 0:
        os.setsid()
        open(pids, "a").write(f"{os.getpid()}\n")
        if os.fork() == 0:
            open(pids, "a").write(f"{os.getpid()}\n")
        time.sleep(60)
        open(effect, "a").write(f"{os.getpid()}\n")
        os._exit(0)
    time.sleep(0.01)
"""

RUNNER = r"""
import sys
sys.path.insert(0, sys.argv[1])
from noesis_nb.tools.tethered import run_tethered
run_tethered(sys.argv[2:], cwd=None, env=None, timeout=600)
"""

CHILDREN = r"""
import glob, json, sys
sys.path.insert(0, sys.argv[1])
from noesis_nb.tools.tethered import run_tethered
done = run_tethered([sys.executable, "-c", sys.argv[2], sys.argv[3], sys.argv[4], "exit"], cwd=None, env=None, timeout=60)
kids = [w for f in glob.glob("/proc/self/task/*/children") for w in open(f).read().split()]
print(json.dumps({"returncode": done.returncode, "children": kids}))
"""


def _gone(pid: int) -> bool:
    """Whether ``pid`` no longer runs (exited, or a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _pids(path: Path) -> list[int]:
    return [int(word) for word in path.read_text().split()] if path.exists() else []


def _wait_for(condition, what: str, limit: float = 30.0) -> None:
    """Poll ``condition`` (a wait for something that must happen, not a measured duration)."""
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, f"{what} never happened"
        time.sleep(0.05)


def _all_gone(pids: Path, effect: Path) -> None:
    """Every process the tool noted ends (bounded wait), and none wrote its effect; survivors are cleaned up."""
    try:
        _wait_for(lambda: all(_gone(pid) for pid in _pids(pids)) or effect.exists(), "the end of the tool's processes")
        assert not effect.exists()
        assert all(_gone(pid) for pid in _pids(pids))
    finally:
        for pid in _pids(pids):
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_killing_the_runner_kills_a_daemon_the_tool_started(tmp_path: Path) -> None:
    pids, effect = tmp_path / "pids", tmp_path / "effect"
    argv = [sys.executable, "-c", TOOL, str(pids), str(effect), "stay"]
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(REPO), *argv], stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: len(_pids(pids)) == 2 or runner.poll() is not None, "the tool's start")
        assert runner.poll() is None, runner.stderr.read().decode()[-2000:] if runner.stderr else ""
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        _all_gone(pids, effect)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()


def test_interrupting_the_runner_kills_a_daemon_the_tool_started(tmp_path: Path) -> None:
    """Ctrl-C (KeyboardInterrupt) in the thread waiting on the tool: the runner returns, nothing is left."""
    pids, effect = tmp_path / "pids", tmp_path / "effect"
    argv = [sys.executable, "-c", TOOL, str(pids), str(effect), "stay"]
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(REPO), *argv], stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: len(_pids(pids)) == 2 or runner.poll() is not None, "the tool's start")
        assert runner.poll() is None, runner.stderr.read().decode()[-2000:] if runner.stderr else ""
        os.kill(runner.pid, signal.SIGINT)
        _, err = runner.communicate(timeout=60)
        assert b"KeyboardInterrupt" in err, err[-2000:]
        _all_gone(pids, effect)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()


def test_a_timeout_kills_a_daemon_the_tool_started(tmp_path: Path) -> None:
    pids, effect = tmp_path / "pids", tmp_path / "effect"
    done = run_tethered([sys.executable, "-c", TOOL, str(pids), str(effect), "stay"], cwd=None, env=None, timeout=2)
    assert done.returncode is None and done.stdout == "tool done\n"
    _all_gone(pids, effect)


def test_a_daemon_left_behind_by_a_tool_that_exited_is_killed(tmp_path: Path) -> None:
    pids, effect = tmp_path / "pids", tmp_path / "effect"
    done = run_tethered([sys.executable, "-c", TOOL, str(pids), str(effect), "exit"], cwd=None, env=None, timeout=60)
    assert (done.returncode, done.stdout) == (0, "tool done\n")
    _all_gone(pids, effect)


def test_a_child_holding_the_output_open_does_not_turn_an_exit_into_a_timeout(harness, tmp_path: Path) -> None:
    """The tool exits 0 while its child keeps stdout open: the result is the tool's exit, recorded as it exits."""
    pids, effect = tmp_path / "pids", tmp_path / "effect"
    argv = [sys.executable, "-c", TOOL, str(pids), str(effect), "hold"]
    harness.prepare(sub_input({"argv": argv, "timeout_ms": 20_000}))
    result = harness.execute("draft:ep_test:req-1")
    assert (result.status, result.reason_code) == (ExecutionStatus.SUCCEEDED, None)
    assert (result.output["exit_code"], result.output["stdout"]) == (0, "tool done\n")
    _all_gone(pids, effect)


def test_a_tool_racing_its_killer_with_forks_leaves_nothing(tmp_path: Path) -> None:
    pids, effect = tmp_path / "pids", tmp_path / "effect"
    done = run_tethered([sys.executable, "-c", FORKER, str(pids), str(effect)], cwd=None, env=None, timeout=1.5)
    assert done.returncode is None and len(_pids(pids)) > 2
    _all_gone(pids, effect)


def test_the_normal_path_leaves_no_zombie_and_no_watchdog(tmp_path: Path) -> None:
    """After a tool exits 0 (having left a daemon behind), the runner has no child left, not even a zombie."""
    pids, effect = tmp_path / "pids", tmp_path / "effect"
    shown = subprocess.run(
        [sys.executable, "-c", CHILDREN, str(REPO), TOOL, str(pids), str(effect)], capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert shown.stdout.strip() == '{"returncode": 0, "children": []}'
    _all_gone(pids, effect)


def test_the_tool_reads_end_of_file_from_stdin(tmp_path: Path) -> None:
    done = run_tethered(["sh", "-c", "read x; echo status=$? x=$x"], cwd=None, env=None, timeout=60)
    assert (done.returncode, done.stdout) == (0, "status=1 x=\n")


def test_a_tool_that_cannot_start_raises_oserror_naming_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no-such-tool-here"):
        run_tethered(["no-such-tool-here"], cwd=None, env=None, timeout=60)
    with pytest.raises(FileNotFoundError, match="missing-dir"):
        run_tethered(["true"], cwd=str(tmp_path / "missing-dir"), env=None, timeout=60)


def test_the_fallback_watchdog_still_runs_and_times_out(tmp_path: Path) -> None:
    """The ``/bin/sh`` watchdog kept for systems without subreapers: output, exit code, timeout."""
    done = _run_grouped(["sh", "-c", "echo out; echo err >&2; exit 3"], cwd=None, env=None, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
    assert _run_grouped(["sleep", "30"], cwd=None, env=None, timeout=0.5).returncode is None


IGNORES_SIGCHLD = r"""
import signal, sys
sys.path.insert(0, sys.argv[1])
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel, none waits as a zombie
from noesis_nb.tools.tethered import run_tethered
done = run_tethered(["sh", "-c", "echo out; exit 4"], cwd=None, env=None, timeout=60)
print(done.returncode, done.stdout.strip())
"""


def test_a_runner_ignoring_sigchld_still_gets_the_result() -> None:
    shown = subprocess.run([sys.executable, "-c", IGNORES_SIGCHLD, str(REPO)], capture_output=True, text=True, timeout=120)
    assert (shown.returncode, shown.stdout) == (0, "4 out\n"), shown.stderr[-2000:]
