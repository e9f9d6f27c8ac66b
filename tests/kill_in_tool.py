"""Staging a process killed -9 while its approved tool runs (its effects unknown): the tool both such tests run and
the kill, shared by the batch and live-episode tests of that case."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# the tool: its first call notes it began and sleeps (its process is killed meanwhile); a later one writes ``done``
TOOL = (
    "import os, sys, time\n"
    "marks = sys.argv[1]\n"
    "began = os.path.join(marks, 'began')\n"
    "if not os.path.exists(began):\n"
    "    open(began, 'w').close(); time.sleep(60)\n"
    "else:\n"
    "    open(os.path.join(marks, 'done'), 'a').write('ran\\n')\n"
)


#: an adapter module's source whose one governed tool runs TOOL (``inputs``: ``tool``, the code; ``marks``, its folder)
APPEND_AGENT = """
import sys

async def append(task, ctx):
    out = await ctx.tool_async(
        "fs.append", {"argv": [sys.executable, "-c", ctx.inputs["tool"], ctx.inputs["marks"]]},
        effect="write", risk="high",
    )
    return out["returncode"]
"""


def start_process(code: str, *args: str, path: tuple[Path, ...] = ()) -> subprocess.Popen[bytes]:
    """Run ``code`` in a Python process of its own, with the repository (and ``path``) importable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (REPO, *path))}
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env)


def wait_until_tool_began(child: subprocess.Popen[bytes], marks: Path) -> None:
    """Wait until the tool of ``child`` wrote its ``began`` mark (the process must still run)."""
    deadline = time.monotonic() + 120
    while not (marks / "began").exists():
        assert child.poll() is None, "the process ended before its tool began"
        assert time.monotonic() < deadline, "the tool never began"
        time.sleep(0.02)


def kill(child: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``child`` (nothing of it runs after: no cleanup, no seal) and reap it."""
    if child.poll() is None:
        os.kill(child.pid, signal.SIGKILL)
    child.wait()


def kill_in_tool(code: str, marks: Path, *args: str, path: tuple[Path, ...] = ()) -> None:
    """Run ``code`` in a process of its own and kill it -9 once its tool has begun (its ``marks`` folder made here)."""
    marks.mkdir(exist_ok=True)
    child = start_process(code, *args, path=path)
    try:
        wait_until_tool_began(child, marks)
    finally:
        kill(child)
