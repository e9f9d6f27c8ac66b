"""A run left at its pause is no process's: its owner note goes with the lock, so no message names the idle process
that paused it. Who holds the run is then said by the one that took it (a resume_run in another process), and a
note naming a process that cannot hold the lock (this one, or one no longer alive) is never named."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import noesis_nb
from noesis_nb.store.ownership import OWNER_FILE, holder

HOLD = """
import sys
from pathlib import Path
from noesis_nb.runtime.recorder import Recorder
rec = Recorder.reopen(Path(sys.argv[1]))  # as a resume_run does
rec.write_note_if_due()  # its first write says who holds the run
print("held", flush=True)
sys.stdin.read()
rec.close_without_sealing()
"""


def _agent(task, ctx):
    return ctx.tool("fs.touch", {"argv": ["true"]}, effect="write", risk="high")["returncode"]


def _paused(runs: Path) -> Path:
    episode_id = noesis_nb.solve("pause", using=_agent, runs_dir=runs, approver="ask")
    return runs / episode_id


def test_a_pause_leaves_no_note_naming_its_process(tmp_path: Path) -> None:
    run_dir = _paused(tmp_path)
    assert not (run_dir / OWNER_FILE).exists()
    assert holder(run_dir) is None
    assert noesis_nb.runs_df(tmp_path)["status"].tolist() == ["paused"]


def test_a_resume_that_lost_the_race_names_the_process_that_won(tmp_path: Path) -> None:
    run_dir = _paused(tmp_path)
    hold = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert hold.stdout is not None and hold.stdout.readline().strip() == "held"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            noesis_nb.resume_run(run_dir.name, runs_dir=tmp_path)
    finally:
        hold.communicate("")
    (said,) = [str(w.message) for w in caught]
    assert f"pid {hold.pid} on " in said and f"pid {os.getpid()} on " not in said, said
    assert hold.returncode == 0
    assert not (run_dir / OWNER_FILE).exists()  # it let the run go at its pause: its note went with the lock


def test_a_note_naming_a_process_that_cannot_hold_the_lock_is_not_named(tmp_path: Path) -> None:
    run_dir = _paused(tmp_path)
    hold = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert hold.stdout is not None and hold.stdout.readline().strip() == "held"
        # a note left behind naming this process (which holds nothing) over the holder's own
        (run_dir / OWNER_FILE).write_text(f"pid {os.getpid()} on {socket.gethostname()} since 2026-01-01T00:00:00")
        assert holder(run_dir) == "another process"
    finally:
        hold.communicate("")
