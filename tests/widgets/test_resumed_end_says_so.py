"""A run paused in one process, approved, then resumed from disk by another (``resume_run`` / ``%noesis resume``):
the approved draft runs once and the run is sealed, the adapter never continuing. Its end said ``end ok ·
{'argv': [...]}`` (the tool's output, read as the run's answer); it now says what happened, in the view's end step,
in ``%noesis show --text`` and in a replay, while the tool's output stays the run's recorded answer."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.widgets.replayview import ReplayView
from tests.documented import documented
from tests.widgets.lostruns import _ENV, ROOT

WORDS = "resumed from disk: the approved tool fs.touch ran; the agent did not continue"

_PAUSER = """
import sys, noesis_nb
def agent(task, ctx):
    return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "print('touched')"]}, effect="write", risk="high")
print(noesis_nb.solve("touch a file", using=agent, runs_dir=sys.argv[1], approver="ask"))
"""
_RESUMER = "import sys, noesis_nb; noesis_nb.resume_run(sys.argv[2], runs_dir=sys.argv[1])"


def _python(code: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], env=_ENV, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.fixture
def resumed(runs_dir: Path) -> str:
    episode = _python(_PAUSER, str(runs_dir)).splitlines()[-1]
    noesis_nb.approve_draft(runs_dir / episode, approver_id="ana")  # the Approve click, after a kernel restart
    _python(_RESUMER, str(runs_dir), episode)  # another process continues it from disk
    return episode


def _end_line(view: Any) -> str:
    """The end step's line (its kind reads ``end``)."""
    [end] = [row.html.value for row in view.steps.rows() if '">end</span>' in row.html.value]
    return html.unescape(end)


def test_the_end_says_the_agent_did_not_continue(
    resumed: str, runs_dir: Path, ip: Any, capsys: pytest.CaptureFixture[str], comm_log: list
) -> None:
    run_dir = runs_dir / resumed
    terminate = next(json.loads(line) for line in (run_dir / "events.jsonl").open() if '"terminate"' in line)
    assert terminate["payload"]["status"] == "ok"
    assert terminate["payload"]["x-noesis_nb"]["answer"]["stdout"] == "touched\n"  # the tool's output: still its answer

    view = noesis_nb.show(run_dir)
    end = _end_line(view)
    assert WORDS in end and "argv" not in end, end  # it read "end ok · {'argv': [...]}"

    ip.run_line_magic("noesis", f"show {resumed} --text --runs-dir {runs_dir}")
    [line] = [line for line in capsys.readouterr().out.splitlines() if " terminate " in line]
    assert "message=resumed from disk: the approved tool fs.touch ran" in line and "argv" not in line, line

    replay = ReplayView(run_dir)
    replayed = _end_line(replay.view)
    assert WORDS in replayed and "argv" not in replayed, replayed
    assert f"`{WORDS}`" in documented()  # as the README (or a docs page it links to) says a resume from disk ends
