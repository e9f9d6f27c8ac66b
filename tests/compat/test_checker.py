"""The checker itself: it accepts the real Noēsis runs and a hand-built current-format run, and each rule fires on a
run that breaks it (and only the rules that the break implies)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ADR008_RUN, SMOKE_RUN

from .checker import check_run, main
from .golden import CHECKPOINT, DRAFT, GoldenRun, golden_run, write_manifest
from .rules_events import REQUIRED

Mutation = Callable[[GoldenRun], Any]


def rules(path: Path) -> set[str]:
    return {v.rule for v in check_run(path)}


@pytest.mark.parametrize("run_dir", [SMOKE_RUN, ADR008_RUN], ids=["noesis-smoke-run", "noesis-adr008-allow-run"])
def test_real_noesis_runs_pass(run_dir: Path) -> None:
    assert check_run(run_dir) == []


@pytest.mark.parametrize("paused", [False, True], ids=["sealed", "paused"])
def test_golden_run_passes(tmp_path: Path, paused: bool) -> None:
    assert check_run(golden_run(paused=paused).write(tmp_path / "ep")) == []


def _event(run: GoldenRun, phase: str, name: str | None = None) -> dict[str, Any]:
    return run.events[run.index(phase, name)]


def _set(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for key in parents:
        doc = doc[key]
    doc[last] = value


SEALED: dict[str, tuple[Mutation, set[str]]] = {
    "observe without tags": (lambda r: _event(r, "observe")["payload"].pop("tags"), {"event.verb_minima"}),
    "act without tool": (lambda r: _event(r, "act")["payload"].pop("tool"), {"event.verb_minima"}),
    "learn half reference": (lambda r: _event(r, "learn")["payload"].pop("proposal_count"), {"event.verb_minima"}),
    "faculty unknown": (lambda r: _event(r, "governance").update(faculty="wisdom"), {"event.faculty"}),
    "negative duration": (lambda r: _set(_event(r, "act"), "metrics.duration_ms", -1), {"event.metrics"}),
    "caused_by null": (lambda r: _event(r, "reflect").update(caused_by=None), {"event.caused_by"}),
    "no id": (lambda r: _event(r, "memory").pop("id"), {"event.id"}),
    "time goes back": (lambda r: _event(r, "reflect").update(timestamp="2024-12-31T23:59:59+00:00"), {"event.timestamps"}),
    "naive timestamp": (lambda r: _event(r, "start").update(timestamp="2025-01-01T00:00:00"), {"event.types"}),
    "candidate bad hash": (
        lambda r: _set(_event(r, "action_candidate"), "payload.state_hash", "sha256:BAD"),
        {"candidate.state_hash"},
    ),
    "candidate old schema": (
        lambda r: _set(_event(r, "action_candidate"), "payload.schema_version", "action_candidate/0.9.0"),
        {"candidate.schema_version"},
    ),
    "candidate state_ref elsewhere": (
        lambda r: _set(_event(r, "action_candidate"), "payload.state_ref", "summary.json"),
        {"candidate.state_ref"},
    ),
    "candidate no kind": (lambda r: _event(r, "action_candidate")["payload"].pop("kind"), {"candidate.shape"}),
    "candidate kind unknown": (lambda r: _set(_event(r, "action_candidate"), "payload.kind", "adapters"), {"candidate.kind"}),
    "no candidate, governance on": (
        lambda r: [e.update(phase="x-candidate") for e in r.events if e["phase"] == "action_candidate"],
        {"governance.caused_by", "act.candidate_unknown", "tool.candidate_event", "tool.candidate_precedes"},
    ),
    "redaction nulls": (
        lambda r: _set(_event(r, "action_candidate"), "payload.redaction.policy_id", None),
        {"candidate.redaction"},
    ),
    "act without candidate id": (lambda r: _event(r, "act")["payload"].pop("action_candidate_id"), {"act.candidate_missing"}),
    "act unknown candidate": (lambda r: _set(_event(r, "act"), "payload.action_candidate_id", "nope"), {"act.candidate_unknown"}),
    "act caused_by plan": (lambda r: _event(r, "act").update(caused_by=_event(r, "plan")["id"]), {"act.caused_by"}),
    "act after veto": (
        lambda r: _event(r, "governance")["payload"].update(decision="veto", enforced=True),
        {"act.after_veto", "summary.counts"},  # and the summary counts no veto
    ),
    "vetoed as a yes/no": (lambda r: r.docs["summary.json"]["metrics"].update(governance_vetoed=False), {"summary.counts"}),
    "veto miscounted": (lambda r: r.docs["summary.json"]["metrics"].update(veto_count=1), {"summary.counts", "insight.payload"}),
    "would-veto uncounted": (
        lambda r: (
            _event(r, "governance")["payload"].update(decision="veto", mode="audit"),
            r.docs["summary.json"]["metrics"].update(would_veto_count=0, governance_would_vetoed=1),
        ),
        {"summary.counts"},
    ),
    "state key outside the schema": (lambda r: r.state.update(notes=[]), {"state.schema"}),
    "state outcome unknown": (lambda r: r.state["outcomes"].update(status="done"), {"state.schema"}),
    "state goal untyped": (lambda r: r.state["goal"].pop("type"), {"state.schema"}),
    "state link unknown": (lambda r: r.state["links"].update(checkpoint="checkpoints"), {"state.schema"}),
    "phase_ms rounded": (lambda r: r.docs["summary.json"]["metrics"].update(phase_ms={"act": 3}), {"summary.phase_ms"}),
    "phase_ms of a non-verb phase": (
        lambda r: r.docs["summary.json"].update(insight={"metrics": {"phase_ms": {"act": 4, "governance": 3}}}),
        {"summary.phase_ms"},
    ),
    "first action rounded": (
        lambda r: r.docs["summary.json"]["metrics"].update(latencies={"first_action_ms": 0}),
        {"summary.latencies"},
    ),
    "steps not act_count": (lambda r: r.docs["summary.json"]["metrics"].update(steps=2), {"summary.counts"}),
    "governance not on candidate": (
        lambda r: _event(r, "governance").update(caused_by=_event(r, "plan")["id"]),
        {"governance.caused_by", "act.caused_by"},
    ),
    "insight whole block": (lambda r: _event(r, "insight")["payload"]["metrics"].update(phase_ms={}), {"insight.payload"}),
    "insight no summary_path": (lambda r: _event(r, "insight")["payload"].pop("summary_path"), {"insight.payload"}),
    "act_count off": (lambda r: r.docs["summary.json"]["metrics"].update(act_count=2), {"summary.act_count", "insight.payload"}),
    "act_count missing": (lambda r: r.docs["summary.json"]["metrics"].pop("act_count"), {"summary.act_count", "insight.payload"}),
    "summary 1.2.0": (lambda r: r.docs["summary.json"].update(schema_version="1.2.0"), {"summary.schema"}),
    "summary outcome vetoed": (lambda r: r.docs["summary.json"].update(outcome="vetoed"), {"summary.schema"}),
    "using differs": (lambda r: r.docs["summary.json"]["flags"].update(using="other"), {"summary.using"}),
    "learn elsewhere": (lambda r: _set(_event(r, "learn"), "payload.learn_path", "x.jsonl"), {"learn.links"}),
    "resume caused_by pending": (
        lambda r: _event(r, "runtime", "run.resume").update(caused_by=_event(r, "tool", "tool.approval.pending")["id"]),
        {"resume.caused_by", "tool.execution_chain"},
    ),
    "resume unknown checkpoint": (
        lambda r: _set(_event(r, "runtime", "run.resume"), "payload.checkpoint_id", "chk_ffffffffffff"),
        {"resume.checkpoint", "tool.execution_chain"},  # and the tool's pause is never resumed
    ),
    "checkpoint offset": (
        lambda r: r.docs[f"checkpoints/{CHECKPOINT}/checkpoint.json"].update(event_offset=3),
        {"checkpoint.event", "checkpoint.anchor", "resume.checkpoint"},
    ),
    "checkpoint no state hash": (
        lambda r: r.docs[f"checkpoints/{CHECKPOINT}/checkpoint.json"].pop("state_hash"),
        {"checkpoint.record"},
    ),
    "tool event unlinked": (
        lambda r: _event(r, "tool", "tool.approved").pop("caused_by"),
        {"tool.caused_by", "tool.chain", "tool.execution_chain"},
    ),
    "candidate_emitted off candidate": (
        lambda r: _event(r, "tool", "action.candidate_emitted").update(caused_by=_event(r, "tool", "tool.authz.passed")["id"]),
        {"tool.candidate_event", "tool.execution_chain"},
    ),
    "interrupt not on pending": (
        lambda r: _event(r, "runtime", "run.interrupt").update(caused_by=_event(r, "plan")["id"]),
        {"tool.pause_links", "tool.chain", "tool.execution_chain"},
    ),
    "python protocol": (
        lambda r: r.docs[f"tool_invocations/prepared/{DRAFT}.json"].update(protocol="python"),
        {"records.prepared"},
    ),
    "unknown draft status": (
        lambda r: r.docs[f"tool_invocations/prepared/{DRAFT}.json"].update(status="executed"),
        {"records.prepared"},
    ),
    "draft of another run": (
        lambda r: r.docs[f"tool_invocations/prepared/{DRAFT}.json"].update(run_id="ep_other"),
        {"records.prepared"},
    ),
    "approval maybe": (
        lambda r: r.docs[f"tool_invocations/approvals/{DRAFT}.json"].update(status="maybe"),
        {"records.approvals"},
    ),
    "resume after terminate": (
        lambda r: r.events.insert(
            r.index("terminate") + 1,
            dict(_event(r, "runtime", "run.resume"), id="late-resume", timestamp=_event(r, "terminate")["timestamp"]),
        ),
        {"lifecycle.transition", "resume.caused_by"},
    ),
}


@pytest.mark.parametrize("name", sorted(SEALED))
def test_each_rule_fires_on_its_break(tmp_path: Path, name: str) -> None:
    mutate, expected = SEALED[name]
    run = golden_run()
    mutate(run)
    assert rules(run.write(tmp_path / "ep")) == expected


PAUSED: dict[str, tuple[Callable[[GoldenRun, Path], Any], set[str]]] = {
    "manifest while paused": (
        lambda r, p: write_manifest(p, after_final=False),
        {"paused.artifacts", "seal.final_before_manifest"},
    ),
    "state not partial": (lambda r, p: None, set()),  # placeholder replaced below
    "state edited after checkpoint": (
        lambda r, p: (p / "state.json").write_text(json.dumps(r.state) + " "),
        {"paused.state_hash"},
    ),
    "two drafts pending": (
        lambda r, p: (p / "tool_invocations" / "prepared" / "other.json").write_text(
            json.dumps({**r.docs[f"tool_invocations/prepared/{DRAFT}.json"], "draft_id": "other", "request_id": "req-2"})
        ),
        {"paused.pending"},
    ),
}


def _state_not_partial(run: GoldenRun, path: Path) -> None:
    state = dict(run.state, outcomes=dict(run.state["outcomes"], status="pending"))
    (path / "state.json").write_text(json.dumps(state))


PAUSED["state not partial"] = (_state_not_partial, {"paused.artifacts", "paused.state_hash"})


@pytest.mark.parametrize("name", sorted(PAUSED))
def test_paused_rules(tmp_path: Path, name: str) -> None:
    change, expected = PAUSED[name]
    run = golden_run(paused=True)
    path = run.write(tmp_path / "ep")
    change(run, path)
    assert rules(path) == expected


def _checkpointed_again(run: GoldenRun) -> None:
    """A second checkpoint written while ``run`` is paused at its first (with a record that holds)."""
    checkpoint = run.events[-1]
    cid, offset = "chk_ba5eba11c0de", len(run.events)
    run.add(
        "runtime",
        {
            "kind": "run.checkpoint",
            "status": "paused",
            "checkpoint_id": cid,
            "event_offset": offset,
            "checkpoint_path": f"checkpoints/{cid}/checkpoint.json",
        },
        checkpoint["id"],
        event_type="run.checkpoint",
    )
    first = run.docs[f"checkpoints/{CHECKPOINT}/checkpoint.json"]
    run.docs[f"checkpoints/{cid}/checkpoint.json"] = dict(
        first, checkpoint_id=cid, event_offset=offset, last_event_id=checkpoint["id"]
    )


def test_a_paused_run_is_not_checkpointed_again(tmp_path: Path) -> None:
    """Noēsis' lifecycle: only run.resume leaves 'paused'; a checkpoint written then breaks the rule."""
    run = golden_run(paused=True)
    _checkpointed_again(run)
    assert rules(run.write(tmp_path / "ep")) == {"lifecycle.transition"}


