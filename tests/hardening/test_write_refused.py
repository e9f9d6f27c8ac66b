"""A write the file system refuses for another reason than room: read-only (EROFS), no permission (EPERM/EACCES).

As with a full disk (``test_disk_full.py``) the caller gets one error naming the file, the system's
reason (``errno`` kept) and the fix for that reason; a run that exists is given up unsealed (every
line whole, no temp file, the lock released) and ``resume_run`` seals it once the cause is gone;
a run that cannot be made leaves nothing behind. The refusals are the kernel's own: ``chattr +i``
(which refuses root too) and a private read-only tmpfs (``unshare -Urm``); each test that cannot
make its refusal on this machine is skipped and says why.
"""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import RunsDirError, RunWriteError
from noesis_nb.store import read_events
from noesis_nb.store.ownership import acquire

from .privatefs import private_tmpfs

HERE = Path(__file__).resolve().parent


def _immutable(path: Path, on: bool = True) -> None:
    subprocess.run(["chattr", "+i" if on else "-i", str(path)], check=True, capture_output=True)


@pytest.fixture
def chattr(tmp_path: Path):
    """``chattr +i`` on this file system (refuses every writer, root too), undone after the test."""
    if shutil.which("chattr") is None:
        pytest.skip("needs chattr (e2fsprogs) to make a file immutable")
    probe = tmp_path / "probe"
    probe.write_text("x")
    made = subprocess.run(["chattr", "+i", str(probe)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"this file system or user cannot set the immutable flag: {made.stderr.strip()}")
    _immutable(probe, False)
    marked: list[Path] = []

    def mark(path: Path, flag: str = "+i") -> None:
        subprocess.run(["chattr", flag, str(path)], check=True, capture_output=True)
        marked.append(path)

    yield mark
    for path in marked:
        subprocess.run(["chattr", "-i", "-a", str(path)], capture_output=True)


def _given_up_cleanly(run: Path) -> None:
    assert not (run / "final.json").exists() and not (run / "manifest.json").exists(), "sealed although refused"
    read_events(run / "events.jsonl", strict=True)  # every line whole
    assert not list(run.rglob("*.tmp")), "a temp file was left"
    acquire(run, note=False).release()  # the lock was released


def _sealed_by_resume(run: Path, runs_dir: Path) -> None:
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert (run / "final.json").exists() and (run / "manifest.json").exists()
    read_events(run / "events.jsonl", strict=True)


def test_a_log_made_immutable_mid_run_is_one_run_write_error_and_resume_seals(runs_dir: Path, chattr) -> None:
    def agent(task, ctx):
        ctx.emit("note", {"text": "before"})
        chattr(ctx.run_dir / "events.jsonl")
        ctx.emit("note", {"text": "refused"})
        return "never"

    with pytest.raises(RunWriteError) as raised:
        noesis_nb.solve("x", using=agent, runs_dir=runs_dir)
    run = next(runs_dir.glob("ep_*"))
    exc = raised.value
    assert exc.errno == errno.EPERM and exc.filename == str(run / "events.jsonl")
    message = str(exc)
    assert message.startswith(f"could not write {run / 'events.jsonl'}: Operation not permitted (EPERM)"), message
    assert "chattr -i" in message and "chmod" in message, message  # the fix for that reason, not "free space"
    assert "free space" not in message, message
    assert f"run {run.name} is left unsealed" in message and f"resume_run({run.name!r})" in message, message
    _immutable(run / "events.jsonl", False)
    _given_up_cleanly(run)
    _sealed_by_resume(run, runs_dir)
    notes = [e["payload"].get("text") for e in read_events(run / "events.jsonl") if e["phase"] == "note"]
    assert notes == ["before"]  # the refused line is nowhere


def test_a_run_folder_made_immutable_refuses_the_seal_and_resume_seals_later(runs_dir: Path, chattr) -> None:
    def agent(task, ctx):
        chattr(ctx.run_dir)  # the open log still takes lines; no new document can be made in the folder
        return "done"

    with pytest.raises(RunWriteError) as raised:
        noesis_nb.solve("x", using=agent, runs_dir=runs_dir)
    run = next(runs_dir.glob("ep_*"))
    message = str(raised.value)
    assert raised.value.errno == errno.EPERM and str(run) in message, message
    assert "chattr -i" in message and f"resume_run({run.name!r})" in message, message
    _immutable(run, False)
    _given_up_cleanly(run)
    _sealed_by_resume(run, runs_dir)


def test_an_immutable_runs_dir_is_one_clear_error_before_any_run_exists(runs_dir: Path, chattr) -> None:
    chattr(runs_dir)
    with pytest.raises(RunsDirError) as raised:
        noesis_nb.solve("x", using=lambda task: task, runs_dir=runs_dir)
    message = str(raised.value)
    assert raised.value.errno == errno.EPERM, message
    assert f"runs_dir {str(runs_dir)!r} may not be written by this process" in message, message
    assert "chattr -i" in message and "runs_dir=" in message and "nothing was written" in message, message
    _immutable(runs_dir, False)
    assert list(runs_dir.iterdir()) == []


def test_an_append_only_runs_dir_says_the_staging_folder_it_could_not_remove(runs_dir: Path, chattr) -> None:
    """An append-only folder takes the new run's staging folder but refuses both its rename and its removal:
    the error says so and names it, rather than "nothing was written"."""
    chattr(runs_dir, "+a")
    with pytest.raises(RunsDirError) as raised:
        noesis_nb.solve("x", using=lambda task: task, runs_dir=runs_dir)
    message = str(raised.value)
    left = [p.name for p in runs_dir.iterdir()]
    assert raised.value.errno == errno.EPERM and "append-only" in message, message
    assert len(left) == 1 and left[0].endswith(".creating"), left
    assert f"its empty staging folder {left[0]} could not be removed" in message and "nothing was written" not in message
    assert list((runs_dir / left[0]).iterdir()) == []


# -- a read-only file system (EROFS), in a private mount namespace -----------------------------
def _read_only_scenario(scenario: str, mount: Path) -> dict:
    prefix = private_tmpfs("4m", "can be made read-only")
    mount.mkdir()
    argv = [*prefix, str(mount), sys.executable, str(HERE / "readonly.py"), str(mount), scenario]
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONPATH": str(HERE.parent.parent)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_runs_dir_on_a_read_only_file_system_is_one_clear_error_and_nothing_is_left(tmp_path: Path) -> None:
    got = _read_only_scenario("create", tmp_path / "mnt")
    for key in ("there", "unmade"):
        kind, message, code = got[key]
        assert kind == "RunsDirError" and code == errno.EROFS, got[key]
        assert "is on a read-only file system" in message and "runs_dir=" in message, message
        assert "nothing was written" in message, message
    assert got["left"] == [], f"a staging folder was left: {got['left']}"


def test_a_seal_refused_by_a_read_only_file_system_gives_the_run_up_and_resume_seals_it(tmp_path: Path) -> None:
    got = _read_only_scenario("seal", tmp_path / "mnt")
    assert got["made_ro"], got
    kind, message, code = got["error"]
    assert kind == "RunWriteError" and code == errno.EROFS, got["error"]
    assert message.startswith("could not write ") and "Read-only file system (EROFS)" in message, message
    assert ".tmp" not in message, f"the temp file is named, not the document: {message}"
    assert "writable" in message and "is left unsealed" in message and "resume_run(" in message, message
    assert got["at_refusal"] == {"sealed": False, "temp_files": [], "strict_read": None}, got["at_refusal"]
    kind, message, _ = got["still_read_only"]  # resume_run before it is writable: one clear error, nothing changed
    assert kind in ("EpisodeStateError", "RunWriteError") and "Read-only file system" in message, got["still_read_only"]
    assert got["resumed"] is None and got["final"] is not None and got["manifest"], got


def test_a_decision_refused_by_a_read_only_file_system_names_the_decision_file(tmp_path: Path) -> None:
    got = _read_only_scenario("decide", tmp_path / "mnt")
    kind, message, code = got["refused"]
    assert kind == "RunWriteError" and code == errno.EROFS, got["refused"]
    assert "/tool_invocations/approvals/draft:" in message and ".new" not in message, f"the temp file is named: {message}"
    assert "Read-only file system (EROFS)" in message and "writable" in message, message
    assert got["decided"] is None and got["resumed"] is None, got
    assert got["final"] is not None and got["final"]["outcome"] == "success" and got["tool_ran"] == 1, got


def test_an_append_only_approvals_folder_refuses_a_decision_in_one_clear_error(runs_dir: Path, tmp_path: Path, chattr) -> None:
    """An append-only folder takes new files but no rename or removal: the decision (written through a temp file)
    is refused as one RunWriteError naming it; once the folder is writable the decision and the seal go through."""
    from tests.runtime.agents import make_writer

    episode = noesis_nb.solve("x", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
    run = runs_dir / episode
    approvals = run / "tool_invocations" / "approvals"
    approvals.mkdir(parents=True, exist_ok=True)
    chattr(approvals, "+a")
    with pytest.raises(RunWriteError) as raised:
        noesis_nb.approve_draft(run, approver_id="ana")
    message = str(raised.value)
    assert raised.value.errno == errno.EPERM and f"{approvals}/draft:" in message and ".new" not in message, message
    assert "append-only" in message, message
    assert not [p for p in approvals.iterdir() if not p.name.startswith(".")], "a decision was written"
    subprocess.run(["chattr", "-a", str(approvals)], check=True)
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(episode, runs_dir=runs_dir)
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert not [p.name for p in approvals.iterdir() if p.name.startswith(".")], "the seal left a temp file"
