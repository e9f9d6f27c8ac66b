import json
import sys

import pytest
from tooltest_helpers import RUN_ID, sub_input

from noesis_nb.errors import AmbiguousDraftError, DecisionFileError, DraftNotFoundError, InvalidIdError
from noesis_nb.tools import (
    AmbiguousPreparedToolInvocationError,
    ApprovalDecisionRepository,
    PreparedToolInvocationNotFoundError,
    ToolRecordError,
    resolve_draft_id,
)


def _prepare(harness, request_id, approval=False):
    return harness.prepare(sub_input({"argv": [sys.executable, "-c", "pass"]}, request_id=request_id, approval=approval))


@pytest.mark.parametrize("bad", ["a/b", "..", "x..y", "a\\b", "a\x00b", "", "d" * 201])
def test_unsafe_ids_rejected(harness, bad):
    with pytest.raises(InvalidIdError):
        harness.prepared.path_for(bad)
    with pytest.raises(InvalidIdError):
        harness.approvals.get(RUN_ID, bad)


def test_prepare_rejects_unsafe_draft_id_before_any_event(harness):
    with pytest.raises(InvalidIdError, match=r"\.\./escape"):
        harness.prepare(sub_input({"argv": ["true"]}, draft_id="../escape"))
    assert harness.emit.events == []
    assert not (harness.run_dir.parent / "escape.json").exists()


def test_get_list_and_find_pending(harness):
    _prepare(harness, "req-a")
    assert harness.prepared.find_pending(RUN_ID) is None
    _prepare(harness, "req-b", approval=True)
    assert harness.prepared.find_pending(RUN_ID).request_id == "req-b"
    assert harness.prepared.get("other-run", "draft:ep_test:req-b") is None
    assert sorted(p.request_id for p in harness.prepared.list()) == ["req-a", "req-b"]
    _prepare(harness, "req-c", approval=True)
    with pytest.raises(AmbiguousPreparedToolInvocationError, match="req-b.*req-c"):
        harness.prepared.find_pending(RUN_ID)


def test_resolve_draft_id(harness):
    with pytest.raises(DraftNotFoundError, match="none"):
        resolve_draft_id(harness.run_dir, None)
    _prepare(harness, "01HAAA-write", approval=True)
    _prepare(harness, "01HBBB-write")
    assert resolve_draft_id(harness.run_dir, None) == "draft:ep_test:01HAAA-write"
    assert resolve_draft_id(harness.run_dir, "draft:ep_test:01HBBB-write") == "draft:ep_test:01HBBB-write"
    assert resolve_draft_id(harness.run_dir, "01HB") == "draft:ep_test:01HBBB-write"
    with pytest.raises(AmbiguousDraftError) as info:
        resolve_draft_id(harness.run_dir, "write")
    assert "01HAAA-write" in str(info.value) and "01HBBB-write" in str(info.value)
    with pytest.raises(DraftNotFoundError) as missing:
        resolve_draft_id(harness.run_dir, "zzzz")
    assert "draft:ep_test:01HAAA-write" in str(missing.value)
    for names_nothing in ("", "  ", "draft:", "draft:ep_test:", "zz", None if False else 7):
        with pytest.raises(InvalidIdError):  # never "the only draft" by accident
            resolve_draft_id(harness.run_dir, names_nothing)
    _prepare(harness, "01HCCC", approval=True)
    with pytest.raises(AmbiguousDraftError):
        resolve_draft_id(harness.run_dir, None)


@pytest.mark.parametrize(
    "content, needle",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"decision_id": "d", "run_id": RUN_ID, "request_id": "r"}), "status"),
        (json.dumps({"decision_id": "d", "run_id": RUN_ID, "request_id": "r", "status": "maybe"}), "maybe"),
    ],
)
def test_malformed_decision_file_names_path_and_problem(harness, content, needle):
    path = harness.run_dir / "tool_invocations/approvals/draft:ep_test:req-1.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    with pytest.raises(DecisionFileError) as info:
        ApprovalDecisionRepository(harness.run_dir).get(RUN_ID, "draft:ep_test:req-1")
    assert str(path) in str(info.value) and needle in str(info.value)


def test_decision_file_with_extension_keys_loads(harness):
    path = harness.run_dir / "tool_invocations/approvals/d1.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"decision_id": "d", "run_id": RUN_ID, "request_id": "r", "status": "approved", "x-ui": {"button": "approve"}})
    )
    assert harness.approvals.get(RUN_ID, "d1").status.value == "approved"


def test_corrupt_prepared_record_raises_record_error(harness):
    path = harness.run_dir / "tool_invocations/prepared/d1.json"
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    with pytest.raises(ToolRecordError, match="d1.json"):
        harness.prepared.get(RUN_ID, "d1")


def test_execute_unknown_draft_lists_existing(harness):
    _prepare(harness, "req-a")
    with pytest.raises(PreparedToolInvocationNotFoundError, match="draft:ep_test:req-a"):
        harness.execute("draft:ep_test:nope")


def test_noesis_written_draft_loads_and_executes(harness, tmp_path):
    import hashlib

    marker = tmp_path / "noesis.txt"
    payload = {"argv": [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ok')"]}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    record = {  # the shape Noēsis writes with dataclasses.asdict (no noesis_nb extension keys)
        "run_id": RUN_ID,
        "request_id": "n-1",
        "protocol": "subprocess",
        "tool": {"namespace": "repo", "name": "touch", "version": None},
        "payload": {
            "normalized_payload": payload,
            "redacted_payload": payload,
            "redaction_applied": False,
            "request_fingerprint": "sha256:" + hashlib.sha256(text.encode()).hexdigest(),
        },
        "execution": {"timeout_ms": 10000, "retry_limit": 0, "idempotency_key": None},
        "security": {"principal_id": "p", "scopes": [], "policy_scope": "s", "authn_method": None, "credential_ref": None},
        "governance": {"effect_kind": "read", "risk_tier": "low", "candidate_id": "c", "requires_approval": False, "tags": []},
        "status": "prepared",
        "schema_version": "tool_contract/1.0.0",
        "draft_id": "draft:ep_test:n-1",
        "preflight": None,
    }
    path = harness.run_dir / "tool_invocations/prepared/draft:ep_test:n-1.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record, indent=2))
    result = harness.execute("draft:ep_test:n-1")
    assert result.status.value == "succeeded" and marker.read_text() == "ok"
    assert result.execution_id == "exec:ep_test:draft:ep_test:n-1"
    assert json.loads(path.read_text())["status"] == "approved"