def test_an_interrupt_while_paused_is_reported(tmp_path: Path) -> None:
    """Noēsis' lifecycle: only run.resume leaves 'paused'; a second pause opened on top of the first (one
    interrupt per parallel draft, no resume between) breaks the rule."""
    run = golden_run(paused=True)
    checkpoint = run.events[-1]
    run.add("runtime", {"kind": "run.interrupt", "status": "interrupted"}, checkpoint["id"], event_type="run.interrupt")
    assert "lifecycle.transition" in rules(run.write(tmp_path / "ep"))


def test_an_approval_decided_without_a_pause_is_reported(tmp_path: Path) -> None:
    """§5 read literally: a request that needed approval runs with run.resume, run.checkpoint and run.interrupt in
    its chain, also when a policy decided it at once (no pause written: tool.approved caused by its pending event)."""
    run = golden_run()
    pending = _event(run, "tool", "tool.approval.pending")
    for kind in ("run.resume", "run.checkpoint", "run.interrupt"):
        run.events.pop(run.index("runtime", kind))
    del run.docs[f"checkpoints/{CHECKPOINT}/checkpoint.json"]
    _event(run, "tool", "tool.approved").update(caused_by=pending["id"])
    assert "tool.execution_chain" in rules(run.write(tmp_path / "ep"))


