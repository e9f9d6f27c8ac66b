"""A new run's id differing by case only from a run folder of the root is refused (``ep_x`` beside ``ep_X``: one
folder on a case-insensitive copy), and checking it stays cheap: 50 runs created with ids of their own list the root
a bounded number of times (each create listed it, a batch of N costing N listings of a root growing to N runs), while
a twin another process made meanwhile, or a folder renamed by hand, is still refused. A file of the root named like
the id in another case is no run and refuses nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import RunExistsError
from noesis_nb.secrets import guard

_REPO = Path(__file__).resolve().parents[2]
_LISTINGS: Counter[str] = Counter()


_COUNTING: list[bool] = []


def _count(event: str, args: tuple[Any, ...]) -> None:
    if event in ("os.listdir", "os.scandir") and args and isinstance(args[0], (str, os.PathLike)):
        _LISTINGS[os.fspath(args[0])] += 1


def _counting() -> Counter[str]:
    """The listings of each folder made in this process since the first call (an audit hook, never removed)."""
    if not _COUNTING:
        sys.addaudithook(_count)
        _COUNTING.append(True)
    return _LISTINGS


def _done(task: str, ctx: Any) -> str:
    return "done"


def test_fifty_creates_with_ids_of_their_own_list_the_root_a_bounded_number_of_times(tmp_path: Path) -> None:
    guard.for_run("ep_x").learn(["Zq8r3kVbXw9Lm2Pq7TtY"])  # as in a process that has learned secret values
    root = tmp_path / "runs"
    listings = _counting()
    for i in range(50):
        assert noesis_nb.solve("t", using=_done, runs_dir=root, episode_id=f"ep_case_{i}") == f"ep_case_{i}"
    assert len(os.listdir(root)) == 50
    listed = listings[os.fspath(root)] - 1  # the line above
    assert listed <= 3, listed  # was 50: one listing per create


def test_a_twin_made_by_another_process_meanwhile_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_first")
    noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_second")  # the root's names kept
    code = "import sys, noesis_nb; noesis_nb.solve('t', using=lambda t, c: 'done', runs_dir=sys.argv[1], episode_id='ep_Twin')"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_REPO), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", code, str(root)], env=env, check=True, timeout=120)
    with pytest.raises(RunExistsError, match="by case only") as caught:
        noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_twin")
    assert "'ep_Twin'" in str(caught.value)
    assert sorted(os.listdir(root)) == ["ep_Twin", "ep_first", "ep_second"]


def test_a_run_folder_renamed_by_hand_is_a_twin_at_once(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_a")
    noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_b")
    time.sleep(0.05)  # past the file system's clock tick: the rename changes the root's mtime, not its link count
    os.rename(root / "ep_b", root / "ep_B")
    with pytest.raises(RunExistsError, match="'ep_B'"):
        noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_b")


def test_a_file_named_like_the_id_in_another_case_refuses_nothing(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    (root / "EP_NOTES").write_text("not a run\n")
    assert noesis_nb.solve("t", using=_done, runs_dir=root, episode_id="ep_notes") == "ep_notes"
    assert (root / "ep_notes" / "events.jsonl").is_file() and (root / "EP_NOTES").read_text() == "not a run\n"
