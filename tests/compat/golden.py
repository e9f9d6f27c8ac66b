"""A hand-built run in Noēsis' current format that every rule accepts, to mutate in the checker's own tests.

It follows the shapes Noēsis writes: a subprocess tool draft that pauses for approval
(``tool.*`` chain, ``run.interrupt → run.checkpoint``), a resume, the execution, then an adapter
``action_candidate → governance → act``, and the sealed artifacts. ``paused=True`` stops at the
checkpoint, as a run waiting for a human is left on disk.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

EP = "ep_01JGOLDENRUN0000000000000"
DRAFT = f"draft:{EP}:req-1"
CHECKPOINT = "chk_0123456789ab"


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _dump(doc: Any) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass
class GoldenRun:
    """Events and documents of one run, editable before ``write``."""

    paused: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    docs: dict[str, Any] = field(default_factory=dict)  # relative name -> JSON document (besides state.json)
    seal: bool = True  # write final.json + manifest.json (sealed runs only)
    _clock: datetime = field(default_factory=lambda: datetime(2025, 1, 1, tzinfo=UTC))

    def add(self, phase: str, payload: dict[str, Any], caused_by: str | None = None, **extra: Any) -> str:
        self._clock += timedelta(milliseconds=5)
        event = {
            "id": str(uuid.uuid4()),
            "timestamp": self._clock.isoformat(),
            "episode_id": EP,
            "agent_id": "system",
            "phase": phase,
            "payload": payload,
            "evidence_ids": [],
            **extra,
        }
        if caused_by:
            event["caused_by"] = caused_by
        self.events.append(event)
        return event["id"]

    def tool(self, name: str, caused_by: str, **extra: Any) -> str:
        return self.add("tool", {"event_name": name, "request_id": "req-1", **extra}, caused_by, agent_id="tool_contract")

    def index(self, phase: str, name: str | None = None) -> int:
        """The first event of ``phase`` (and ``event_name`` / ``event_type``)."""
        for i, e in enumerate(self.events):
            if e["phase"] == phase and name in (None, e.get("event_type"), e["payload"].get("event_name")):
                return i
        raise KeyError((phase, name))

    def write(self, run_dir: Path) -> Path:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "events.jsonl").write_bytes(b"".join(_dump(e) + b"\n" for e in self.events))
        (run_dir / "learn.jsonl").write_bytes(b"")
        (run_dir / "state.json").write_bytes(_dump(self.state))
        for name, doc in self.docs.items():
            path = run_dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_dump(doc))
        if not self.paused and self.seal:
            write_manifest(run_dir, after_final=True)
        return run_dir


def write_manifest(run_dir: Path, *, after_final: bool) -> None:
    if after_final:
        (run_dir / "final.json").write_bytes(
            _dump(
                {
                    "schema_version": "final/2.0.0",
                    "episode_id": EP,
                    "process_id": "proc_golden",
                    "run_index": 1,
                    "finalized_at": "2025-01-01T00:01:00+00:00",
                    "outcome": "success",
                    "verification_status": "unverified",
                }
            )
        )
    kinds = {"summary.json": "summary", "state.json": "state", "events.jsonl": "events", "learn.jsonl": "learn"}
    files = []
    for path in sorted(
        (p for p in run_dir.rglob("*") if p.is_file() and p.name != "manifest.json"),
        key=lambda p: p.relative_to(run_dir).as_posix(),  # by name, as Noēsis lists them
    ):
        name, data = path.relative_to(run_dir).as_posix(), path.read_bytes()
        files.append({"name": name, "sha256": _sha(data), "size_bytes": len(data), "kind": kinds.get(name, "attachment")})
    (run_dir / "manifest.json").write_bytes(
        _dump(
            {
                "schema_version": "manifest/1.0",
                "episode_id": EP,
                "created_at": "2025-01-01T00:01:00+00:00",
                "files": files,
                "signer": None,
            }
        )
    )


def _state(status: str, links: dict[str, str]) -> dict[str, Any]:
    return {
        "version": "1.0",
        "state_schema_version": "1.0.0",
        "episode": {"id": EP, "seed": 0, "started_at": "2025-01-01T00:00:00+00:00", "tags": {}, "using": "adapter:golden"},
        "goal": {"task": "golden", "type": "task"},
        "beliefs": [],
        "plan": {"steps": []},
        "memory": {"facts": [], "scratchpad": ""},
        "outcomes": {"status": status, "summary": None, "actions": [], "metrics": {}},
        "process": {"id": "proc_golden", "name": "golden", "run_index": 1, "kind": "oneshot"},
        "links": links,
    }


def _candidate(cid: str, kind: str, state_hash: str) -> dict[str, Any]:
    return {
        "schema_version": "action_candidate/1.0.0",
        "action_candidate_id": cid,
        "kind": kind,
        "payload": {"goal": "golden"},
        "state_ref": "state.json",
        "state_hash": state_hash,
        "redaction": {"mode": "none", "policy_id": "tool.redaction", "policy_version": "1.0.0", "field_rules": {}},
        "provenance": {"request_id": "req-1"},
    }


def golden_run(*, paused: bool = False) -> GoldenRun:
    run = GoldenRun(paused=paused)
    paused_links = {"events": "events.jsonl", "learn": "learn.jsonl"}
    run.state = _state("partial", paused_links)
    state_hash = _sha(_dump(run.state))
    run.add("start", {"task": "golden", "seed": 0, "using": "golden"})
    observe = run.add("observe", {"task": "golden", "tags": {}, "timestamp": "2025-01-01T00:00:00+00:00"})
    interpret = run.add("interpret", {"signals": ["signal:ready"]}, observe)
    plan = run.add("plan", {"steps": ["act:golden"]}, interpret)
    last = run.tool("tool.requested", plan, protocol="subprocess", tool="fs.append")
    for name in ("tool.validated", "tool.authn.passed", "tool.authz.passed"):
        last = run.tool(name, last)
    candidate = run.add("action_candidate", _candidate("cand-tool", "tool.fs.append", state_hash), last)
    last = run.tool("action.candidate_emitted", candidate, candidate_id="cand-tool")
    last = run.tool("tool.preflight.computed", last, impact_hash=None)
    last = run.tool("tool.draft_created", last, draft_id=DRAFT)
    pending = run.tool(
        "tool.approval.pending", last, draft_id=DRAFT, candidate_id="cand-tool", reason_code="governance.approval_required"
    )
    interrupt = run.add(
        "runtime", {"kind": "run.interrupt", "status": "interrupted", "reason": "approval"}, pending, event_type="run.interrupt"
    )
    offset = len(run.events)
    checkpoint = run.add(
        "runtime",
        {
            "kind": "run.checkpoint",
            "status": "paused",
            "checkpoint_id": CHECKPOINT,
            "event_offset": offset,
            "checkpoint_path": f"checkpoints/{CHECKPOINT}/checkpoint.json",
        },
        interrupt,
        event_type="run.checkpoint",
    )
    run.docs[f"checkpoints/{CHECKPOINT}/checkpoint.json"] = {
        "schema_version": "checkpoint/1.0.0",
        "run_id": EP,
        "checkpoint_id": CHECKPOINT,
        "created_at": "2025-01-01T00:00:01+00:00",
        "event_offset": offset,
        "last_event_id": interrupt,
        "state_hash": state_hash,
        "artifact_manifest_hash": "sha256:" + "0" * 64,
    }
    run.docs[f"tool_invocations/prepared/{DRAFT}.json"] = {
        "run_id": EP,
        "request_id": "req-1",
        "protocol": "subprocess",
        "tool": {"namespace": "fs", "name": "append", "version": None},
        "payload": {
            "normalized_payload": {"argv": ["true"]},
            "redacted_payload": {"argv": ["true"]},
            "request_fingerprint": "sha256:" + "1" * 64,
            "redaction_applied": False,
        },
        "execution": {"timeout_ms": 1000, "retry_limit": 0, "idempotency_key": None},
        "security": {
            "principal_id": "user:ana",
            "scopes": [],
            "policy_scope": "test",
            "authn_method": None,
            "credential_ref": None,
        },
        "governance": {
            "effect_kind": "write",
            "risk_tier": "high",
            "candidate_id": "cand-tool",
            "requires_approval": True,
            "tags": [],
        },
        "status": "pending_approval",
        "schema_version": "tool_contract/1.0.0",
        "draft_id": DRAFT,
        "preflight": None,
    }
    if paused:
        return run
    resume = run.add(
        "runtime",
        {
            "kind": "run.resume",
            "status": "resuming",
            "checkpoint_id": CHECKPOINT,
            "event_offset": offset,
            "resume_strategy": "same_run_id",
        },
        checkpoint,
        event_type="run.resume",
    )
    last = run.tool("tool.approved", resume, draft_id=DRAFT, decision_id="decision-1")
    last = run.tool("tool.execution.started", last, draft_id=DRAFT, candidate_id="cand-tool")
    last = run.tool("tool.execution.succeeded", last, draft_id=DRAFT, execution_id="exec-1", reason_code=None)
    run.docs[f"tool_invocations/prepared/{DRAFT}.json"]["status"] = "approved"
    run.docs[f"tool_invocations/approvals/{DRAFT}.json"] = {
        "decision_id": "decision-1",
        "run_id": EP,
        "request_id": "req-1",
        "candidate_id": "cand-tool",
        "draft_id": DRAFT,
        "status": "approved",
        "schema_version": "tool_contract/1.0.0",
        "reason_code": None,
        "reviewed_fingerprint": "sha256:" + "1" * 64,
        "impact_hash": None,
        "approver_id": "user:ana",
        "approval_token_ref": None,
        "decided_at": "2025-01-01T00:00:02+00:00",
    }
    candidate = run.add("action_candidate", _candidate("cand-act", "adapter", state_hash), last)
    governance = run.add(
        "governance",
        {"schema_version": "governance/1.0.0", "decision": "allow", "enforced": False},
        candidate,
        faculty="governance",
    )
    act = run.add(
        "act",
        {
            "input_excerpt": "golden",
            "outcome": "ok",
            "tool": "adapter:golden",
            "action_candidate_id": "cand-act",
            "x-tool_draft_id": DRAFT,
        },
        governance,
        metrics={"started_at": "2025-01-01T00:00:00+00:00", "completed_at": "2025-01-01T00:00:03+00:00", "duration_ms": 3.5},
    )
    run.events[-1]["timestamp"] = run.events[-2]["timestamp"]  # metrics.completed_at is earlier; keep the line order monotonic
    reflect = run.add("reflect", {"success": True}, act)
    run.add("learn", {"learn_path": "learn.jsonl", "learn_schema": "learn/1.0", "proposal_ids": [], "proposal_count": 0}, reflect)
    run.add("terminate", {"status": "ok", "message": "done"})
    metrics = {"plan_adherence": 1.0, "tool_coverage": 1.0, "veto_count": 0, "success": True, "act_count": 1}
    run.add("insight", {"summary_path": "summary.json", "metrics": dict(metrics)}, faculty="insight")
    run.add("memory", {"status": "skipped", "reason": "port_missing", "capability": "long_term_memory"})
    run.state = _state(
        "ok", {"events": "events.jsonl", "summary": "summary.json", "learn": "learn.jsonl", "manifest": "manifest.json"}
    )
    run.docs["summary.json"] = {
        "schema_version": "1.3.0",
        "episode_id": EP,
        "task": "golden",
        "seed": 0,
        "started_at": "2025-01-01T00:00:00+00:00",
        "flags": {"using": "golden"},
        "metrics": metrics,
        "adapter_result": "success",
        "outcome": "success_unverified",
        "verification": {
            "provided": False,
            "passed": None,
            "assertions": [],
            "workspace_diff": None,
            "snapshots": None,
            "policy": {"ignore": [".git"], "symlinks": "skip"},
        },
    }
    return run
