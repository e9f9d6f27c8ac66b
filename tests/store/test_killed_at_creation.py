"""A process killed (``kill -9``) around the rename that makes a new run appear: just after it, the run reads
``lost`` and ``resume_run`` settles it (a run that appeared without its owner note read ``running`` for ever);
just before it, what is left is a staging folder the stale-staging sweep removes."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store.staging import left_staging, remove_stale_staging

from ..compat.checker import check_run

ROOT = Path(__file__).resolve().parents[2]

_CREATOR = """
import os, signal, sys
import noesis_nb

when, runs = sys.argv[1], sys.argv[2]
rename = os.rename

def killed_around(src, dst, *args, **kwargs):  # the creation's one rename: the process dies on one side of it
    staging = os.path.basename(str(src)).endswith(".creating")
    if staging and when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    rename(src, dst, *args, **kwargs)
    if staging and when == "after":
        os.kill(os.getpid(), signal.SIGKILL)

os.rename = killed_around
noesis_nb.solve("a task", using=lambda task: "never reached", runs_dir=runs, episode_id="ep_killed_at_creation")
"""


def _create_and_die(when: str, runs: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _CREATOR, when, str(runs)], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]


def test_killed_right_after_the_run_appears_it_reads_lost_and_resume_run_settles_it(tmp_path):
    runs = tmp_path / "runs"
    _create_and_die("after", runs)
    run = runs / "ep_killed_at_creation"
    assert run.is_dir() and not left_staging(runs)
    listed = {r["episode_id"]: r["status"] for r in noesis_nb.list_runs(runs_dir=runs)}
    assert listed == {"ep_killed_at_creation": "lost"}
    assert DiskRun(run).status == "lost"
    assert noesis_nb.runs_df(runs).set_index("episode_id").loc["ep_killed_at_creation", "status"] == "lost"
    with pytest.warns(RunRecovered):
        noesis_nb.resume_run("ep_killed_at_creation", runs_dir=runs)
    assert DiskRun(run).status == "error"
    assert check_run(run) == []


def test_killed_right_before_the_run_appears_its_staging_folder_is_swept(tmp_path):
    runs = tmp_path / "runs"
    _create_and_die("before", runs)
    (left,) = left_staging(runs)
    assert not (runs / "ep_killed_at_creation").exists()
    assert noesis_nb.list_runs(runs_dir=runs) == []  # a staging folder is no run
    assert remove_stale_staging(runs, older_than_s=0) == [left]  # its creator is dead: everything in it is a creation's
    assert not left_staging(runs)
