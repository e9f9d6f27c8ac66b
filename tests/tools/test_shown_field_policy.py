"""A draft prepared with a field policy shows what it runs once read back: a value the policy redacts that also
stands in a hashed field is removed from the stored value by the save, after the hash was taken, so the hash cannot
be taken again. Such a leaf shows a digest, no command to trust: it is not taken for an edited record, while a shown
text that is not the stored one is still refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noesis_nb.tools import (
    PreparedInvocationRepository,
    ToolIdentity,
    ToolInvocationInput,
    ToolProtocol,
    prepare_tool_invocation,
)
from noesis_nb.tools.decisions import decide
from noesis_nb.tools.domain import (
    EffectKind,
    ExecutionContext,
    GovernanceContext,
    PayloadRedactionPolicy,
    RiskTier,
    SecurityContext,
)
from noesis_nb.tools.errors import PayloadIntegrityError
from noesis_nb.tools.shown_check import shown_mismatch

SECRET = "s3cr3t-abcdefgh"


def _prepare(run_dir: Path, payload: dict, policy: PayloadRedactionPolicy):
    repo = PreparedInvocationRepository(run_dir)
    inv = ToolInvocationInput(
        run_id=run_dir.name,
        request_id="req-1",
        protocol=ToolProtocol.SUBPROCESS,
        tool=ToolIdentity(namespace="repo", name="write_file", version="1"),
        raw_payload=payload,
        execution=ExecutionContext(timeout_ms=1000, retry_limit=1, idempotency_key="idem-1"),
        security=SecurityContext(principal_id="user:1", scopes=("x",), policy_scope="p"),
        governance=GovernanceContext(
            effect_kind=EffectKind.WRITE, risk_tier=RiskTier.HIGH, candidate_id=None, requires_approval=True
        ),
        redaction_policy=policy,
    )
    prepared = prepare_tool_invocation(request=inv, prepared_repository=repo, event_recorder=lambda *a, **k: None)
    return repo, prepared


@pytest.mark.parametrize("hashed", ["argv", "cwd"])
def test_a_policy_secret_in_a_hashed_field_is_approved_from_disk(tmp_path: Path, hashed: str) -> None:
    run_dir = tmp_path / "ep_policy"
    run_dir.mkdir()
    payload = {"argv": ["echo", SECRET], "env": {"TOK": SECRET}, "cwd": f"/srv/{SECRET}"}
    repo, prepared = _prepare(run_dir, payload, PayloadRedactionPolicy(redact_fields=("env.TOK",), hash_fields=(hashed,)))
    disk = repo.get(run_dir.name, prepared.key)
    assert SECRET in json.dumps(payload) and SECRET not in json.dumps(disk.payload.normalized_payload)
    assert shown_mismatch(disk) is None
    decision, _ = decide(run_dir, disk.key, approve=True, approver_id="ana")  # refused as "edited" before
    assert decision.approver_id == "ana"


def test_a_shown_text_over_a_redacted_value_is_still_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "ep_edited"
    run_dir.mkdir()
    payload = {"argv": ["echo", SECRET], "env": {"TOK": SECRET}}
    repo, prepared = _prepare(run_dir, payload, PayloadRedactionPolicy(redact_fields=("env.TOK",), hash_fields=("argv",)))
    (path,) = (run_dir / "tool_invocations" / "prepared").glob("*.json")
    record = json.loads(path.read_text())
    record["payload"]["redacted_payload"]["argv"] = ["echo", "safe"]  # a text to trust, where a digest was shown
    path.write_text(json.dumps(record))
    with pytest.raises(PayloadIntegrityError, match="does not show what it runs"):
        decide(run_dir, prepared.key, approve=True, approver_id="ana")
