"""The Noēsis lifecycle calls (``ns.interrupt``/``checkpoint``/``resume``) never leave a run that ``resume_run``
cannot continue or seal, and every run they touch stays a valid Noēsis run."""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import RunLifecycleTransitionError
from noesis_nb.runtime.api import RunRecovered
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
