"""Writing into a run or runs root someone else crafted never writes, truncates or chmods a file outside it.

The readers are hardened against crafted runs; these cases attack the writers. Each one plants a trap
(a hard link to a victim file, a link swapped in after a check, a folder where a document goes, a linked
``batches`` folder) in a run paused on a draft, then decides, resumes or batches as a user would, and
checks that the victim is untouched and that one error names the path and what to do.
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import NoesisNbError, RunGoneError
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.store import eventlog as eventlog_module
from noesis_nb.store import is_sealed, read_events
from noesis_nb.store.eventlog import EventWriter
from noesis_nb.store.ownership import OWNER_FILE

from .crashkit import tool_agent

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def approved_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run paused on a draft of Noēsis' own protocol, its draft approved: ``resume_run`` runs the tool and seals."""
    root = tmp_path_factory.mktemp("crafted-writes")
    ep = noesis_nb.solve("append the note", using=tool_agent(str(root / "marker.txt")), runs_dir=root / "runs", approver="ask")
    noesis_nb.approve_draft(root / "runs" / ep, approver_id="ana")
    return root / "runs" / ep


@pytest.fixture
def run(approved_base: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "runs" / approved_base.name
    shutil.copytree(approved_base, copy, symlinks=True)
    return copy


def _victim(tmp_path: Path, data: bytes) -> tuple[Path, tuple[bytes, int, int]]:
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir(exist_ok=True)
    victim.write_bytes(data)
    os.chmod(victim, 0o600)
    return victim, _state(victim)


def _state(path: Path) -> tuple[bytes, int, int]:
    st = os.stat(path)
    return path.read_bytes(), st.st_mode, st.st_mtime_ns


def test_an_event_log_hard_linked_to_a_file_outside_is_refused_not_cut_or_appended(run: Path, tmp_path: Path) -> None:
    log = run / "events.jsonl"
    # the victim holds the run's log and a last line without its newline: a writer would cut it, then append
    victim, before = _victim(tmp_path, log.read_bytes() + b'{"not": "a whole line')
    log.unlink()
    os.link(victim, log)
    with pytest.raises(NoesisNbError, match=r"events\.jsonl.*hard link"):
        noesis_nb.resume_run(run)
    assert _state(victim) == before
    assert not is_sealed(run)
    # the run given its own copy of the log resumes as it would have
    data = victim.read_bytes()
    log.unlink()
    log.write_bytes(data[: data.rindex(b"\n") + 1])
    noesis_nb.resume_run(run)
    assert is_sealed(run) and _state(victim) == before


def test_an_event_log_swapped_for_a_link_after_the_check_is_never_followed(run: Path, tmp_path: Path, monkeypatch) -> None:
    """The link appears between ``run_path``'s look and the open (the check is skipped here to stand for that race)."""
    victim, before = _victim(tmp_path, b"keep every byte of this, even the line without its newline")
    log = run / "events.jsonl"
    log.unlink()
    log.symlink_to(victim)
    monkeypatch.setattr(eventlog_module, "run_path", lambda run_dir, name: Path(run_dir) / name)
    with pytest.raises(NoesisNbError, match=r"events\.jsonl.*(symbolic link|symlink)"):
        EventWriter(log)
    assert _state(victim) == before


@pytest.mark.parametrize("what", ["fifo", "directory"])
def test_an_event_log_that_is_no_file_is_named_by_a_writer(run: Path, what: str) -> None:
    log = run / "events.jsonl"
    log.unlink()
    os.mkfifo(log) if what == "fifo" else log.mkdir()
    with pytest.raises(NoesisNbError, match=r"events\.jsonl.*not a file"):
        EventWriter(log)


def test_an_owner_note_hard_linked_to_a_file_outside_is_refused_not_truncated(run: Path, tmp_path: Path) -> None:
    victim, before = _victim(tmp_path, b"a file of someone else's\n")
    note = run / OWNER_FILE
    note.unlink(missing_ok=True)
    os.link(victim, note)
    with pytest.raises(NoesisNbError, match=rf"{OWNER_FILE}.*hard link"):
        noesis_nb.resume_run(run)
    assert _state(victim) == before
    note.unlink()
    noesis_nb.resume_run(run)
    assert is_sealed(run) and _state(victim) == before


def test_a_folder_in_place_of_the_summary_is_one_clear_error_and_the_run_resumes_once_it_is_gone(run: Path) -> None:
    (run / "summary.json").mkdir()
    log = (run / "events.jsonl").read_bytes()
    with pytest.raises(NoesisNbError, match=r"summary\.json.*a directory is in its place.*move that folder out of the run"):
        noesis_nb.resume_run(run)
    assert log == (run / "events.jsonl").read_bytes()  # refused before the tool ran: nothing written
    (run / "summary.json").rmdir()
    noesis_nb.resume_run(run)  # so this resume runs it, once, and seals the run
    names = [str((e.get("payload") or {}).get("event_name")) for e in read_events(run / "events.jsonl")]
    assert names.count("tool.execution.started") == 1
    assert is_sealed(run)
    assert read_events(run / "events.jsonl")[-1]["phase"] == "memory"


def test_a_batches_folder_linked_out_of_the_root_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "batches").symlink_to(outside, target_is_directory=True)

    async def main() -> None:
        await noesis_nb.batch(["a"], using=lambda task: "done", root=root, batch_id="b1")

    with pytest.raises(NoesisNbError, match=r"batches.*symbolic link"):
        asyncio.run(main())
    assert list(outside.iterdir()) == []


