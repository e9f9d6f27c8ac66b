import hashlib
import json
import sys

import pytest
from tooltest_helpers import RUN_ID, sub_input, touch_argv

from noesis_nb.tools import (
    ApprovalDecisionBindingError,
    ApprovalDecisionRequiredError,
    ApprovalRejectedError,
    DispatchVault,
    ExecutionStatus,
    PayloadIntegrityError,
    PreparedInvocationRepository,
    SecretUnavailableError,
    ToolApprovalDecision,
    decide,
)

DRAFT = "draft:ep_test:req-1"


def _sha(obj) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _lines(path):
    return path.read_text().splitlines() if path.exists() else []


def test_prepare_events_with_approval_and_write_effect(harness, tmp_path):
    payload = {"argv": touch_argv(tmp_path / "f")}
    prepared = harness.prepare(sub_input(payload, approval=True))
    fp = _sha(payload)
    impact = _sha({"tool": {"namespace": "repo", "name": "write_file", "version": "1"}, "redacted_payload": payload})
    cid = prepared.governance.candidate_id
    assert harness.emit.payloads() == [
        {"event_name": "tool.requested", "request_id": "req-1", "protocol": "subprocess", "tool": "write_file"},
        {"event_name": "tool.validated", "request_id": "req-1", "field_count": 1},
        {"event_name": "tool.authn.passed", "request_id": "req-1", "principal_id": "ana"},
        {"event_name": "tool.authz.passed", "request_id": "req-1", "policy_scope": "repo"},
        {"event_name": "action.candidate_emitted", "request_id": "req-1", "candidate_id": cid},
        {"event_name": "tool.preflight.computed", "request_id": "req-1", "impact_hash": impact},
        {"event_name": "tool.draft_created", "request_id": "req-1", "draft_id": DRAFT},
        {
            "event_name": "tool.approval.pending",
            "request_id": "req-1",
            "draft_id": DRAFT,
            "candidate_id": cid,
            "reason_code": "governance.approval_required",
        },
    ]
    record = json.loads((harness.run_dir / "tool_invocations/prepared" / f"{DRAFT}.json").read_text())
    assert record["status"] == "pending_approval" and record["schema_version"] == "tool_contract/1.0.0"
    assert record["payload"]["request_fingerprint"] == fp
    assert record["preflight"]["impact_hash"] == impact
    assert record["protocol"] == "subprocess" and record["governance"]["effect_kind"] == "write"
    assert set(record) == {
        "run_id",
        "request_id",
        "protocol",
        "tool",
        "payload",
        "execution",
        "security",
        "governance",
        "status",
        "schema_version",
        "draft_id",
        "preflight",
    }


def test_read_effect_without_approval_has_no_preflight_draft_or_pending_events(harness):
    prepared = harness.prepare(sub_input({"argv": [sys.executable, "-c", "pass"]}, write=False))
    assert harness.emit.names == [
        "tool.requested",
        "tool.validated",
        "tool.authn.passed",
        "tool.authz.passed",
        "action.candidate_emitted",
    ]
    assert prepared.status.value == "prepared" and prepared.preflight is None
    harness.emit.clear()
    result = harness.execute(DRAFT)
    assert harness.emit.payloads() == [
        {
            "event_name": "tool.execution.started",
            "request_id": "req-1",
            "draft_id": DRAFT,
            "candidate_id": prepared.governance.candidate_id,
        },
        {
            "event_name": "tool.execution.succeeded",
            "request_id": "req-1",
            "draft_id": DRAFT,
            "execution_id": result.execution_id,
            "reason_code": None,
        },
    ]
    record = json.loads((harness.run_dir / "tool_invocations/prepared" / f"{DRAFT}.json").read_text())
    assert record["status"] == "approved"


