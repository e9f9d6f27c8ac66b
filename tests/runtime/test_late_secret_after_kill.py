"""A secret learned late (named by a later event, in plain text in an earlier one) and a process killed with SIGKILL
right after: the earlier line is rewritten before the later one is written, so the run ``resume_run`` seals from
what the killed process left holds it nowhere."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import noesis_nb
from noesis_nb.errors import RunGoneError
from tests.compat.checker import check_run

REPO = Path(__file__).resolve().parents[2]
SECRET = "Tr0ub4dor-and-3-horses"

CHILD = """
import os, signal, sys
import noesis_nb
secret = {secret!r}
def agent(task, ctx):
    ctx.emit("note", {{"text": "psql connected as bob (" + secret + ")"}})
    ctx.emit("shell", {{"cmd": "export PGPASSWORD=" + secret}})  # names the value: learned now, late
    print(ctx.episode_id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
noesis_nb.solve("connect", using=agent, runs_dir=sys.argv[1])
"""


def test_a_value_learned_late_leaves_the_earlier_line_before_a_kill(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(secret=SECRET), str(runs)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == -9, done.stderr[-2000:]
    episode = done.stdout.strip()
    run = runs / episode
    assert "psql connected as bob" in (run / "events.jsonl").read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RunRecovered: the adapter's memory is gone
        noesis_nb.resume_run(episode, runs_dir=runs)
    assert (run / "manifest.json").exists()
    holding = [p.name for p in run.rglob("*") if p.is_file() and SECRET in p.read_text(errors="replace")]
    assert holding == []
    assert SECRET not in noesis_nb.events_df(run).to_string()
    assert check_run(run) == []


def test_a_run_moved_before_a_value_is_learned_late_is_not_swept_or_written_at_its_old_place(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    raised: list[BaseException] = []

    def agent(task, ctx):
        ctx.emit("note", {"text": "psql connected as bob (" + SECRET + ")"})
        next(runs.glob("ep_*")).rename(tmp_path / "moved")
        try:
            ctx.emit("shell", {"cmd": "export PGPASSWORD=" + SECRET})  # learned late: a sweep is due first
        except BaseException as exc:
            raised.append(exc)
            raise
        return 0

    try:
        noesis_nb.solve("connect", using=agent, runs_dir=runs)
    except RunGoneError:
        pass
    assert [type(e).__name__ for e in raised] == ["RunGoneError"]  # said at once, not at a later look at the disk
    assert "PGPASSWORD" not in (tmp_path / "moved" / "events.jsonl").read_text()
