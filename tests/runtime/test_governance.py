"""Governance: audit records and never blocks; enforce vetoes before act; pause-on-veto and resume."""

import asyncio

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import NoesisVeto, ResumeAdapterMismatchError, ResumeAdapterRequiredError
from noesis_nb.store import read_events, read_json, verify_manifest


def _ran():
    calls = []

    def agent(task):
        calls.append(task)
        return "done"

    return agent, calls


def _phases(run_dir):
    return [e["phase"] for e in read_events(run_dir / "events.jsonl")]


def test_audit_records_a_would_veto_and_runs(runs_dir):
    agent, calls = _ran()
    ep = noesis_nb.solve("wipe the cache", using=agent, runs_dir=runs_dir, governance="audit")
    gov = next(e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "governance")
    assert gov["payload"]["decision"] == "veto" and gov["payload"]["enforced"] is False
    assert gov["payload"]["rule_id"] == "rules.veto.protected" and gov["faculty"] == "governance"
    summary = read_json(runs_dir / ep / "summary.json")
    assert calls == ["wipe the cache"] and summary["status"] == "ok"
    assert summary["metrics"]["would_veto_count"] == 1 and summary["metrics"]["veto_count"] == 0
    assert summary["flags"]["governance_mode"] == "audit"


def test_audit_rule_for_sensitive_words_and_allow(runs_dir):
    agent, _ = _ran()
    ep = noesis_nb.solve("delete old rows", using=agent, runs_dir=runs_dir, governance="enforce")
    gov = next(e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "governance")
    assert (gov["payload"]["decision"], gov["payload"]["rule_id"]) == ("audit", "rules.audit.sensitive")
    ep = noesis_nb.solve("summarise notes", using=agent, runs_dir=runs_dir, governance="enforce")
    gov = next(e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "governance")
    assert gov["payload"]["decision"] == "allow"


def test_enforce_veto_stops_before_act_and_seals_vetoed(runs_dir):
    agent, calls = _ran()
    ep = noesis_nb.solve("this is danger", using=agent, runs_dir=runs_dir, governance="enforce")
    phases = _phases(runs_dir / ep)
    assert calls == [] and "act" not in phases
    assert phases[phases.index("action_candidate") : phases.index("terminate") + 1] == [
        "action_candidate",
        "governance",
        "terminate",
    ]
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "vetoed"
    summary = read_json(runs_dir / ep / "summary.json")
    assert summary["status"] == "vetoed" and summary["metrics"]["veto_count"] == 1
    assert noesis_nb.list_runs(runs_dir=runs_dir)[0]["status"] == "vetoed"


def test_live_veto_result_raises_noesis_veto(runs_dir):
    async def main():
        handle = noesis_nb.start("shutdown prod", using=lambda t: t, runs_dir=runs_dir, governance="enforce")
        await handle
        return handle

    handle = asyncio.run(main())
    with pytest.raises(NoesisVeto) as info:
        handle.result()
    assert info.value.rule_id == "rules.veto.protected"


def test_pause_on_veto_then_resume_run_with_the_same_adapter(runs_dir):
    agent, calls = _ran()
    ns.set(governance_pause_on_veto=True, runs_dir=str(runs_dir))
    ep = ns.solve("destroy the staging db", using=agent, governance="enforce")
    run_dir = runs_dir / ep
    names = [e.get("event_type") or e["phase"] for e in read_events(run_dir / "events.jsonl")]
    assert names[-4:] == ["action_candidate", "governance", "run.interrupt", "run.checkpoint"]
    assert calls == [] and not (run_dir / "summary.json").exists()
    assert read_json(run_dir / "state.json")["outcomes"]["status"] == "partial"
    with pytest.raises(ResumeAdapterRequiredError):
        ns.resume_run(ep)

    def other(task):
        return "x"

    with pytest.raises(ResumeAdapterMismatchError):
        ns.resume_run(ep, using=other)
    assert ns.resume_run(ep, using=agent) == ep
    assert calls == ["destroy the staging db"]
    names = [e.get("event_type") or e["phase"] for e in read_events(run_dir / "events.jsonl")]
    assert names[names.index("run.resume") : names.index("terminate") + 1] == [
        "run.resume",
        "action_candidate",
        "governance",
        "act",
        "reflect",
        "learn",
        "terminate",
    ]  # a new candidate, allowed by the human
    assert read_json(run_dir / "summary.json")["status"] == "ok" and verify_manifest(run_dir).ok


