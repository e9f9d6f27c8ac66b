"""Run one test in a child pytest process (``in_child(request)``): for tests driving a tracer that raises
KeyboardInterrupt from inside opcode events, which CPython 3.11 may not survive (a segmentation fault seen in 2 of 3
runs). A crash there then fails that one test, with its exit code and output, not the whole test run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: set in the child: the test runs its body there
CHILD = "TESTS_RUN_IN_CHILD"  # not NOESIS_*: each test starts without those
_ROOT = Path(__file__).resolve().parents[2]


def in_child(request: pytest.FixtureRequest, timeout_s: float = 1200) -> bool:
    """True in the child (run the body); in the parent, run this test in a child and assert it passed alone."""
    if os.environ.get(CHILD) == "1":
        return True
    node = request.node.nodeid
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(_ROOT), node]
    done = subprocess.run(
        command, cwd=_ROOT, env={**os.environ, CHILD: "1"}, capture_output=True, text=True, timeout=timeout_s, check=False
    )
    said = (done.stdout + done.stderr)[-4000:]
    assert done.returncode == 0, f"{node} exited {done.returncode} in its own process:\n{said}"
    assert "1 passed" in done.stdout, said
    return False