def test_a_tool_run_while_paused_is_reported(tmp_path: Path) -> None:
    """§5: from tool.execution.started, caused_by passes through run.resume; a tool run with its pause never resumed
    (the resume left out, the approval caused by the checkpoint) is reported."""
    run = golden_run()
    resume = run.events.pop(run.index("runtime", "run.resume"))
    _event(run, "tool", "tool.approved").update(caused_by=resume["caused_by"])
    assert rules(run.write(tmp_path / "ep")) == {"tool.execution_chain", "lifecycle.step_while_paused"}


def test_manifest_entries_are_sorted_by_name(tmp_path: Path) -> None:
    """Noēsis' manifest writer lists files sorted by name (d.3); one listed out of order is reported."""
    path = golden_run().write(tmp_path / "ep")
    manifest = json.loads((path / "manifest.json").read_bytes())
    assert [f["name"] for f in manifest["files"]] == sorted(f["name"] for f in manifest["files"])
    assert rules(path) == set()
    manifest["files"].reverse()
    (path / "manifest.json").write_text(json.dumps(manifest))
    assert rules(path) == {"manifest.shape"}


def test_seal_rules(tmp_path: Path) -> None:
    path = golden_run().write(tmp_path / "late")
    (path / "tool_invocations" / "approvals" / "late.json.lock").write_text("")
    assert rules(path) == {"manifest.complete"}
    path = golden_run().write(tmp_path / "appended")
    with open(path / "events.jsonl", "a") as fh:
        fh.write(
            json.dumps(
                {
                    "id": "x",
                    "timestamp": "2030-01-01T00:00:00+00:00",
                    "episode_id": "e",
                    "phase": "memory",
                    "payload": {},
                    "evidence_ids": [],
                }
            )
            + "\n"
        )
    assert rules(path) == {"manifest.files"}
    path = golden_run().write(tmp_path / "no-final")
    (path / "final.json").unlink()
    write_manifest(path, after_final=False)
    assert rules(path) == {"seal.final_before_manifest", "run.state"}
    run = golden_run()
    run.seal = False
    assert rules(run.write(tmp_path / "unsealed")) == {"run.state"}
    path = golden_run().write(tmp_path / "late-final")
    stamp = (path / "manifest.json").stat().st_mtime
    os.utime(path / "final.json", (stamp + 60, stamp + 60))
    assert rules(path) == {"seal.final_before_manifest"}
    path = golden_run().write(tmp_path / "torn")
    with open(path / "events.jsonl", "ab") as fh:
        fh.write(b'{"id": "t"')
    write_manifest(path, after_final=False)
    assert rules(path) == {"event.line"}


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = golden_run().write(tmp_path / "good")
    bad = golden_run()
    _event(bad, "observe")["payload"].pop("task")
    assert main([str(good)]) == 0
    assert main([str(bad.write(tmp_path / "bad"))]) == 1
    assert "[event.verb_minima]" in capsys.readouterr().out