def test_approval_required_then_approved_executes_exactly_once(harness, tmp_path):
    marker = tmp_path / "count.txt"
    harness.prepare(sub_input({"argv": touch_argv(marker)}, approval=True))
    with pytest.raises(ApprovalDecisionRequiredError):
        harness.execute(DRAFT)
    assert not marker.exists()
    decision, created = decide(harness.run_dir, DRAFT, approve=True, approver_id="ana")
    assert created
    harness.emit.clear()
    first = harness.execute(DRAFT)
    assert first.status is ExecutionStatus.SUCCEEDED and not first.already_executed
    assert harness.emit.names == ["tool.approved", "tool.execution.started", "tool.execution.succeeded"]
    assert harness.emit.events[0][2] == {"draft_id": DRAFT, "decision_id": f"approval:{DRAFT}"}
    harness.emit.clear()
    second = harness.execute(DRAFT)
    assert second.already_executed and second.execution_id == first.execution_id
    assert harness.emit.names == []
    assert _lines(marker) == ["x"]
    stored = json.loads((harness.run_dir / "tool_invocations/executions" / f"{DRAFT}.json").read_text())
    assert stored["execution_id"] == first.execution_id and "already_executed" not in stored
    record = json.loads((harness.run_dir / "tool_invocations/prepared" / f"{DRAFT}.json").read_text())
    assert record["status"] == "approved"


def test_rejected_decision_never_dispatches(harness, tmp_path):
    marker = tmp_path / "count.txt"
    harness.prepare(sub_input({"argv": touch_argv(marker)}, approval=True))
    decide(harness.run_dir, DRAFT, approve=False, approver_id="bo", reason="not today")
    with pytest.raises(ApprovalRejectedError) as info:
        harness.execute(DRAFT)
    assert info.value.decision.reason == "not today" and info.value.reason_code == "governance.vetoed"
    assert not marker.exists()


def test_decision_with_wrong_fingerprint_or_impact_raises_binding_error(harness, tmp_path):
    marker = tmp_path / "count.txt"
    prepared = harness.prepare(sub_input({"argv": touch_argv(marker)}, approval=True))
    base = dict(
        decision_id="d1",
        run_id=RUN_ID,
        request_id="req-1",
        draft_id=DRAFT,
        status="approved",
        reviewed_fingerprint=prepared.payload.request_fingerprint,
        impact_hash=prepared.preflight.impact_hash,
    )
    for bad in (
        {"reviewed_fingerprint": "sha256:" + "0" * 64},
        {"impact_hash": "sha256:bad"},
        {"request_id": "req-2"},
        {"run_id": "ep_another_run"},  # Noēsis looks a decision up by run_id + draft_id: another run's is none
    ):
        with pytest.raises(ApprovalDecisionBindingError, match=next(iter(bad.values()))[:12]):
            harness.execute(DRAFT, decision=ToolApprovalDecision(**{**base, **bad}))
    assert not marker.exists()
    assert harness.execute(DRAFT, decision=ToolApprovalDecision(**base)).status is ExecutionStatus.SUCCEEDED
    assert _lines(marker) == ["x"]


def test_idempotency_replay_and_conflict_do_not_dispatch(harness, tmp_path):
    marker = tmp_path / "count.txt"
    argv = touch_argv(marker) + []
    argv[2] += "; print('hello')"
    harness.prepare(sub_input({"argv": argv}, request_id="req-1", idempotency_key="job/7"))
    first = harness.execute(DRAFT)
    key_file = harness.run_dir / "tool_invocations/idempotency/ana__subprocess.repo.write_file.1__job_7.json"
    stored = json.loads(key_file.read_text())
    assert stored == {
        "principal_id": "ana",
        "tool_key": "subprocess.repo.write_file.1",
        "idempotency_key": "job/7",
        "fingerprint": _sha({"argv": argv}),
        "execution_id": first.execution_id,
        "output": first.output,
    }

    harness.prepare(sub_input({"argv": argv}, request_id="req-2", idempotency_key="job/7", approval=True))
    decide(harness.run_dir, "draft:ep_test:req-2", approve=True, approver_id="ana")
    harness.emit.clear()
    replay = harness.execute("draft:ep_test:req-2")
    assert replay.status is ExecutionStatus.REPLAYED and replay.reason_code == "idempotency.replay"
    assert replay.output["stdout"] == "hello\n" and replay.replayed_from_execution_id == first.execution_id
    assert harness.emit.payloads() == [
        {
            "event_name": "tool.approved",
            "request_id": "req-2",
            "draft_id": "draft:ep_test:req-2",
            "decision_id": "approval:draft:ep_test:req-2",
        },
        {
            "event_name": "tool.replayed",
            "request_id": "req-2",
            "draft_id": "draft:ep_test:req-2",
            "execution_id": first.execution_id,
        },
    ]

    harness.prepare(sub_input({"argv": argv + ["extra"]}, request_id="req-3", idempotency_key="job/7"))
    harness.emit.clear()
    conflict = harness.execute("draft:ep_test:req-3")
    assert (conflict.status, conflict.reason_code) == (ExecutionStatus.FAILED, "idempotency.conflict")
    assert conflict.execution_id == "exec:conflict:draft:ep_test:req-3"
    assert harness.emit.payloads() == [
        {
            "event_name": "tool.execution.failed",
            "request_id": "req-3",
            "draft_id": "draft:ep_test:req-3",
            "reason_code": "idempotency.conflict",
        }
    ]
    assert _lines(marker) == ["x"]


