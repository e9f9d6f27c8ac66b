"""Small edges that used to leak raw errors, pick the wrong draft, end a waiting episode or write twice."""

from __future__ import annotations

import asyncio
import json
import os
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, RunNotFoundError, RunSealedError
from noesis_nb.runtime.resume import NothingToResume
from noesis_nb.store import read_events, read_json, verify_manifest
from noesis_nb.tools import ApprovalDecisionRequiredError

from ..compat.checker import check_run
from .crashkit import tool_agent


def _paused(runs_dir: Path, tmp_path: Path) -> Path:
    ep = noesis_nb.solve("append the note", using=tool_agent(str(tmp_path / "marker.txt")), runs_dir=runs_dir, approver="ask")
    return runs_dir / ep


@pytest.mark.parametrize("target", ["ep_" + "x" * 300, "a" * 300 + "/b", "./" + "y" * 300, "é" * 200, "x" * 201])
def test_an_over_long_id_or_path_is_one_clear_error(runs_dir: Path, target: str) -> None:
    for call in (
        lambda: noesis_nb.approve_draft(target, approver_id="a", runs_dir=runs_dir),
        lambda: noesis_nb.resume_run(target, runs_dir=runs_dir),
        lambda: noesis_nb.show(target, runs_dir=runs_dir),
    ):
        with pytest.raises((InvalidIdError, RunNotFoundError)) as info:
            call()
        assert "Errno" not in str(info.value) and (
            "long" in str(info.value) or "no run" in str(info.value) or "characters" in str(info.value)
        )


@pytest.mark.parametrize("ref", ["", "   ", "draft:", "draft:{ep}:", "req", 0])
def test_a_draft_reference_that_names_nothing_never_decides_the_only_draft(runs_dir: Path, tmp_path: Path, ref) -> None:
    run = _paused(runs_dir, tmp_path)
    ref = ref.format(ep=run.name) if isinstance(ref, str) else ref
    with pytest.raises(InvalidIdError, match="draft"):
        noesis_nb.approve_draft(run, ref, approver_id="mallory")
    assert not (run / "tool_invocations" / "approvals").exists() or not list((run / "tool_invocations" / "approvals").iterdir())


def test_a_garbage_decision_file_is_reported_and_the_episode_keeps_waiting(runs_dir: Path, tmp_path: Path) -> None:
    async def main():
        handle = noesis_nb.start("append the note", using=tool_agent(str(tmp_path / "marker.txt")), runs_dir=runs_dir)
        await handle
        draft = handle.pending[0].draft_id
        approvals = handle.run_dir / "tool_invocations" / "approvals"
        approvals.mkdir(parents=True, exist_ok=True)
        (approvals / f"{draft}.json").write_text("{not json")  # another program's broken write
        await asyncio.sleep(0.8)  # several polls
        assert handle.status == "paused" and handle.problems, "the episode must keep waiting and say what is wrong"
        assert "not valid JSON" in handle.problems[0] and draft in handle.problems[0]
        decision = handle.approve(approver_id="ana")  # a valid decision still goes through
        await asyncio.wait_for(handle.wait(), 10)
        return handle, decision, approvals

    handle, decision, approvals = asyncio.run(main())
    assert decision.created and handle.status == "ok"
    kept = [p.name for p in approvals.iterdir() if ".invalid-" in p.name]
    assert len(kept) == 1 and (approvals / kept[0]).read_text() == "{not json", "the broken file is kept aside, not lost"


def test_a_failed_resume_writes_nothing_and_leaves_no_file_open(runs_dir: Path, tmp_path: Path) -> None:
    run = _paused(runs_dir, tmp_path)
    before = (run / "events.jsonl").read_bytes(), (run / "state.json").read_bytes()
    for _ in range(3):
        with pytest.raises(ApprovalDecisionRequiredError, match="approve_draft"):
            noesis_nb.resume_run(run)
    assert ((run / "events.jsonl").read_bytes(), (run / "state.json").read_bytes()) == before
    open_files = {
        os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}")
    }
    assert str((run / "events.jsonl").resolve()) not in open_files
    assert str((run / ".owner.lock").resolve()) not in open_files
    assert str(run.resolve()) not in open_files  # the lock is taken on the directory: given up with it


def test_nothing_to_resume_points_at_the_callers_line(runs_dir: Path, tmp_path: Path) -> None:
    run = _paused(runs_dir, tmp_path)
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.resume_run(run)

        async def in_a_cell():
            await noesis_nb.resume_run_async(run)

        asyncio.run(in_a_cell())
    told = [w for w in caught if issubclass(w.category, NothingToResume)]
    assert len(told) == 2 and all(w.filename == __file__ for w in told), [(w.filename, w.lineno) for w in told]
    assert "already sealed" in str(told[0].message)


def test_a_paused_episode_stands_down_when_someone_else_seals_its_run(runs_dir: Path, tmp_path: Path) -> None:
    """The writer trusts the disk, not its memory: final.json written by another program ends the live episode."""

    async def main():
        handle = noesis_nb.start("append the note", using=tool_agent(str(tmp_path / "marker.txt")), runs_dir=runs_dir)
        await handle
        lines = (handle.run_dir / "events.jsonl").read_bytes()
        (handle.run_dir / "final.json").write_text(json.dumps({"schema_version": "final/2.0.0", "outcome": "cancelled"}))
        with pytest.raises(RunSealedError):  # the run is sealed: nothing can be decided in it any more
            handle.approve(approver_id="ana")
        await asyncio.wait_for(handle.wait(), 10)  # the episode notices the seal and stands down
        return handle, lines

    handle, lines = asyncio.run(main())
    assert (handle.run_dir / "events.jsonl").read_bytes() == lines, "an event was appended to a sealed run"
    assert handle.status == "cancelled" and not (tmp_path / "marker.txt").exists()
    assert read_json(handle.run_dir / "final.json")["outcome"] == "cancelled"
    assert read_events(handle.run_dir / "events.jsonl")[-1]["event_type"] == "run.checkpoint"