def test_live_pause_on_veto_can_be_overridden_or_upheld(runs_dir):
    async def main(override):
        agent, calls = _ran()
        handle = noesis_nb.start("wipe logs", using=agent, runs_dir=runs_dir, governance="enforce", pause_on_veto=True)
        await handle
        assert handle.status == "paused" and handle.paused_on_veto and handle.pending == []
        (handle.approve if override else handle.reject)(approver_id="lead", reason="checked")
        await handle.wait()
        return handle, calls

    handle, calls = asyncio.run(main(True))
    assert handle.status == "ok" and calls == ["wipe logs"]
    handle, calls = asyncio.run(main(False))
    assert handle.status == "vetoed" and calls == []


def test_lifecycle_evidence_calls_and_tamper_detection(runs_dir, tmp_path):
    from noesis_nb.errors import (
        CheckpointConsistencyError,
        CheckpointNotFoundError,
        RunLifecycleTransitionError,
        RunSealedError,
    )

    from .agents import make_writer

    ns.set(runs_dir=str(runs_dir))
    ep = noesis_nb.solve("x", using=make_writer(tmp_path / "o.txt"))  # pauses on its tool draft
    paused_at = ns.events.read(ep)[-1]
    with pytest.raises(RunLifecycleTransitionError, match="already binds it"):  # paused: its checkpoint binds it
        ns.checkpoint(ep, caused_by=paused_at["id"])
    record = {"checkpoint_id": paused_at["payload"]["checkpoint_id"]}
    assert record["checkpoint_id"].startswith("chk_")
    assert (runs_dir / ep / "checkpoints" / record["checkpoint_id"] / "checkpoint.json").exists()
    with pytest.raises(CheckpointNotFoundError):
        ns.resume(ep, checkpoint_id="chk_000000000000")
    state = runs_dir / ep / "state.json"
    kept = state.read_bytes()
    state.write_text(state.read_text().replace('"partial"', '"pending"'))
    with pytest.raises(CheckpointConsistencyError, match="state.json changed"):
        ns.resume(ep, checkpoint_id=record["checkpoint_id"])
    state.write_bytes(kept)
    resume_id = ns.resume(ep, checkpoint_id=record["checkpoint_id"])
    events = ns.events.read(ep)
    assert events[-1]["id"] == resume_id and events[-1]["payload"]["resume_strategy"] == "same_run_id"
    with pytest.raises(RunLifecycleTransitionError, match="still paused on draft .*evidence only"):  # resuming: once
        ns.resume(ep, checkpoint_id=record["checkpoint_id"])
    done = noesis_nb.solve("y", using=lambda t: t)
    with pytest.raises(RunSealedError):
        ns.interrupt(done, reason="late")


def test_a_live_veto_decision_is_on_disk_before_the_episode_goes_on(runs_dir):
    seen = {}

    def agent(task):
        decision = next((runs_dir).glob("*/checkpoints/*/decision.json"))
        seen["decision"] = __import__("json").loads(decision.read_text())
        return "ran"

    async def main():
        handle = noesis_nb.start("wipe the cache", using=agent, runs_dir=runs_dir, governance="enforce", pause_on_veto=True)
        await handle
        handle.approve(approver_id="lead", reason="cache is disposable")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok"
    assert seen["decision"]["decision"] == "override" and seen["decision"]["approver_id"] == "lead"


def test_a_veto_paused_on_disk_is_upheld_or_overridden_with_reject_or_approve_draft(runs_dir):
    agent, calls = _ran()
    ns.set(governance_pause_on_veto=True, runs_dir=str(runs_dir))
    upheld = ns.solve("wipe the old logs", using=agent, governance="enforce")
    noesis_nb.reject_draft(upheld, reason="keep them", approver_id="lead")
    ns.resume_run(upheld, using=agent)
    assert calls == [] and ns.summary.read(upheld)["status"] == "vetoed"
    overridden = ns.solve("wipe the tmp logs", using=agent, governance="enforce")
    noesis_nb.approve_draft(overridden, approver_id="lead")
    decision = next((runs_dir / overridden / "checkpoints").glob("*/decision.json"))
    assert '"override"' in decision.read_text()
    ns.resume_run(overridden, using=agent)
    assert calls == ["wipe the tmp logs"] and ns.summary.read(overridden)["status"] == "ok"