# -- generated breaks -----------------------------------------------------------------------------
_SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SLOW
@given(data=st.data())
def test_any_missing_required_key_is_reported(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    run = golden_run()
    i = data.draw(st.integers(0, len(run.events) - 1), label="event")
    key = data.draw(st.sampled_from(REQUIRED), label="key")
    del run.events[i][key]
    found = rules(run.write(tmp_path_factory.mktemp("r") / "ep"))
    assert "event.required" in found


@_SLOW
@given(data=st.data(), value=st.one_of(st.none(), st.integers(), st.lists(st.text(max_size=3), max_size=2), st.just("")))
def test_any_non_string_caused_by_is_reported(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, value: Any) -> None:
    run = golden_run()
    i = data.draw(st.integers(0, len(run.events) - 1), label="event")
    run.events[i]["caused_by"] = value
    assert "event.caused_by" in rules(run.write(tmp_path_factory.mktemp("r") / "ep"))


@_SLOW
@given(
    extra=st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda k: not k.startswith(("metrics", "summary"))),
        st.one_of(st.integers(), st.text(max_size=5), st.booleans()),
        max_size=3,
    ),
    phase=st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=3, max_size=12),
)
def test_extensions_are_accepted(tmp_path_factory: pytest.TempPathFactory, extra: dict[str, Any], phase: str) -> None:
    """Unknown phases and extra keys are extensions Noēsis allows; only verb phases have minima."""
    run = golden_run()
    if phase in {
        "observe",
        "interpret",
        "plan",
        "act",
        "reflect",
        "learn",
        "action_candidate",
        "governance",
        "insight",
        "runtime",
        "tool",
        "terminate",
        "start",
    }:
        phase = "x_" + phase
    at = run.index("plan") + 1
    run.events.insert(
        at, dict(run.events[at - 1], id="ext-1", phase=phase, payload=dict(extra), caused_by=run.events[at - 1]["id"])
    )
    for key, value in extra.items():
        _event(run, "start").setdefault(f"x-{key}", value)
    run.docs[f"checkpoints/{CHECKPOINT}/checkpoint.json"]["event_offset"] += 1
    _set(_event(run, "runtime", "run.checkpoint"), "payload.event_offset", run.index("runtime", "run.checkpoint"))
    _set(_event(run, "runtime", "run.resume"), "payload.event_offset", run.index("runtime", "run.checkpoint"))
    assert check_run(run.write(tmp_path_factory.mktemp("r") / "ep")) == []


