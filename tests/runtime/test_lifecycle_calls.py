"""The Noēsis lifecycle calls (``ns.interrupt``/``checkpoint``/``resume``) never leave a run that ``resume_run``
cannot continue or seal, and every run they touch stays a valid Noēsis run."""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import RunLifecycleTransitionError
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.runtime.recorder import Recorder
from noesis_nb.store import read_events, read_json
from tests.compat.checker import check_run
from tests.compat.entrypoints_recovery import _killed

from .agents import make_writer


def test_interrupting_a_paused_run_is_refused_and_the_run_still_resumes(runs_dir, tmp_path):
    ns.set(runs_dir=str(runs_dir))
    ep = noesis_nb.solve("write a note", using=make_writer(tmp_path / "o.txt"), approver="ask")
    files = {p: p.read_bytes() for p in (runs_dir / ep).rglob("*") if p.is_file()}
    with pytest.raises(RunLifecycleTransitionError, match=f"run {ep} is already paused at a checkpoint.*resume_run"):
        ns.interrupt(ep, reason="look again")
    assert {p: p.read_bytes() for p in (runs_dir / ep).rglob("*") if p.is_file()} == files  # nothing written
    noesis_nb.approve_draft(ep, approver_id="ana")
    noesis_nb.resume_run(ep)
    assert read_json(runs_dir / ep / "summary.json")["status"] == "ok"
    assert check_run(runs_dir / ep) == []


@pytest.mark.parametrize("resumed", [False, True], ids=["checkpointed", "checkpointed-and-resumed"])
def test_a_lost_run_paused_through_the_lifecycle_calls_is_sealed_by_resume_run(tmp_path: Path, resumed: bool):
    run = _killed(tmp_path, "working")  # its process died while the adapter worked
    ns.set(runs_dir=str(run.parent))
    ns.interrupt(run.name, reason="operator check")
    record = ns.checkpoint(run.name)
    if resumed:
        ns.resume(run.name, checkpoint_id=record["checkpoint_id"])
    with pytest.warns(RunRecovered, match="paused while no process ran it"):
        noesis_nb.resume_run(run.name)
    end = next(e for e in read_events(run / "events.jsonl") if e["phase"] == "terminate")
    assert end["payload"]["status"] == "error" and "process_lost" in end["payload"]["x-noesis_nb"]["reasons"]
    assert check_run(run) == []


def _paused_on_draft(runs_dir: Path, out: Path) -> str:
    return noesis_nb.solve("write a note", using=make_writer(out), approver="ask", runs_dir=runs_dir)


def _paused_on_veto(runs_dir: Path, out: Path) -> str:
    return noesis_nb.solve(
        "Wipe the staging database",
        using="tests.compat.entrypoints:plain_agent",
        governance="enforce",
        pause_on_veto=True,
        runs_dir=runs_dir,
    )


def _checkpoints(ep: str) -> list[str]:
    return [e["payload"]["checkpoint_id"] for e in ns.events.read(ep) if e.get("event_type") == "run.checkpoint"]


def _decide_and_resume(
    runs_dir: Path, ep: str, out: Path, pause, checkpoint_id: str | None = None, *, approved: bool = False
) -> None:
    """Approve what the run waits on (unless ``approved`` already) and continue it; it ends as a success and the
    approved work ran."""
    if not approved:
        noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    using = make_writer(out) if pause is _paused_on_draft else "tests.compat.entrypoints:plain_agent"
    noesis_nb.resume_run(ep, checkpoint_id=checkpoint_id, runs_dir=runs_dir, using=using)
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "success"
    if pause is _paused_on_draft:
        assert out.read_text() == "write a note\n"  # the approved tool ran, once


@pytest.mark.parametrize(
    ("pause", "evidence_resume"),
    [(_paused_on_draft, False), (_paused_on_draft, True), (_paused_on_veto, False)],
    ids=["draft", "draft-after-ns.resume", "veto"],
)
def test_checkpointing_a_paused_run_is_refused_and_the_run_still_resumes(runs_dir, tmp_path, pause, evidence_resume):
    ns.set(runs_dir=str(runs_dir))
    out = tmp_path / "o.txt"
    ep = pause(runs_dir, out)
    (checkpoint_id,) = _checkpoints(ep)
    if evidence_resume:
        ns.resume(ep, checkpoint_id=checkpoint_id)
    files = {p: p.read_bytes() for p in (runs_dir / ep).rglob("*") if p.is_file()}
    with pytest.raises(RunLifecycleTransitionError, match=f"run {ep} is .*{checkpoint_id}' already binds it.*resume_run"):
        ns.checkpoint(ep)
    assert {p: p.read_bytes() for p in (runs_dir / ep).rglob("*") if p.is_file()} == files  # nothing written
    _decide_and_resume(runs_dir, ep, out, pause)
    assert check_run(runs_dir / ep) == []


def _checkpoint_as_before(run_dir: Path) -> None:
    """What ``ns.checkpoint`` wrote on a paused run before it refused one: a second checkpoint, caused by the
    run's last event (such runs are on disk)."""
    rec = Recorder.reopen(run_dir)
    try:
        rec.checkpoint(None)
    finally:
        rec.close_without_sealing()


@pytest.mark.parametrize(
    ("pause", "when"),
    [
        (_paused_on_draft, "paused"),
        (_paused_on_draft, "after-ns.resume"),
        (_paused_on_draft, "after-approval-resumed-by-first-id"),
        (_paused_on_veto, "paused"),
        (_paused_on_veto, "after-approval-resumed-by-first-id"),
    ],
    ids=["draft", "draft-after-ns.resume", "draft-approved-first-id", "veto", "veto-approved-first-id"],
)
def test_a_run_checkpointed_again_while_paused_still_resumes(runs_dir, tmp_path, pause, when):
    """A checkpoint taken while the run was paused changes nothing it waits for: resume_run finds the pause through
    it and continues (it used to seal the run as a lost process, the approved tool never run)."""
    ns.set(runs_dir=str(runs_dir))
    out = tmp_path / "o.txt"
    ep = pause(runs_dir, out)
    (first,) = _checkpoints(ep)
    if when == "after-ns.resume":
        ns.resume(ep, checkpoint_id=first)
    if when == "after-approval-resumed-by-first-id":
        noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    _checkpoint_as_before(runs_dir / ep)
    assert len(_checkpoints(ep)) == 2
    approved = when.endswith("first-id")
    _decide_and_resume(runs_dir, ep, out, pause, first if approved else None, approved=approved)
    # the run stays what it was written as: a checkpoint while paused is a transition Noēsis' lifecycle does not
    # allow (after ns.resume the run was 'resuming', which the checker leaves open)
    expected = set() if when == "after-ns.resume" else {"lifecycle.transition"}
    assert {v.rule for v in check_run(runs_dir / ep)} == expected
