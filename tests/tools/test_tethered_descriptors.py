"""A tethered tool runs from a process holding many descriptors, and a refused argument leaves none open.

A notebook kernel easily holds more than 1,024 descriptors (sockets, files, a JupyterHub's limits): the watchdog
waited on its control pipe with ``select()``, which refuses a descriptor numbered 1,024 or more, so it died right
after starting the tool, the tool was killed mid-way and the error blamed the tool. An argument ``Popen`` refuses (a
NUL byte, from an agent's arguments) left four pipe ends open on every call."""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator

import pytest

from noesis_nb.tools.tethered import run_tethered


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def many_descriptors() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to count descriptors")
def test_a_tool_runs_whole_from_a_process_holding_over_1024_descriptors(many_descriptors: None) -> None:
    done = run_tethered(["sh", "-c", "echo hello; sleep 0.2; echo done"], cwd=None, env=None, timeout=30)
    assert (done.returncode, done.stdout) == (0, "hello\ndone\n")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to count descriptors")
def test_an_argument_popen_refuses_raises_and_leaves_no_descriptor_open() -> None:
    run_tethered(["true"], cwd=None, env=None, timeout=30)  # warm: whatever a first call opens once
    before = _open_descriptors()
    for _ in range(3):
        with pytest.raises(ValueError, match="null byte"):
            run_tethered(["tr\0ue"], cwd=None, env=None, timeout=30)
    assert _open_descriptors() == before
