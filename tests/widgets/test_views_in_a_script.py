"""``show()`` and ``inbox()`` called from a plain script (no IPython) print the view's one-line summary, not the
raw display bundle (a dict of HTML and a widget model id that IPython's display prints there)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import noesis_nb

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import sys
import noesis_nb
noesis_nb.show(sys.argv[2], runs_dir=sys.argv[1])
noesis_nb.inbox(root=sys.argv[1])
"""


def agent(task, ctx):
    ctx.tool("fs.touch", {"argv": ["true"]}, effect="write", risk="high")
    return "done"


def test_show_and_inbox_in_a_script_print_their_summary_line(runs_dir: Path) -> None:
    ep = noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="ask")  # paused on its draft
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(runs_dir), ep], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2 and "text/html" not in out.stdout, out.stdout[:500]
    assert re.fullmatch(r"EpisodeRun\(status='paused', events=\d+, pending=1\)", lines[0]), lines[0]
    assert lines[1] == "InboxView: 1 draft waiting in 1 run, 0 decided here"
