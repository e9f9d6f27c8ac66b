"""A key streamed one delta per event by a process killed with SIGKILL before its late sweep: the process that
continues the run (``resume_run``) takes the heads the killed one wrote out of the log before it seals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.tools.errors import ApprovalDecisionRequiredError
from tests.compat.checker import check_run

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-proj-Ab3dEf9hIjKlMnOpQrStUvWxYz0123456789abcd"
PIECES = ["Here is ", "the key: ", KEY[:5], KEY[5:14], KEY[14:30], KEY[30:], " done."]

CHILD = """
import os, signal, sys
import noesis_nb
pieces, stop = {pieces!r}, int(sys.argv[2])
def agent(task, ctx):
    for piece in pieces[:stop]:
        ctx.emit("model", {{"delta": piece}})
    print(ctx.episode_id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # before any pause or seal: the late sweep never runs
noesis_nb.solve("stream a key", using=agent, runs_dir=sys.argv[1])
"""


def _killed_run(runs: Path, stop: int) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(pieces=PIECES), str(runs), str(stop)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == -9, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.parametrize("stop", [5, 6, 7])
def test_resume_run_seals_no_streamed_head_a_killed_process_left(tmp_path: Path, stop: int) -> None:
    runs = tmp_path / "runs"
    episode = _killed_run(runs, stop)
    log = runs / episode / "events.jsonl"
    assert KEY[5:14] in log.read_text()  # the killed process wrote the heads before it found the key
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RunRecovered: the adapter's memory is gone
        noesis_nb.resume_run(episode, runs_dir=runs)
    assert (runs / episode / "manifest.json").exists()
    for path in (runs / episode).rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not [p for p in (KEY[:5], KEY[5:14], KEY[14:30], KEY[30:]) if p in text], path.name
    deltas = [json.loads(line)["payload"].get("delta") for line in log.read_text().splitlines()]
    assert "Here is " in deltas and "the key: " in deltas  # the prose around the key is kept
    assert check_run(runs / episode) == []


PAUSING_CHILD = """
import os, signal, sys
import noesis_nb
from noesis_nb.runtime import recorder
sweep = recorder.sweep_noted
def killed(*args, **kwargs):
    if sys._getframe(1).f_code.co_name == "pause":  # the pause's sweep: dies after its interrupt, before the sweep
        os.kill(os.getpid(), signal.SIGKILL)
    return sweep(*args, **kwargs)
recorder.sweep_noted = killed
pieces = {pieces!r}
def agent(task, ctx):
    for piece in pieces:
        ctx.emit("model", {{"delta": piece}})
    print(ctx.episode_id, flush=True)
    return ctx.tool("fs.append", {{"argv": [sys.executable, "-c", "print(1)"]}}, effect="write", risk="high")
noesis_nb.solve("stream a key", using=agent, runs_dir=sys.argv[1], approver="ask")
"""


def _run_text(run: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in run.rglob("*") if path.is_file())


def test_a_pause_completed_after_a_kill_leaves_no_streamed_head(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PAUSING_CHILD.format(pieces=PIECES), str(runs)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == -9, done.stderr[-2000:]
    episode = done.stdout.strip()
    run = runs / episode
    assert not (run / "checkpoints").exists()  # killed between the pause's interrupt and its checkpoint
    with pytest.raises(ApprovalDecisionRequiredError):
        noesis_nb.resume_run(episode, runs_dir=runs)  # completes the pause: the checkpoint binds a swept log
    assert not [p for p in (KEY[:5], KEY[5:14]) if p in _run_text(run)]
    noesis_nb.approve_draft(episode, approver_id="ana", runs_dir=runs)
    noesis_nb.resume_run(episode, runs_dir=runs)  # the checkpoint still matches the log it bound
    assert (run / "manifest.json").exists()
    assert not [p for p in (KEY[:5], KEY[5:14], KEY[14:30], KEY[30:]) if p in _run_text(run)]
    assert check_run(run) == []
