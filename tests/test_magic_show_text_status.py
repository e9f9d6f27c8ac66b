"""``%noesis show <id> --text`` ends with the run's status and what to do next.

The timeline alone left a newcomer guessing: a run whose process died read as a list of events that simply stopped
(its status ``lost`` and the ``resume_run`` that settles it were said only by the widget and ``%noesis list``), and
a pause ended on ``run.checkpoint`` with no word of the magic that decides it.
"""

from __future__ import annotations

import json
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
    where = f"--runs-dir {runs_dir.resolve()}"  # the runs dir is no root a new kernel looks in: named
    assert _shown(ip, capsys, ep, runs_dir) == (
        f"status: paused, waiting for a decision on a tool draft: %noesis approve {ep} {where} or %noesis reject {ep} {where}"
    )
    _type(ip, f"%noesis approve {ep} {where}")  # as the line says
    capsys.readouterr()
    assert _shown(ip, capsys, ep, runs_dir) == f"status: paused, decided: %noesis resume {ep} {where} continues it"
    _type(ip, f"%noesis resume {ep} {where}")
    capsys.readouterr()
    assert _shown(ip, capsys, ep, runs_dir) == "status: ok"


def _type(ip: Any, line: str) -> None:
    ip.run_line_magic("noesis", line.removeprefix("%noesis "))


def test_a_crafted_id_with_terminal_escapes_is_shown_inert_and_the_run_named_by_its_folder(ip, runs_dir, capsys):
    """A run whose state.json names an id holding a terminal escape (a link, clear-screen) and a reordering mark: the
    printed command names the run by its folder, and nothing of the escape reaches the terminal."""
    ep = noesis_nb.solve("write it", using=_asks_to_write, runs_dir=runs_dir, approver="ask")
    state = runs_dir / ep / "state.json"
    doc = json.loads(state.read_text())
    doc["episode"]["id"] += "\x1b]8;;http://evil.example\x07CLICK\x1b]8;;\x07\x1b[2J\u202e"
    state.write_text(json.dumps(doc))
    ip.run_line_magic("noesis", f"show {ep} --text --runs-dir {runs_dir}")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out, repr(out[-600:])
    last = out.rstrip().splitlines()[-1]
    assert last.endswith(f"%noesis reject {ep} --runs-dir {runs_dir.resolve()}"), last
    _type(ip, last.split("tool draft: ", 1)[1].split(" or ")[0])  # the approve it names decides the run
    capsys.readouterr()
    assert list((runs_dir / ep / "tool_invocations" / "approvals").glob("*.json"))


def test_a_run_paused_on_a_veto_says_approve_overrides_and_reject_upholds(ip, runs_dir, capsys):
    options = {"runs_dir": runs_dir, "governance": "enforce", "pause_on_veto": True}
    ep = noesis_nb.solve("wipe the build cache", using=lambda task: "done", **options)
    where = f"--runs-dir {runs_dir.resolve()}"
    assert _shown(ip, capsys, ep, runs_dir) == (
        f"status: paused on a governance veto: %noesis approve {ep} {where} overrides it, %noesis reject {ep} {where} upholds it"
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
