"""Events an adapter writes with ``ctx.emit`` keep the run a valid Noēsis run: phases the episode writes itself are
refused with one clear error, and an ``act`` must carry out a candidate of this run, linked as Noēsis links it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.store import read_events, read_json
from tests.compat.checker import check_run

ENGINE_PHASES = {
    "start": {"task": "again", "using": "other"},
    "action_candidate": {"kind": "adapter", "payload": {}},
    "governance": {"decision": "veto", "enforced": True},
    "tool": {"event_name": "tool.execution.started", "request_id": "req-1"},
    "runtime": {"kind": "run.interrupt", "status": "interrupted"},
    "terminate": {"status": "ok"},
    "insight": {"metrics": {}},
    "learn": {"policy_id": "p", "basis": {}, "proposal": [], "scope": "run"},
}


@pytest.mark.parametrize("phase", sorted(ENGINE_PHASES))
def test_a_phase_the_episode_writes_is_refused_and_the_run_stays_valid(runs_dir, phase):
    seen: dict[str, BaseException] = {}

    def agent(task: str, ctx: Any) -> str:
        try:
            ctx.emit(phase, dict(ENGINE_PHASES[phase]))
        except ValueError as exc:
            seen["error"] = exc
        return "done"

    ep = noesis_nb.solve("emit an engine phase", using=agent, runs_dir=runs_dir)
    plain = noesis_nb.solve("emit nothing", using=lambda task: "done", runs_dir=runs_dir)
    assert f"phase {phase!r} is written by the episode itself" in str(seen["error"])
    assert "use a phase of your own" in str(seen["error"])
    assert _phases(runs_dir / ep) == _phases(runs_dir / plain)  # nothing of the adapter's was written
    assert check_run(runs_dir / ep) == []


def _phases(run_dir: Path) -> list[str]:
    return [e["phase"] for e in read_events(run_dir / "events.jsonl")]


def test_an_act_naming_no_candidate_of_the_run_is_refused(runs_dir):
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("act", {"input_excerpt": "x", "outcome": "ok", "tool": "deploy", "action_candidate_id": "made-up"})
        return "never"

    ep = noesis_nb.solve("act on nothing", using=agent, runs_dir=runs_dir)
    assert read_json(runs_dir / ep / "summary.json")["status"] == "error"
    (end,) = [e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "terminate"]
    assert "action candidate of this run" in end["payload"]["message"] and "'made-up'" in end["payload"]["message"]
    acts = [e["payload"] for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "act"]
    assert all(act.get("action_candidate_id") != "made-up" for act in acts)
    assert check_run(runs_dir / ep) == []


@pytest.mark.parametrize("governance", ["off", "audit"])
def test_an_act_on_the_adapters_candidate_is_linked_to_its_decision(runs_dir, governance):
    def agent(task: str, ctx: Any) -> str:
        lines = map(json.loads, (ctx.run_dir / "events.jsonl").read_text().splitlines())
        candidate = next(e for e in lines if e["phase"] == "action_candidate")["payload"]["action_candidate_id"]
        ctx.emit("act", {"input_excerpt": task, "outcome": "ok", "adapter": "deploy", "action_candidate_id": candidate})
        return "deployed"

    ep = noesis_nb.solve("deploy the site", using=agent, runs_dir=runs_dir, governance=governance)
    events = read_events(runs_dir / ep / "events.jsonl")
    (act,) = [e for e in events if e["phase"] == "act"]
    decided = [e["id"] for e in events if e["phase"] == "governance"] or [
        e["id"] for e in events if e["phase"] == "action_candidate"
    ]
    assert act["payload"]["adapter"] == "deploy" and act["caused_by"] == decided[-1]
    assert check_run(runs_dir / ep) == []


# Noēsis' phases (its docs/reference/events.mdx, and the tool bridge's ``tool``)
CANONICAL = "start observe interpret plan direction governance action_candidate act reflect learn runtime".split()
CANONICAL += "terminate insight memory intuition reason error tool".split()
SLIPS = {  # what an adapter typed: the phase it meant
    "obsreve": "observe",
    "Observe": "observe",
    "reflct": "reflect",
    "interpet": "interpret",
    "ActionCandidate": "action_candidate",
    "Obsreve": "observe",
    "observe\u200b": "observe",
    " reason": "reason",
    "REASON": "reason",
    "memroy": "memory",
    "integraton": "integration",
    "Action-Candidate": "action_candidate",
}


@pytest.mark.parametrize("typed", sorted(SLIPS))
def test_a_phase_a_letter_or_a_case_from_a_known_one_is_one_error_and_nothing_is_written(runs_dir, typed):
    seen: dict[str, BaseException] = {}

    def agent(task: str, ctx: Any) -> str:
        try:
            ctx.emit(typed, {"task": task, "tags": {}, "timestamp": "2026-01-01T00:00:00+00:00", "success": True})
        except ValueError as exc:
            seen["error"] = exc
        return "done"

    ep = noesis_nb.solve("emit a slip", using=agent, runs_dir=runs_dir)
    plain = noesis_nb.solve("emit nothing", using=lambda task: "done", runs_dir=runs_dir)
    error = seen["error"]
    assert isinstance(error, InvalidOptionError)
    assert repr(typed) in str(error) and repr(SLIPS[typed]) in str(error)
    assert all(phase in str(error) for phase in CANONICAL)
    assert _phases(runs_dir / ep) == _phases(runs_dir / plain)
    assert check_run(runs_dir / ep) == []


OWN_NAMES = ["note", "reasoning", "reflection", "plans", "acts", "learnt", "errors", "train", "lean", "x-obsreve", "state"]
OWN_NAMES += ["season", "treason", "deflect", "germinate", "reasons", "memory_hit"]  # words a letter from a phase


def test_phases_of_ones_own_are_written_even_when_close_to_a_known_word(runs_dir):
    def agent(task: str, ctx: Any) -> str:
        for name in OWN_NAMES:
            ctx.emit(name, {"text": name})
        return "done"

    ep = noesis_nb.solve("emit phases of its own", using=agent, runs_dir=runs_dir)
    assert read_json(runs_dir / ep / "summary.json")["status"] == "ok"
    assert [p for p in _phases(runs_dir / ep) if p in OWN_NAMES] == OWN_NAMES
    assert check_run(runs_dir / ep) == []
