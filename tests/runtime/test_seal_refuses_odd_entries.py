"""A run holding a symbolic link, a FIFO or another entry that is neither a folder nor a regular file is never sealed:
its manifest lists regular files only, so the sealed run would hold something the manifest does not list. Every path
that seals (resume_run, the live episode's own seal, the seal of a run whose process was lost) refuses it in one error
naming the entry and saying to move it out, writing nothing; moved out, the run seals whole. ``verify_manifest`` says
such an entry planted in a sealed run. A FIFO where a decision file goes is not set aside inside the run (it would
stay there, unsealable): deciding names it, and nothing is moved or written."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import verify_manifest
from noesis_nb.store.paths import UnsafeRunPathError

from .agents import paused_on_disk


def _plant(run: Path, kind: str, outside: Path) -> Path:
    """An entry noesis_nb never makes, put into ``run`` by hand: its path."""
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("not the run's")
    if kind == "folder_link":
        tools = run / "tool_invocations"
        path = (tools if tools.is_dir() else run) / "extra"
        path.symlink_to(outside)
    elif kind == "file_link":
        path = run / "notes.txt"
        path.symlink_to(outside / "secret.txt")
    else:
        path = run / "notes.pipe"
        os.mkfifo(path)
    return path


def _tree(run: Path) -> dict[str, Any]:
    """Every entry of the run (links and FIFOs as what they are, files by their bytes), nothing followed."""
    out: dict[str, Any] = {}
    for folder, dirs, names in os.walk(run):
        for name in dirs + names:
            path = Path(folder, name)
            mode = os.lstat(path).st_mode
            rel = path.relative_to(run).as_posix()
            if stat.S_ISREG(mode):
                out[rel] = path.read_bytes()
            elif stat.S_ISLNK(mode):
                out[rel] = ("link", os.readlink(path))
            else:
                out[rel] = stat.S_IFMT(mode)
    return out


def _sealed_whole(run: Path) -> None:
    """Sealed, the manifest verifying, and every entry of the run a folder or a file the manifest lists."""
    assert (run / "final.json").is_file() and (run / "manifest.json").is_file()
    assert verify_manifest(run).ok
    listed = {f["name"] for f in noesis_nb.store.read_manifest(run)["files"]}
    for rel, value in _tree(run).items():
        if rel != "manifest.json" and not stat.S_ISDIR(os.lstat(run / rel).st_mode):
            assert isinstance(value, bytes) and rel in listed, rel


@pytest.mark.parametrize("kind", ["folder_link", "file_link", "fifo"])
def test_resume_refuses_an_odd_entry_naming_it_and_writes_nothing(tmp_path: Path, kind: str) -> None:
    out = tmp_path / "out.txt"
    run, _ = paused_on_disk(tmp_path / "runs", out)
    noesis_nb.approve_draft(run, approver_id="ana")
    planted = _plant(run, kind, tmp_path / "outside")
    before = _tree(run)

    with pytest.raises(UnsafeRunPathError) as caught:
        noesis_nb.resume_run(run)
    said = str(caught.value)
    assert str(planted) in said and "Move it out of the run folder" in said and "resume_run" in said
    assert _tree(run) == before  # nothing written, nothing removed
    assert not out.exists()  # the approved tool did not run

    shutil.move(str(planted), str(tmp_path / "moved_out"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    assert out.read_text() == "one\n"
    _sealed_whole(run)


def test_the_live_seal_refuses_an_odd_entry_and_resume_seals_it_once_moved_out(tmp_path: Path) -> None:
    root = tmp_path / "runs"

    def agent(task: str, ctx: Any) -> str:
        os.mkfifo(root / "ep_live" / "notes.pipe")
        return "done"

    with pytest.raises(UnsafeRunPathError) as caught:
        noesis_nb.solve("t", using=agent, runs_dir=root, episode_id="ep_live")
    run = root / "ep_live"
    assert str(run / "notes.pipe") in str(caught.value) and "Move it out" in str(caught.value)
    assert not (run / "final.json").exists() and not (run / "manifest.json").exists()

    (run / "notes.pipe").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    _sealed_whole(run)


_LOST = """
import os, sys
import noesis_nb

def agent(task, ctx):
    ctx.emit("note", {"text": "working"})
    os._exit(0)  # the process dies mid-episode: its run is left for resume_run to seal lost

noesis_nb.solve("t", using=agent, runs_dir=sys.argv[1], episode_id="ep_lost")
"""


def test_sealing_a_lost_run_refuses_an_odd_entry(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    subprocess.run([sys.executable, "-c", _LOST, str(root)], check=True, timeout=120)
    run = root / "ep_lost"
    assert (run / "events.jsonl").is_file() and not (run / "final.json").exists()
    planted = _plant(run, "fifo", tmp_path / "outside")
    before = _tree(run)

    with pytest.raises(UnsafeRunPathError) as caught:
        noesis_nb.resume_run(run)
    assert str(planted) in str(caught.value)
    assert _tree(run) == before

    planted.unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    _sealed_whole(run)


@pytest.mark.parametrize("kind", ["folder_link", "fifo"])
def test_verify_manifest_says_an_odd_entry_in_a_sealed_run(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "runs"
    run = root / noesis_nb.solve("t", using=lambda task, ctx: "done", runs_dir=root)
    assert verify_manifest(run).ok
    planted = _plant(run, kind, tmp_path / "outside")

    check = verify_manifest(run)
    assert not check.ok and check.status == "mismatch"
    name = planted.relative_to(run).as_posix()
    assert [n for n, _ in check.details] == [name]


def test_a_fifo_in_place_of_a_decision_is_named_not_set_aside(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    run, draft = paused_on_disk(tmp_path / "runs", out)
    approvals = run / "tool_invocations" / "approvals"
    approvals.mkdir(parents=True, exist_ok=True)
    fifo = approvals / f"{draft}.json"
    os.mkfifo(fifo)
    before = _tree(run)

    with pytest.raises(UnsafeRunPathError) as caught:
        noesis_nb.approve_draft(run, approver_id="ana")
    assert str(fifo) in str(caught.value) and "move it out of the run folder" in str(caught.value)
    assert _tree(run) == before  # not renamed to <draft>.json.invalid-<time>, not removed, nothing written
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)

    fifo.unlink()
    noesis_nb.approve_draft(run, approver_id="ana")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    assert out.read_text() == "one\n"
    _sealed_whole(run)