def test_an_adapter_that_catches_the_seal_of_its_paused_run_still_stands_down(runs_dir: Path, tmp_path: Path) -> None:
    """The same seal by another program, with an adapter that takes its tool call's end as a value
    (``asyncio.gather(..., return_exceptions=True)``) and returns: its run is sealed, not paused for a person, so the
    episode stands down as when the refusal unwinds it, and writes nothing."""

    async def gathering(task, ctx):
        return await asyncio.gather(
            ctx.tool_async("fs.append", {"argv": ["true"]}, effect="write", risk="high"), return_exceptions=True
        )

    async def main():
        handle = noesis_nb.start("append the note", using=gathering, runs_dir=runs_dir)
        await handle
        lines = (handle.run_dir / "events.jsonl").read_bytes()
        (handle.run_dir / "final.json").write_text(json.dumps({"schema_version": "final/2.0.0", "outcome": "cancelled"}))
        with pytest.raises(RunSealedError):
            handle.approve(approver_id="ana")
        await asyncio.wait_for(handle.wait(), 10)
        return handle, lines

    handle, lines = asyncio.run(main())
    assert (handle.run_dir / "events.jsonl").read_bytes() == lines, "an event was appended to a sealed run"
    assert handle.status == "cancelled" and not handle.ended_paused


@pytest.mark.parametrize("sealed", ["before the decision is written", "after it is written"])
def test_a_decision_racing_the_seal_is_listed_by_the_manifest_or_taken_back(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sealed: str
) -> None:
    """The sealed check and the decision's write are two steps: a run sealed between them (its episode cancelled
    or timed out at that moment) must not end with a decision file its manifest does not list."""
    from noesis_nb.store.artifacts import write_manifest
    from noesis_nb.tools.repositories import ApprovalDecisionRepository

    run = _paused(runs_dir, tmp_path)
    real_create = ApprovalDecisionRepository.create

    def seal() -> None:  # what the episode's seal leaves, at that moment
        (run / "final.json").write_text('{"outcome": "cancelled"}')
        write_manifest(run, run.name)

    def racing_create(self, decision, **kw):
        if sealed.startswith("before"):
            seal()
        stored = real_create(self, decision, **kw)
        if sealed.startswith("after"):
            seal()
        return stored

    monkeypatch.setattr(ApprovalDecisionRepository, "create", racing_create)
    if sealed.startswith("before"):
        with pytest.raises(RunSealedError, match="was sealed while draft .* was being decided; the decision was taken back"):
            noesis_nb.approve_draft(run, approver_id="ana")
        assert not list((run / "tool_invocations" / "approvals").glob("*.json"))
    else:
        assert noesis_nb.approve_draft(run, approver_id="ana").created  # listed: part of the sealed run
    unlisted = [v.file for v in check_run(run) if v.rule == "manifest.complete"]
    assert not [f for f in unlisted if "approvals" in f], unlisted  # (this stand-in seal leaves the owner note)
    assert verify_manifest(run).ok


def test_a_veto_decision_racing_the_seal_is_taken_back(runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from noesis_nb.runtime import vetoes
    from noesis_nb.store.artifacts import write_manifest

    from .crashkit import TASKS, low_risk_agent

    ep = noesis_nb.solve(
        TASKS["veto"], using=low_risk_agent(str(tmp_path / "m.txt")), runs_dir=runs_dir, governance="enforce", pause_on_veto=True
    )
    run = runs_dir / ep
    real_create = vetoes.create_exclusive_json

    def racing_create(path, record):
        (run / "final.json").write_text('{"outcome": "cancelled"}')  # the episode sealed at that moment
        write_manifest(run, run.name)
        return real_create(path, record)

    monkeypatch.setattr(vetoes, "create_exclusive_json", racing_create)
    with pytest.raises(RunSealedError, match="was sealed while its veto was being decided; the decision was taken back"):
        noesis_nb.approve_draft(run, approver_id="ana")
    assert not list(run.glob("checkpoints/*/decision.json"))
    assert verify_manifest(run).ok


@pytest.mark.parametrize("swept", ["while its temp file is written", "before its temp file is linked in"])
def test_a_decision_whose_temp_file_the_sealer_sweeps_is_written_again(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swept: str
) -> None:
    """A run's owner sweeps temp files right before it seals (a cancelled or timed-out episode); another process's
    approve_draft may be writing its decision's temp file at that moment. It writes it again (then the decision is
    listed by the manifest or taken back, as above), never stopping on a raw FileNotFoundError of its own temp."""
    from noesis_nb.store.artifacts import sweep_transients

    run = _paused(runs_dir, tmp_path)
    name, source = ("replace", ".tmp") if swept.startswith("while") else ("link", ".new")
    real = getattr(os, name)
    done: list[str] = []

    def sweeping(src, dst, *args, **kwargs):
        if not done and "approvals" in str(src) and str(src).endswith(source):
            done.extend(sweep_transients(run))  # the owner's sweep falls here
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, name, sweeping)
    decision = noesis_nb.approve_draft(run, approver_id="ana")
    monkeypatch.undo()
    assert done, "the sweep never fell inside the decision's write"
    assert decision.created and decision.status == "approved"
    approvals = list((run / "tool_invocations" / "approvals").iterdir())
    assert [p.suffix for p in approvals] == [".json"], approvals  # the decision, and no temp file
    noesis_nb.resume_run(run)
    assert (tmp_path / "marker.txt").read_text() == "ran\n"
    assert verify_manifest(run).ok and not check_run(run)