def _all_bytes(root):
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_secret_never_reaches_disk_or_events(harness):
    secret = "s3cr3t-value-9431"
    code = "import os, sys; print('len', len(os.environ['API_TOKEN'])); print(os.environ['API_TOKEN'], file=sys.stderr)"
    harness.prepare(
        sub_input(
            {"argv": [sys.executable, "-c", code], "env": {"API_TOKEN": secret, "MODE": "x"}}, approval=True, idempotency_key="k1"
        )
    )
    decide(harness.run_dir, DRAFT, approve=True, approver_id="ana")
    result = harness.execute(DRAFT)
    assert result.output["stdout"] == f"len {len(secret)}\n"  # the child did get the real value
    assert result.output["stderr"] == "[REDACTED]\n"  # echoed secret scrubbed from output
    assert secret.encode() not in _all_bytes(harness.run_dir)
    assert secret not in json.dumps(harness.emit.payloads())
    stored = json.loads((harness.run_dir / "tool_invocations/prepared" / f"{DRAFT}.json").read_text())
    assert stored["payload"]["normalized_payload"]["env"] == {"API_TOKEN": "[REDACTED]", "MODE": "x"}


def _fresh_process_harness(harness):
    """Same run dir, empty in-memory vault: what another process sees."""
    harness.prepared = PreparedInvocationRepository(harness.run_dir, vault=DispatchVault())
    return harness


def test_cross_process_resume_fills_env_secret_from_os_environ(harness, monkeypatch):
    code = "import os, hashlib; print(hashlib.sha1(os.environ['DEPLOY_TOKEN'].encode()).hexdigest()[:6] == 'd020b9')"
    assert __import__("hashlib").sha1(b"tok-abc-123").hexdigest()[:6] == "d020b9"
    harness.prepare(sub_input({"argv": [sys.executable, "-c", code], "env": {"DEPLOY_TOKEN": "tok-abc-123"}}))
    _fresh_process_harness(harness)
    monkeypatch.delenv("DEPLOY_TOKEN", raising=False)
    with pytest.raises(SecretUnavailableError, match="DEPLOY_TOKEN"):
        harness.execute(DRAFT)
    monkeypatch.setenv("DEPLOY_TOKEN", "a-different-value")
    with pytest.raises(PayloadIntegrityError, match="env.DEPLOY_TOKEN"):
        harness.execute(DRAFT)
    monkeypatch.setenv("DEPLOY_TOKEN", "tok-abc-123")
    assert harness.execute(DRAFT).output["stdout"] == "True\n"


def test_edited_prepared_record_is_refused(harness, tmp_path):
    marker = tmp_path / "count.txt"
    harness.prepare(sub_input({"argv": touch_argv(marker)}))
    path = harness.run_dir / "tool_invocations/prepared" / f"{DRAFT}.json"
    record = json.loads(path.read_text())
    record["payload"]["normalized_payload"]["argv"] = touch_argv(tmp_path / "other.txt")
    path.write_text(json.dumps(record))
    _fresh_process_harness(harness)
    with pytest.raises(PayloadIntegrityError, match="edited"):
        harness.execute(DRAFT)
    assert not marker.exists() and not (tmp_path / "other.txt").exists()


def test_concurrent_executes_dispatch_once(harness, tmp_path):
    import threading

    marker = tmp_path / "count.txt"
    argv = touch_argv(marker)
    argv[2] = "import time; time.sleep(0.3); " + argv[2]
    harness.prepare(sub_input({"argv": argv}))
    barrier, outcomes = threading.Barrier(4), []

    def worker():
        barrier.wait()
        try:
            outcomes.append(harness.execute(DRAFT))
        except Exception as exc:  # ExecutionInProgressError while the winner runs
            outcomes.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _lines(marker) == ["x"]
    fresh = [o for o in outcomes if not isinstance(o, Exception) and not o.already_executed]
    assert len(fresh) == 1
    assert all(type(o).__name__ == "ExecutionInProgressError" or o.already_executed for o in outcomes if o is not fresh[0])