@_SLOW
@given(data=st.data())
def test_any_changed_byte_after_sealing_is_reported(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    path = golden_run().write(tmp_path_factory.mktemp("r") / "ep")
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.name != "manifest.json" and p.stat().st_size)
    target = data.draw(st.sampled_from(files), label="file")
    raw = bytearray(target.read_bytes())
    at = data.draw(st.integers(0, len(raw) - 1), label="offset")
    raw[at] = (raw[at] + 1) % 256
    target.write_bytes(bytes(raw))
    assert "manifest.files" in rules(path)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), value=_JSON, paused=st.booleans())
def test_garbage_is_reported_never_raised(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, value: Any, paused: bool
) -> None:
    """Any field of any event or document replaced by any JSON value: the checker reports, it never crashes."""
    run = golden_run(paused=paused)
    targets: list[dict[str, Any]] = [*run.events, run.state, *run.docs.values()]
    doc = data.draw(st.sampled_from(targets), label="document")
    for _ in range(data.draw(st.integers(0, 2), label="depth")):
        nested = [k for k, v in doc.items() if isinstance(v, dict)]
        if not nested:
            break
        doc = doc[data.draw(st.sampled_from(sorted(nested)), label="into")]
    key = data.draw(st.sampled_from(sorted(doc)) if doc else st.just("x"), label="key")
    doc[key] = value
    found = check_run(run.write(tmp_path_factory.mktemp("r") / "ep"))
    assert all(isinstance(v.rule, str) and v.message for v in found)


def test_a_run_acted_on_and_ended_while_paused_is_reported(tmp_path: Path) -> None:
    """Noēsis' contract is interrupt → checkpoint → resume → act → terminate: an act, reflect or terminate written
    while the run's last lifecycle status is paused, with no run.resume since, is reported, each one."""
    run = golden_run(paused=True)
    checkpoint = run.events[-1]["id"]
    act = run.add("act", {"input_excerpt": "golden", "outcome": "ok", "adapter": "golden"}, checkpoint)
    reflect = run.add("reflect", {"success": True}, act)
    run.add("terminate", {"status": "ok"}, reflect)
    found = [v for v in check_run(run.write(tmp_path / "ep")) if v.rule == "lifecycle.step_while_paused"]
    assert [v.message.split()[0] for v in found] == ["act", "reflect", "terminate"]
