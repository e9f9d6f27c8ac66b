"""A runs root holding many folders that are no runs (empty ``ep_…`` folders, a user's own): a reload stats each
such folder once instead of probing and listing it again, yet a folder that becomes a run since is read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import scan
from noesis_nb.store.scan import scan_run_dirs_with_stats

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import json, os, sys
from noesis_nb.store import scan
root = sys.argv[1]
scan.ROOT_SETTLE_NS = 0  # the folders were just made: trust their stamps at once
listed = []
def hook(event, args):
    if event == "os.scandir" and args and isinstance(args[0], str) and args[0].startswith(root):
        listed.append(args[0])
sys.addaudithook(hook)
import noesis_nb
loads = []
for i in range(2):
    if i and sys.argv[2:] == ["clear"]:
        noesis_nb.frames.clear_cache()
    listed.clear()
    rows = len(noesis_nb.runs_df(root))
    loads.append({"rows": rows, "listed": sorted(set(listed))})
print(json.dumps(loads))
"""


def _run(root: Path) -> str:
    return noesis_nb.solve("a real run", using=lambda task: "done", runs_dir=root)


@pytest.fixture
def trusted_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Folders made by the test are remembered at once (no settling time), from an empty memory."""
    monkeypatch.setattr(scan, "ROOT_SETTLE_NS", 0)
    monkeypatch.setattr(scan, "_NOT_RUNS", {})


def _after_a_tick(folder: Path) -> None:
    """Wait until the file system's clock is past ``folder``'s times: an entry made in it from now on gives it new ones."""
    marker = folder.parent / ".tick"
    ctime = os.stat(folder).st_ctime_ns
    while True:
        marker.write_bytes(b"")
        if os.stat(marker).st_mtime_ns > ctime:
            marker.unlink()
            return


def test_a_reload_lists_no_folder_it_found_to_be_no_run(runs_dir: Path) -> None:
    _run(runs_dir)
    for i in range(50):
        (runs_dir / f"ep_{i:04d}").mkdir()
    (runs_dir / "notes").mkdir()
    (runs_dir / "notes" / "todo.txt").write_text("a user's own folder")

    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(runs_dir)], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    cold, warm = json.loads(out.stdout.splitlines()[-1])

    assert cold["rows"] == warm["rows"] == 1
    assert len(cold["listed"]) >= 52  # the root, and each folder that is no run, looked into for runs in it
    assert warm["listed"] == [str(runs_dir)]  # only the root: each folder known to be no run was stat-ed, not listed


def test_a_cleared_cache_forgets_the_folders_found_no_run(runs_dir: Path) -> None:
    """``frames.clear_cache()`` keeps nothing a load found: the next load lists each folder again."""
    _run(runs_dir)
    for i in range(3):
        (runs_dir / f"ep_{i:04d}").mkdir()

    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(runs_dir), "clear"], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    cold, cleared = json.loads(out.stdout.splitlines()[-1])

    assert cold["rows"] == cleared["rows"] == 1
    assert cleared["listed"] == cold["listed"] == sorted([str(runs_dir), *(str(runs_dir / f"ep_{i:04d}") for i in range(3))])


def _events_of_a_run(tmp_path: Path) -> tuple[str, bytes]:
    other = tmp_path / "elsewhere"
    episode = _run(other)
    return episode, (other / episode / "events.jsonl").read_bytes()


def _found(root: Path) -> list[str]:
    return [os.path.relpath(path, root) for path, _ in scan_run_dirs_with_stats(str(root))]


@pytest.mark.parametrize("how", ["appended", "renamed in", "summary renamed in"])
def test_a_folder_found_no_run_is_read_once_a_run_file_is_made_in_it(
    tmp_path: Path, runs_dir: Path, trusted_at_once: None, how: str
) -> None:
    first = _run(runs_dir)
    episode, events = _events_of_a_run(tmp_path)
    folder = runs_dir / episode
    folder.mkdir()
    assert sorted(noesis_nb.runs_df(runs_dir)["episode_id"]) == [first]
    assert str(folder) in scan._NOT_RUNS  # remembered as no run: the next load trusts its stamp
    _after_a_tick(folder)

    if how == "appended":
        with open(folder / "events.jsonl", "ab") as log:
            log.write(events)
    else:
        name = "events.jsonl" if how == "renamed in" else "summary.json"
        data = events if name == "events.jsonl" else json.dumps({"episode_id": episode}).encode()
        (folder / f".{name}.tmp").write_bytes(data)
        os.rename(folder / f".{name}.tmp", folder / name)

    assert sorted(_found(runs_dir)) == sorted([first, episode])
    assert sorted(noesis_nb.runs_df(runs_dir)["episode_id"]) == sorted([first, episode])


def test_a_run_made_inside_a_label_folder_found_no_run_is_read(tmp_path: Path, runs_dir: Path, trusted_at_once: None) -> None:
    """A run written into a sub-folder changes that sub-folder, not the label folder above it: the label folder's
    sub-folders are looked at on every load."""
    first = _run(runs_dir)
    episode, events = _events_of_a_run(tmp_path)
    (runs_dir / "team" / episode).mkdir(parents=True)
    assert _found(runs_dir) == [first]
    assert str(runs_dir / "team") in scan._NOT_RUNS
    label_stamp = os.stat(runs_dir / "team").st_mtime_ns

    (runs_dir / "team" / episode / "events.jsonl").write_bytes(events)

    assert os.stat(runs_dir / "team").st_mtime_ns == label_stamp  # the label folder itself is as it was
    assert _found(runs_dir) == [first, f"team/{episode}"]


def test_a_marker_that_is_a_link_leading_nowhere_is_read_once_its_target_is_made(
    tmp_path: Path, runs_dir: Path, trusted_at_once: None
) -> None:
    """events.jsonl linked to a file not made yet: made, the folder is a run with its own times unchanged, so a
    folder whose listing holds such an entry is never remembered as no run."""
    first = _run(runs_dir)
    episode, events = _events_of_a_run(tmp_path)
    folder = runs_dir / episode
    folder.mkdir()
    (folder / "log").mkdir()
    (folder / "events.jsonl").symlink_to("log/events.jsonl")
    assert _found(runs_dir) == [first]
    stamp = os.stat(folder)

    (folder / "log" / "events.jsonl").write_bytes(events)

    assert (os.stat(folder).st_mtime_ns, os.stat(folder).st_ctime_ns) == (stamp.st_mtime_ns, stamp.st_ctime_ns)
    assert sorted(_found(runs_dir)) == sorted([first, episode])


def test_a_folder_swapped_for_a_run_with_the_same_times_is_read(tmp_path: Path, runs_dir: Path, trusted_at_once: None) -> None:
    first = _run(runs_dir)
    episode, events = _events_of_a_run(tmp_path)
    folder = runs_dir / episode
    folder.mkdir()
    assert _found(runs_dir) == [first]
    assert str(folder) in scan._NOT_RUNS
    built = tmp_path / "built"
    built.mkdir()
    (built / "events.jsonl").write_bytes(events)
    was = os.stat(folder)
    os.utime(built, ns=(was.st_atime_ns, was.st_mtime_ns))  # the same mtime: only the inode and ctime differ

    folder.rename(tmp_path / "old")
    built.rename(folder)

    assert sorted(_found(runs_dir)) == sorted([first, episode])


def test_a_folder_made_a_run_within_the_settling_time_is_read(runs_dir: Path, tmp_path: Path) -> None:
    """With the settling time as shipped, a folder made and made a run within the same second is read as a run:
    its stamp was too fresh to be trusted."""
    first = _run(runs_dir)
    episode, events = _events_of_a_run(tmp_path)
    folder = runs_dir / episode
    folder.mkdir()
    assert _found(runs_dir) == [first]
    assert str(folder) not in scan._NOT_RUNS  # made just now: its stamp is not trusted yet

    (folder / "events.jsonl").write_bytes(events)

    assert sorted(_found(runs_dir)) == sorted([first, episode])


@pytest.mark.parametrize("marker", ["summary.json", "state.json", "final.json", "a link named summary.json"])
def test_a_folder_with_no_events_log_but_another_marker_is_a_run(runs_dir: Path, trusted_at_once: None, marker: str) -> None:
    """A folder without events.jsonl is looked into once: a marker among its entries (a link to one too) makes it a run."""
    folder = runs_dir / "ep_marked"
    folder.mkdir()
    (runs_dir / "ep_empty").mkdir()
    if marker.startswith("a link"):
        (folder / "kept.json").write_text("{}")
        (folder / "summary.json").symlink_to("kept.json")
    else:
        (folder / marker).write_text("{}")

    for _ in range(2):  # as listed, then as remembered
        assert _found(runs_dir) == ["ep_marked"]
    assert str(runs_dir / "ep_empty") in scan._NOT_RUNS and str(folder) not in scan._NOT_RUNS