def test_finishing_a_cut_short_seal_never_touches_a_learn_log_hard_linked_outside(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    run = root / noesis_nb.solve("a short one", using=lambda task: "done", runs_dir=root)
    for name in ("final.json", "manifest.json", "summary.json"):  # its sealer was killed after the terminate event
        (run / name).unlink()
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_bytes(b"")
    os.utime(victim, ns=(10**9, 10**9))
    before = _state(victim)
    (run / "learn.jsonl").unlink()
    os.link(victim, run / "learn.jsonl")
    with pytest.warns(RunRecovered):
        noesis_nb.resume_run(run)
    assert is_sealed(run)
    assert _state(victim) == before, "the file behind the learn log was touched (its time set)"


def test_a_noeta_folder_linked_out_of_the_run_is_refused_not_written_into(tmp_path: Path) -> None:
    pytest.importorskip("noeta.sdk")
    from types import SimpleNamespace

    from noesis_nb.integrations.noeta import NoetaAdapter

    run_dir = tmp_path / "runs" / "ep_crafted"
    run_dir.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (run_dir / "x-noeta").symlink_to(outside, target_is_directory=True)
    adapter = NoetaAdapter(client_factory=lambda: None)
    client = SimpleNamespace(messages=lambda task_id: [{"role": "assistant", "content": "done"}])
    outcome = SimpleNamespace(task_id="t1")
    with pytest.raises(NoesisNbError, match=r"x-noeta is a symbolic link"):
        adapter._finish(client, outcome, None, SimpleNamespace(run_dir=run_dir))
    assert list(outside.iterdir()) == []


def test_an_event_log_swapped_while_the_episode_runs_is_named_with_where_the_log_went(tmp_path: Path) -> None:
    """Someone renames the live log away and puts a link to a file of theirs in its place: nothing is written
    to that file, and the error says where the log went and how to seal the run (not "the directory moved")."""
    victim, before = _victim(tmp_path, b"keep me")
    moved = tmp_path / "outside" / "moved.jsonl"

    def agent(task: str, ctx) -> str:
        ctx.emit("note", {"text": "one"})
        run_dir = Path(ctx.run_dir)
        os.rename(run_dir / "events.jsonl", moved)
        (run_dir / "events.jsonl").symlink_to(victim)
        time.sleep(EventWriter.SEAL_CHECK_S * 2)
        ctx.emit("note", {"text": "two"})
        return "done"

    with pytest.raises(RunGoneError) as caught:
        noesis_nb.solve("swap the log", using=agent, runs_dir=tmp_path / "runs")
    message = str(caught.value)
    assert "its events.jsonl was replaced" in message and str(moved) in message, message
    assert "move it back to" in message and "resume_run(" in message, message
    assert _state(victim) == before
    assert pickle.loads(pickle.dumps(caught.value)).args == caught.value.args


@pytest.mark.parametrize("what", ["symlink", "fifo", "directory", "hardlink"])
def test_a_state_that_is_no_file_of_the_run_is_named_with_why_and_what_to_do(run: Path, tmp_path: Path, what: str) -> None:
    victim, before = _victim(tmp_path, b"not a state\n")
    state = run / "state.json"
    state.unlink()
    {
        "symlink": lambda: state.symlink_to(victim),
        "fifo": lambda: os.mkfifo(state),
        "directory": state.mkdir,
        "hardlink": lambda: os.link(victim, state),
    }[what]()
    reason = {"symlink": "outside the run", "fifo": "FIFO", "directory": "a directory", "hardlink": "not a JSON object"}[what]
    with pytest.raises(NoesisNbError, match=rf"state\.json is .*{reason}.*restored from a copy of the run"):
        noesis_nb.resume_run(run)
    assert _state(victim) == before


def test_a_batch_entry_whose_run_folder_is_a_link_to_another_run_is_an_error_never_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    other = elsewhere / noesis_nb.solve("append the note", using=tool_agent(str(tmp_path / "marker.txt")), runs_dir=elsewhere)
    noesis_nb.approve_draft(other, approver_id="ana")  # resumable: a batch that took it for its own would run its tool
    before = {p: p.read_bytes() for p in other.rglob("*") if p.is_file()}
    root = tmp_path / "runs"

    async def main() -> noesis_nb.BatchHandle:
        return await noesis_nb.batch(["a", "b"], using=lambda task: task.upper(), root=root, batch_id="b1")

    asyncio.run(main())
    second = json.loads((root / "batches" / "b1.json").read_text())["entries"][1]["episode_id"]
    shutil.rmtree(root / second)
    (root / second).symlink_to(other, target_is_directory=True)
    handle = asyncio.run(main())
    entry = handle.entries[1]
    assert entry.status == "error" and "symbolic link" in (entry.error or ""), (entry.status, entry.error)
    assert {p: p.read_bytes() for p in other.rglob("*") if p.is_file()} == before
    assert not (tmp_path / "marker.txt").exists()


@pytest.mark.parametrize("what", ["directory", "fifo", "dangling symlink"])
@pytest.mark.parametrize("unknown_outcome", [None, "retry"])
def test_a_claim_planted_as_no_file_is_named_never_taken_for_a_dispatch(run: Path, what: str, unknown_outcome: Any) -> None:
    """A claim is the empty file made when a draft is handed to its tool; anything else there is not a dispatch."""
    draft = next((run / "tool_invocations" / "prepared").glob("*.json")).stem
    claim = run / "tool_invocations" / "executions" / f"{draft}.claim"
    claim.parent.mkdir(parents=True, exist_ok=True)
    if what == "directory":
        claim.mkdir()
    elif what == "fifo":
        os.mkfifo(claim)
    else:
        claim.symlink_to(run.parent / "nowhere")
    log = (run / "events.jsonl").read_bytes()
    removed = r"([Mm]ove (it|that folder) out of the run|remove the link)"
    said = rf"{draft}\.claim is (a directory|a FIFO|a symbolic link).*(not a claim.*{removed}|Replace the link)"
    with pytest.raises(NoesisNbError, match=said):
        noesis_nb.resume_run(run, unknown_outcome=unknown_outcome)
    assert (run / "events.jsonl").read_bytes() == log and not is_sealed(run)  # nothing said about a dispatch that never was
    claim.rmdir() if what == "directory" else claim.unlink()
    noesis_nb.resume_run(run)
    assert is_sealed(run)
    names = [str((e.get("payload") or {}).get("event_name")) for e in read_events(run / "events.jsonl")]
    assert names.count("tool.execution.started") == 1 and "tool.execution.outcome_unknown" not in names
