"""One writer per run: the lock on the run directory, and the note file where a directory cannot be locked."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

import noesis_nb
from noesis_nb.store import ownership
from noesis_nb.store.ownership import OWNER_FILE, RunBusyError, acquire, holder

from ..compat.checker import check_run


def _tool_agent(marker: Path):
    def agent(task, ctx):
        out = ctx.tool("fs.append", {"argv": ["sh", "-c", f"echo ran >> {marker}"]}, effect="write", risk="high")
        return out["returncode"]

    return agent


@pytest.fixture
def no_directory_locks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A file system like NFS: flock on a directory opened read-only fails (EBADF); on a file it works."""
    refused: list[str] = []

    def flock(fd: int, operation: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            refused.append("dir")
            raise OSError(errno.EBADF, "Bad file descriptor")
        fcntl.flock(fd, operation)

    fake = SimpleNamespace(
        flock=flock, LOCK_EX=fcntl.LOCK_EX, LOCK_SH=fcntl.LOCK_SH, LOCK_NB=fcntl.LOCK_NB, LOCK_UN=fcntl.LOCK_UN
    )
    monkeypatch.setattr(ownership, "fcntl", fake)
    return refused


@pytest.fixture
def no_exclusive_directory_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    """NFS as Linux emulates flock there (byte-range locks): a shared lock on a directory opened read-only is
    allowed, an exclusive one fails (EBADF: it needs a descriptor open for writing)."""

    def flock(fd: int, operation: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode) and operation & fcntl.LOCK_EX:
            raise OSError(errno.EBADF, "Bad file descriptor")
        fcntl.flock(fd, operation)

    fake = SimpleNamespace(
        flock=flock, LOCK_EX=fcntl.LOCK_EX, LOCK_SH=fcntl.LOCK_SH, LOCK_NB=fcntl.LOCK_NB, LOCK_UN=fcntl.LOCK_UN
    )
    monkeypatch.setattr(ownership, "fcntl", fake)


def test_a_writer_holding_the_note_is_seen_where_a_shared_directory_lock_is_allowed(
    no_exclusive_directory_locks: None, tmp_path: Path
) -> None:
    """Asking with a shared lock on the directory finds it free: the writer, refused the exclusive one, holds the
    note. It is named (a batch would otherwise recover, and seal, a run that lives) and the run is not lost."""
    run = tmp_path / "ep_nfs"
    run.mkdir()
    held = acquire(run)
    try:
        assert held.on_note
        assert holder(run) == (run / OWNER_FILE).read_text()
        assert not ownership.abandoned(run)
    finally:
        held.release()
    assert holder(run) is None and ownership.abandoned(run)  # the note left, nobody holding it


def test_asking_about_a_run_this_process_holds_never_probes_its_lock(
    no_exclusive_directory_locks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where flock is emulated with POSIX locks (NFS), locks belong to the whole process: this process's own
    shared probe of the note it holds would convert its exclusive lock, and the probe's unlock would release the
    run it writes. So a run this process holds is answered from memory: named as held, never lost."""
    run = tmp_path / "ep_self"
    run.mkdir()
    held = acquire(run)
    probes: list[int] = []
    flock = ownership.fcntl.flock
    monkeypatch.setattr(ownership.fcntl, "flock", lambda fd, op: (probes.append(op), flock(fd, op))[1])
    try:
        assert held.on_note
        assert holder(run) == (run / OWNER_FILE).read_text()
        assert not ownership.abandoned(run)
        assert probes == [], "the lock this process holds was probed"
    finally:
        held.release()


@pytest.mark.parametrize("nfs", [False, True], ids=["local", "nfs"])
def test_a_folder_put_where_a_held_run_was_is_not_taken_for_it(
    nfs: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """This process holds a run, which is then moved away and another folder put at its path, with a note nobody
    holds (a writer killed there): that folder is asked about as itself (lost, held by nobody), never answered
    from the held run's memory; the moved run is still known as held (by its folder, not its old path)."""
    if nfs:
        request.getfixturevalue("no_exclusive_directory_locks")
    run = tmp_path / "ep_swapped"
    run.mkdir()
    held = acquire(run)
    try:
        moved = tmp_path / "ep_swapped_moved"
        run.rename(moved)
        run.mkdir()
        (run / OWNER_FILE).write_text("pid 1 on elsewhere since then")
        assert holder(run) is None
        assert ownership.abandoned(run)
        assert holder(moved) == (moved / OWNER_FILE).read_text() and not ownership.abandoned(moved)
    finally:
        held.release()
    assert ownership.abandoned(moved)  # let go: its note stays, nobody holds it


def test_the_lock_is_on_the_directory_and_a_second_writer_is_told_who_holds_it(tmp_path: Path) -> None:
    run = tmp_path / "ep_x"
    run.mkdir()
    held = acquire(run)
    assert (run / OWNER_FILE).read_text().startswith(f"pid {os.getpid()} on ")
    with pytest.raises(RunBusyError, match=f"pid {os.getpid()}"):
        acquire(run)
    assert holder(run) == (run / OWNER_FILE).read_text()
    held.remove_note()  # the sealer's step before the manifest: the lock stays held without its note
    assert not (run / OWNER_FILE).exists()
    with pytest.raises(RunBusyError, match="another process"):
        acquire(run, note=False)
    held.release()
    assert holder(run) is None
    acquire(run, note=False).release()
    assert not (run / OWNER_FILE).exists(), "note=False writes no note"


def test_where_a_directory_cannot_be_locked_the_note_itself_is_the_lock(
    no_directory_locks: list[str], runs_dir: Path, tmp_path: Path
) -> None:
    run = tmp_path / "ep_y"
    run.mkdir()
    held = acquire(run)
    assert no_directory_locks and held.on_note
    with pytest.raises(RunBusyError, match=f"pid {os.getpid()}"):
        acquire(run)
    assert holder(run) is not None
    held.remove_note()
    assert (run / OWNER_FILE).exists(), "the note is the lock: kept until the run is given up"
    held.release(remove=True)
    assert holder(run) is None and not (run / OWNER_FILE).exists()

    marker = tmp_path / "marker.txt"  # a whole episode: paused, approved, resumed from disk, sealed
    ep = noesis_nb.solve("append the note", _tool_agent(marker), runs_dir=runs_dir, approver="ask")
    noesis_nb.approve_draft(ep, approver_id="ana", runs_dir=runs_dir)
    noesis_nb.resume_run(ep, runs_dir=runs_dir)
    assert marker.read_text() == "ran\n"
    assert not check_run(runs_dir / ep)
    # here the note is removed after the manifest: a sealer killed between the two leaves it, and resume_run removes it
    (runs_dir / ep / OWNER_FILE).write_text("pid 1 on elsewhere since then")
    assert [v.rule for v in check_run(runs_dir / ep)] == ["manifest.complete"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NothingToResume: the run is sealed
        noesis_nb.resume_run(ep, runs_dir=runs_dir)
    assert not (runs_dir / ep / OWNER_FILE).exists() and not check_run(runs_dir / ep)


def test_a_new_run_is_held_from_the_moment_it_appears(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process looking at the root (a batch call deciding which runs lost their process) must never find
    a new run unheld and unsealed: the run is locked before its folder takes its name, not just after."""
    seen: dict[str, str | None] = {}
    rename = os.rename

    def watched(src, dst, *args, **kwargs):
        rename(src, dst, *args, **kwargs)
        if str(src).endswith(".creating"):
            seen[Path(dst).name] = holder(dst)  # what anyone looking right now finds

    monkeypatch.setattr(os, "rename", watched)
    episode = noesis_nb.solve("a task", using=lambda task, ctx: "ok", runs_dir=tmp_path)
    assert seen.get(episode) is not None, f"run {episode} appeared with nobody holding it: {seen}"
    assert holder(tmp_path / episode) is None  # and let go once sealed


def test_a_note_written_over_by_someone_else_is_shown_on_one_line_redacted(tmp_path: Path) -> None:
    """The note is a file of the run, anyone's to write while its writer holds the lock: a second writer's refusal
    quotes it with no terminal escape or line break and no key in it, and the note noesis_nb wrote reads unchanged."""
    run = tmp_path / "ep_noted"
    run.mkdir()
    held = acquire(run)
    try:
        mine = (run / OWNER_FILE).read_text()
        assert holder(run) == mine and ownership.held_here(holder(run))
        key = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
        (run / OWNER_FILE).write_bytes(f"pid 1 on x\x1b[2J\r\nOPENAI_API_KEY={key}\u202e".encode())
        with pytest.raises(RunBusyError) as told:
            acquire(run)
        said = str(told.value)
        assert "pid 1 on x" in said and "it continues there" in said
        assert not any(c in said for c in "\x1b\r\n\u202e"), repr(said)
        assert key not in said and key[:12] not in said, said
        assert "\n" not in (holder(run) or "") and "\x1b" not in (holder(run) or "")
    finally:
        held.release()