def test_stale_claim_blocks_with_instructions(harness, tmp_path):
    from noesis_nb.tools import ExecutionInProgressError

    marker = tmp_path / "count.txt"
    harness.prepare(sub_input({"argv": touch_argv(marker)}))
    claim = harness.run_dir / "tool_invocations/executions" / f"{DRAFT}.claim"
    claim.parent.mkdir(parents=True)
    claim.touch()
    with pytest.raises(ExecutionInProgressError, match="delete"):
        harness.execute(DRAFT)
    assert not marker.exists()
    claim.unlink()
    assert harness.execute(DRAFT).status is ExecutionStatus.SUCCEEDED


def test_authz_denial_emits_and_raises(harness):
    from noesis_nb.tools import ToolAuthorizationError

    with pytest.raises(ToolAuthorizationError, match="ana"):
        harness.prepare(sub_input({"argv": ["true"]}), authz=lambda invocation, security: False)
    assert harness.emit.names[-2:] == ["tool.authn.passed", "tool.authz.denied"]
    assert harness.emit.events[-1][2] == {"reason_code": "authz.denied"}
    assert not (harness.run_dir / "tool_invocations").exists()


def test_custom_ports(harness):
    from noesis_nb.tools import PreflightBinding, SecurityContext

    seen = []
    prepared = harness.prepare(
        sub_input({"argv": ["true"]}),
        authn=lambda security: SecurityContext(principal_id="verified", policy_scope="repo", authn_method="sso"),
        preflight=lambda prepared: PreflightBinding(impact_hash="sha256:custom"),
        emit_candidate=lambda inv, redacted: seen.append(redacted) or "cand-1",
    )
    assert prepared.security.principal_id == "verified" and prepared.preflight.impact_hash == "sha256:custom"
    assert prepared.governance.candidate_id == "cand-1" and seen == [{"argv": ["true"]}]
    assert ("tool.authn.passed", "req-1", {"principal_id": "verified"}) in harness.emit.events


def test_a_secret_repeated_in_argv_is_redacted_there_too_and_supplied_once(harness, monkeypatch):
    code = "import os; print(os.environ['DEPLOY_TOKEN'] == 'tok-abc-123')"  # the value also appears in argv
    harness.prepare(sub_input({"argv": [sys.executable, "-c", code], "env": {"DEPLOY_TOKEN": "tok-abc-123"}}))
    stored = json.loads((harness.run_dir / "tool_invocations/prepared" / f"{DRAFT}.json").read_text())
    assert "tok-abc-123" not in json.dumps(stored) and "[REDACTED]" in stored["payload"]["normalized_payload"]["argv"][2]
    _fresh_process_harness(harness)
    monkeypatch.delenv("DEPLOY_TOKEN", raising=False)
    with pytest.raises(SecretUnavailableError, match=r"env\.DEPLOY_TOKEN, argv\.2|argv\.2, env\.DEPLOY_TOKEN"):
        harness.execute(DRAFT)
    monkeypatch.setenv("DEPLOY_TOKEN", "tok-abc-123")  # given once, it fills both places; the fingerprint proves it
    assert harness.execute(DRAFT).output["stdout"] == "True\n"


def test_execute_async_without_await_says_how_to_run_it_and_runs_nothing(harness, tmp_path):
    import gc
    import warnings

    from noesis_nb.tools import execute_prepared_tool_invocation_async

    marker = tmp_path / "count.txt"
    harness.prepare(sub_input({"argv": touch_argv(marker)}))
    call = "execute_prepared_tool_invocation_async(…)"
    ports = dict(prepared_repository=harness.prepared, approval_repository=harness.approvals, dispatcher=harness.dispatcher)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pending = execute_prepared_tool_invocation_async(run_id=RUN_ID, draft_id=DRAFT, **ports)  # no await
        shown = repr(pending)
        del pending
        gc.collect()
    assert shown.startswith(f"<{call}: not started; write `await {call}`"), shown
    said = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    assert said == [f"{call} was never awaited, so nothing ran: write `await {call}`"], said
    assert not marker.exists()
    assert harness.execute(DRAFT).status is ExecutionStatus.SUCCEEDED and _lines(marker) == ["x"]  # awaited, it runs
