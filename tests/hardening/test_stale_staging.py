"""Staging folders (``.<id>.<hex>.creating``) a process killed mid-creation leaves are removed; live ones never.

A real child process creates a run and is stopped inside the creation, after its staging folder
is made: killed with SIGKILL, or held there (alive) while the sweep runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import staging
from noesis_nb.store.staging import left_staging, remove_stale_staging
from tests.ipshell import run_magic

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and flock are POSIX")

CREATOR = """
import os, signal, sys, time
from pathlib import Path
import noesis_nb
from noesis_nb.runtime import recorder

root, mode, ready, go = sys.argv[1:5]
real = recorder.atomic_write_json

def stopping(path, value, **kw):
    if Path(path).parent.name.endswith(".creating"):
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        Path(ready).touch()
        while not os.path.exists(go):
            time.sleep(0.01)
    return real(path, value, **kw)

recorder.atomic_write_json = stopping
print(noesis_nb.solve("made while swept", using=lambda task: "done", runs_dir=root))
"""


def _creator(root: Path, tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    args = [sys.executable, "-c", CREATOR, str(root), mode, str(tmp_path / "ready"), str(tmp_path / "go")]
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _killed_mid_creation(root: Path, tmp_path: Path) -> str:
    child = _creator(root, tmp_path, "kill")
    child.communicate(timeout=60)
    assert child.returncode == -9
    (left,) = left_staging(root)
    return left


def test_a_staging_folder_of_a_killed_creator_is_removed_once_old_enough(runs_dir: Path, tmp_path: Path) -> None:
    left = _killed_mid_creation(runs_dir, tmp_path)

    assert remove_stale_staging(runs_dir) == []  # young: a creator might still be about to lock it
    assert remove_stale_staging(runs_dir, older_than_s=0) == [left]
    assert sorted(os.listdir(runs_dir)) == []


def test_the_next_run_created_in_the_root_sweeps_what_a_killed_creator_left(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _killed_mid_creation(runs_dir, tmp_path)
    monkeypatch.setattr(staging, "STALE_AFTER_S", 0.0)

    episode = noesis_nb.solve("after the crash", using=lambda task: "done", runs_dir=runs_dir)

    assert sorted(os.listdir(runs_dir)) == [episode]


def test_a_live_creator_racing_the_sweep_keeps_its_folder_and_makes_its_run(runs_dir: Path, tmp_path: Path) -> None:
    child = _creator(runs_dir, tmp_path, "hold")
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "ready").exists():
            assert child.poll() is None and time.monotonic() < deadline, child.stderr.read() if child.stderr else ""
            time.sleep(0.01)
        (held,) = left_staging(runs_dir)

        for _ in range(20):  # as often as any number of other processes could
            assert remove_stale_staging(runs_dir, older_than_s=0) == []
        assert left_staging(runs_dir) == [held]
    finally:
        (tmp_path / "go").touch()  # the creator goes on (and ends) whatever happened here
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    episode = out.strip().splitlines()[-1]
    assert sorted(os.listdir(runs_dir)) == [episode]
    assert noesis_nb.runs_df(runs_dir)["status"].tolist() == ["ok"]


def test_a_staging_name_on_something_else_is_left_alone(runs_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "state.json").write_text("{}")
    os.symlink(outside, runs_dir / ".ep_link.0000abcd.creating")
    crafted = runs_dir / ".ep_more.0000abcd.creating"
    crafted.mkdir()
    (crafted / "state.json").write_text("{}")
    (crafted / "notes.txt").write_text("kept")

    assert remove_stale_staging(runs_dir, older_than_s=0) == []
    assert (outside / "state.json").exists() and (crafted / "notes.txt").exists() and (crafted / "state.json").exists()


def test_noesis_list_counts_what_a_killed_creator_left_and_says_how_to_remove_it(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = noesis_nb.solve("before the crash", using=lambda task: "done", runs_dir=runs_dir)
    left = _killed_mid_creation(runs_dir, tmp_path)
    fresh, _ = run_magic(f"list --runs-dir {runs_dir}")
    monkeypatch.setattr(staging, "STALE_AFTER_S", 0.0)

    table, _ = run_magic(f"list --runs-dir {runs_dir}")

    assert "unfinished" not in repr(fresh)  # young: maybe still being made
    for shown in (repr(table), table._repr_html_()):
        assert "1 unfinished run folder" in shown and left in shown and "remove_stale_staging(runs_dir)" in shown
        assert done in shown
    assert remove_stale_staging(runs_dir) == [left]
    assert "unfinished" not in repr(run_magic(f"list --runs-dir {runs_dir}")[0])
