"""``%noesis show <id> --text`` ends with the run's status and what to do next.

The timeline alone left a newcomer guessing: a run whose process died read as a list of events that simply stopped
(its status ``lost`` and the ``resume_run`` that settles it were said only by the widget and ``%noesis list``), and
a pause ended on ``run.checkpoint`` with no word of the magic that decides it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb


def _shown(ip: Any, capsys: pytest.CaptureFixture[str], episode: str, runs_dir: Path) -> str:
    ip.run_line_magic("noesis", f"show {episode} --text --runs-dir {runs_dir}")
    return capsys.readouterr().out.rstrip().splitlines()[-1]


async def _asks_to_write(task: str, ctx: Any) -> int:
    out = await ctx.tool_async("fs.write_file", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return out["returncode"]


def test_a_paused_run_says_which_magic_decides_it_and_then_which_resumes_it(ip, runs_dir, capsys):
    ep = noesis_nb.solve("write it", using=_asks_to_write, runs_dir=runs_dir, approver="ask")
    assert _shown(ip, capsys, ep, runs_dir) == (
        f"status: paused, waiting for a decision on a tool draft: %noesis approve {ep} or %noesis reject {ep}"
    )
    ip.run_line_magic("noesis", f"approve {ep} --runs-dir {runs_dir}")  # as the line says
    capsys.readouterr()
    assert _shown(ip, capsys, ep, runs_dir) == f"status: paused, decided: %noesis resume {ep} continues it"
    ip.run_line_magic("noesis", f"resume {ep} --runs-dir {runs_dir}")
    capsys.readouterr()
    assert _shown(ip, capsys, ep, runs_dir) == "status: ok"


def test_a_run_paused_on_a_veto_says_approve_overrides_and_reject_upholds(ip, runs_dir, capsys):
    options = {"runs_dir": runs_dir, "governance": "enforce", "pause_on_veto": True}
    ep = noesis_nb.solve("wipe the build cache", using=lambda task: "done", **options)
    assert _shown(ip, capsys, ep, runs_dir) == (
        f"status: paused on a governance veto: %noesis approve {ep} overrides it, %noesis reject {ep} upholds it"
    )


def test_a_run_whose_process_was_killed_says_lost_and_names_resume_run(ip, runs_dir, capsys):
    script = textwrap.dedent(
        f"""
        import asyncio, noesis_nb
        async def slow(task, ctx):
            ctx.emit("note", {{"ready": True}})
            await asyncio.sleep(120)
        asyncio.run(noesis_nb.solve_async("runs until killed", using=slow, runs_dir={str(runs_dir)!r}))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        for _ in range(600):  # until the adapter has written its note (it then sleeps)
            logs = list(runs_dir.glob("ep_*/events.jsonl"))
            if logs and b'"ready"' in logs[0].read_bytes():
                break
            assert proc.poll() is None, "the episode's process ended before it was killed"
            time.sleep(0.05)
        else:
            pytest.fail("the episode never wrote its note")
    finally:
        proc.kill()
        proc.wait()
    ep = logs[0].parent.name
    assert _shown(ip, capsys, ep, runs_dir) == (
        f"status: lost; run {ep}: its process is gone (killed, or stopped before it sealed the run): "
        f"noesis_nb.resume_run('{ep}') settles it, sealed error (process_lost) unless it stopped at a tool draft it can continue"
    )
