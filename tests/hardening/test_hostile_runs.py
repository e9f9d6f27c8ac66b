"""Runs crafted by someone else never make noesis_nb write outside them, or hash what lies outside them.

Runs are shared and downloaded. Every case plants one trap in a paused run (an id read from a
file used as a path, a symlinked folder, log or run directory, a link inside the run), then
decides and resumes it as a user would, and checks that the outside directory stays empty and
that the refusal says what is wrong.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import InvalidIdError, NoesisNbError
from noesis_nb.store import is_sealed, read_events, read_json, verify_manifest

from .crashkit import append_argv, tool_agent


def _paused_on_draft(runs_dir: Path, tmp_path: Path) -> Path:
    ep = noesis_nb.solve("append the note", using=tool_agent(str(tmp_path / "marker.txt")), runs_dir=runs_dir, approver="ask")
    return runs_dir / ep


def _paused_on_veto(runs_dir: Path) -> Path:
    ns.set(governance_pause_on_veto=True)
    ep = noesis_nb.solve("destroy the staging copy", using=lambda task: "done", runs_dir=runs_dir, governance="enforce")
    return runs_dir / ep


def _rewrite_events(run: Path, change) -> None:
    lines = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    (run / "events.jsonl").write_text("".join(json.dumps(change(e)) + "\n" for e in lines))


def _everything_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    return path


@pytest.mark.parametrize("planted", ["../../outside/x", "../outside", "chk/../../outside", "{outside}/abs", "a\\..\\b"])
def test_a_checkpoint_id_read_from_the_log_never_becomes_a_path(runs_dir: Path, outside: Path, planted: str) -> None:
    run = _paused_on_veto(runs_dir)
    planted = planted.format(outside=outside)

    def plant(event: dict) -> dict:
        if event.get("event_type") == "run.checkpoint":
            event["payload"]["checkpoint_id"] = planted
        return event

    _rewrite_events(run, plant)
    for act in (
        lambda: noesis_nb.approve_draft(run, approver_id="mallory"),
        lambda: noesis_nb.reject_draft(run, approver_id="mallory"),
        lambda: noesis_nb.resume_run(run, using=lambda task: "done"),
    ):
        with pytest.raises(InvalidIdError, match="checkpoint id"):
            act()
    assert _everything_under(outside) == []
    assert not (runs_dir.parent / "outside" / "x").exists()


def test_a_draft_id_read_from_the_log_never_becomes_a_path(runs_dir: Path, tmp_path: Path, outside: Path) -> None:
    run = _paused_on_draft(runs_dir, tmp_path)

    def plant(event: dict) -> dict:
        if event.get("payload", {}).get("event_name") == "tool.approval.pending":
            event["payload"]["draft_id"] = "../../outside/evil"
        return event

    _rewrite_events(run, plant)
    with pytest.raises(NoesisNbError):
        noesis_nb.approve_draft(run, approver_id="mallory")
    with pytest.raises(NoesisNbError):
        noesis_nb.resume_run(run)
    assert _everything_under(outside) == []
    assert not (tmp_path / "marker.txt").exists()


@pytest.mark.parametrize("linked", ["tool_invocations/approvals", "tool_invocations", "checkpoints"])
def test_a_linked_folder_inside_a_run_is_refused_for_writes(runs_dir: Path, tmp_path: Path, outside: Path, linked: str) -> None:
    run = _paused_on_draft(runs_dir, tmp_path) if linked != "checkpoints" else _paused_on_veto(runs_dir)
    folder = run / linked
    shutil.copytree(folder, outside / "copy") if folder.exists() else None
    target = outside / "copy"
    target.mkdir(exist_ok=True)
    before = _everything_under(outside)
    shutil.rmtree(folder, ignore_errors=True)
    folder.symlink_to(target, target_is_directory=True)
    with pytest.raises(NoesisNbError, match="symbolic link"):
        noesis_nb.approve_draft(run, approver_id="mallory")
        noesis_nb.resume_run(run, using=lambda task: "done")
    assert _everything_under(outside) == before, "something was written through the link"


def test_a_linked_event_log_is_refused(runs_dir: Path, tmp_path: Path, outside: Path) -> None:
    run = _paused_on_draft(runs_dir, tmp_path)
    noesis_nb.approve_draft(run, approver_id="ana")
    real = outside / "events.jsonl"
    shutil.move(run / "events.jsonl", real)
    (run / "events.jsonl").symlink_to(real)
    size = real.stat().st_size
    with pytest.raises(NoesisNbError, match="symbolic link"):
        noesis_nb.resume_run(run)
    assert real.stat().st_size == size and not (tmp_path / "marker.txt").exists()


def test_a_linked_run_directory_is_refused_by_id_but_its_real_path_works(runs_dir: Path, tmp_path: Path, outside: Path) -> None:
    run = _paused_on_draft(runs_dir, tmp_path)
    real = outside / run.name
    shutil.move(run, real)
    run.symlink_to(real, target_is_directory=True)
    with pytest.raises(NoesisNbError, match="symbolic link"):
        noesis_nb.approve_draft(run.name, approver_id="ana", runs_dir=runs_dir)
    assert not (real / "tool_invocations" / "approvals").exists()
    noesis_nb.approve_draft(real, approver_id="ana")  # the user names the real place: that is their choice
    noesis_nb.resume_run(real)
    assert is_sealed(real)


def test_links_inside_a_run_are_never_hashed_into_its_manifest(runs_dir: Path, tmp_path: Path, outside: Path) -> None:
    run = _paused_on_draft(runs_dir, tmp_path)
    secret = outside / "hostname"
    secret.write_text("host-outside\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "inner.txt").write_text("outside\n")
    (run / "attachments").mkdir()
    (run / "attachments" / "host").symlink_to(secret)
    (run / "linked-dir").symlink_to(outside / "dir", target_is_directory=True)
    noesis_nb.approve_draft(run, approver_id="ana")
    # a sealed run holds only what its manifest lists: the links are named (not followed, not hashed), nothing written
    with pytest.raises(NoesisNbError, match=r"attachments/host is a symbolic link .*\(and 1 more: linked-dir\).*Move it out"):
        noesis_nb.resume_run(run)
    assert not is_sealed(run) and not (run / "final.json").exists()
    shutil.move(run / "attachments" / "host", tmp_path / "host")
    shutil.move(run / "linked-dir", tmp_path / "linked-dir")
    noesis_nb.resume_run(run)
    manifest = read_json(run / "manifest.json")
    names = {f["name"] for f in manifest["files"]}
    assert not any(n.startswith(("attachments/host", "linked-dir")) for n in names), names
    assert "events.jsonl" in names and verify_manifest(run).ok
    assert secret.read_text() == "host-outside\n"


def test_a_planted_owner_lock_link_is_refused_without_touching_its_target(runs_dir: Path, tmp_path: Path, outside: Path) -> None:
    run = _paused_on_draft(runs_dir, tmp_path)
    noesis_nb.approve_draft(run, approver_id="ana")
    target = outside / "owned.txt"
    target.write_text("keep me\n")
    (run / ".owner.lock").unlink(missing_ok=True)
    (run / ".owner.lock").symlink_to(target)
    with pytest.raises(NoesisNbError, match="symbolic link"):
        noesis_nb.resume_run(run)
    assert target.read_text() == "keep me\n"
    (run / ".owner.lock").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        noesis_nb.resume_run(run)  # with the link gone, the run resumes normally
    assert is_sealed(run) and len((tmp_path / "marker.txt").read_text().splitlines()) == 1
    assert read_events(run / "events.jsonl")[-1]["phase"] == "memory"


def test_argv_helper_is_what_the_tool_runs(tmp_path: Path) -> None:
    """The trap tests count executions through this argv; make sure it really appends."""
    import subprocess

    marker = tmp_path / "m.txt"
    subprocess.run(append_argv(str(marker)), check=True)
    assert marker.read_text() == "ran\n" and os.path.getsize(marker) == 4
