"""The "Minimal integration shape" of Noēsis' guide runs on noesis_nb with only its imports changed.

``GUIDE_EXAMPLE`` is the example of ``docs/guides/integrate-adapters.mdx`` (repository
saraeloop/noesis), copied unchanged. The test supplies the ports the example presupposes as
small working implementations (noesis_nb's file repositories in a tmp dir, a recorder that
also writes a JSONL file, a dispatch port that runs a real subprocess), swaps the two import
lines, runs the rest as written, and checks events, records, redaction and idempotency.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.tools import (
    ApprovalDecisionRepository,
    ApprovalDecisionRepositoryPort,
    ApprovalDecisionStatus,
    DispatchVault,
    EffectKind,
    ExecutionStatus,
    IdempotencyRepository,
    IdempotencyStorePort,
    InvalidToolPayloadError,
    PreflightBinding,
    PreparedInvocationRepository,
    PreparedInvocationRepositoryPort,
    PreparedToolInvocation,
    SecretUnavailableError,
    SecurityContext,
    ToolApprovalDecision,
    ToolAuthenticatorPort,
    ToolAuthorizationError,
    ToolAuthorizerPort,
    ToolCandidateEmitterPort,
    ToolDispatchPort,
    ToolEventRecorderPort,
    ToolExecutionResult,
    ToolIdentity,
    ToolInvocationInput,
    ToolPayloadNormalizerPort,
    ToolPreflightPort,
    ToolProtocol,
    UnknownToolFieldError,
    default_impact_hash,
    execute_prepared_tool_invocation,
    execute_prepared_tool_invocation_async,
    prepare_tool_invocation,
)

GUIDE_EXAMPLE = """\
from noesis.domain.tool_contract import (
    EffectKind,
    ExecutionContext,
    GovernanceContext,
    PayloadRedactionPolicy,
    RiskTier,
    SecurityContext,
    ToolIdentity,
    ToolProtocol,
)
from noesis.usecases.tool_invocation import (
    ToolInvocationInput,
    execute_prepared_tool_invocation,
    prepare_tool_invocation,
)

request = ToolInvocationInput(
    run_id="run-1",
    request_id="req-1",
    protocol=ToolProtocol.SUBPROCESS,
    tool=ToolIdentity(namespace="repo", name="write_file", version="1"),
    raw_payload={"path": "README.md", "token": "secret"},
    execution=ExecutionContext(timeout_ms=1000, retry_limit=1, idempotency_key="idem-1"),
    security=SecurityContext(
        principal_id="user:123",
        scopes=("repo:write",),
        policy_scope="repo/main",
    ),
    governance=GovernanceContext(
        effect_kind=EffectKind.WRITE,
        risk_tier=RiskTier.HIGH,
        candidate_id=None,
        requires_approval=True,
    ),
    redaction_policy=PayloadRedactionPolicy(redact_fields=("token",)),
)

prepared = prepare_tool_invocation(
    request=request,
    normalizer=normalizer,
    authenticator=authenticator,
    authorizer=authorizer,
    candidate_emitter=candidate_emitter,
    event_recorder=event_recorder,
    prepared_repository=prepared_repository,
    preflight=preflight,
)

# Later, after approval is persisted for run_id + draft_id:
result = execute_prepared_tool_invocation(
    run_id=prepared.run_id,
    draft_id=prepared.draft_id or "",
    prepared_repository=prepared_repository,
    approval_repository=approval_repository,
    idempotency_store=idempotency_store,
    dispatch=dispatch,
    event_recorder=event_recorder,
)
"""
APPROVAL_COMMENT = "# Later, after approval is persisted for run_id + draft_id:\n"
NOESIS_IMPORTS = ("from noesis.domain.tool_contract import (\n", "from noesis.usecases.tool_invocation import (\n")
IMPORT_MAPPINGS = {
    "package": ("from noesis_nb.tools import (\n", "from noesis_nb.tools import (\n"),
    "modules": ("from noesis_nb.tools.domain import (\n", "from noesis_nb.tools.usecases import (\n"),
}
# The guide's "Event and identity invariants", as written there.
GUIDE_PREPARE = (
    "tool.requested -> tool.validated -> tool.authn.passed -> tool.authz.passed -> "
    "action.candidate_emitted -> tool.preflight.computed -> tool.draft_created -> tool.approval.pending"
)
GUIDE_EXECUTE = "tool.approved -> tool.execution.started -> tool.execution.succeeded"
GUIDE_REPLAY = "tool.approved -> tool.replayed"
TOKEN = "secret"


# ---- the ports the example presupposes ------------------------------------------------------


class WriteFileNormalizer:
    """``repo.write_file`` takes ``path`` (relative, str) and ``token`` (str)."""

    def validate_and_normalize(
        self, *, protocol: ToolProtocol, tool: ToolIdentity, payload: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        unknown = sorted(set(payload) - {"path", "token"})
        if unknown:
            raise UnknownToolFieldError(f"write_file got unknown fields {unknown}", fields=tuple(unknown))
        path = payload.get("path")
        if not isinstance(path, str) or not path or Path(path).is_absolute() or ".." in Path(path).parts:
            raise InvalidToolPayloadError(f"write_file needs a relative 'path', got {path!r}")
        if not isinstance(payload.get("token"), str):
            raise InvalidToolPayloadError("write_file needs a 'token' string")
        return {"path": path.strip(), "token": payload["token"]}


class PrefixAuthenticator:
    def authenticate(self, *, security: SecurityContext) -> SecurityContext:
        assert security.principal_id.startswith("user:")
        return security.model_copy(update={"authn_method": "test-static"})


class ScopeAuthorizer:
    def authorize(self, *, request: ToolInvocationInput, security: SecurityContext) -> None:
        if request.governance.effect_kind is EffectKind.WRITE and "repo:write" not in security.scopes:
            raise ToolAuthorizationError(f"{security.principal_id} lacks repo:write")


class FileCandidateEmitter:
    """Writes candidate evidence to ``<root>/<candidate_id>.json``."""

    def __init__(self, root: Path):
        self.root = root
        self.seen: list[dict[str, Any]] = []

    def emit_candidate(
        self, *, request: ToolInvocationInput, normalized_payload: Mapping[str, Any], candidate_id: str | None
    ) -> str:
        cid = candidate_id or f"cand-{request.run_id}-{request.request_id}"
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / f"{cid}.json").write_text(json.dumps({"tool": request.tool.key, "payload": dict(normalized_payload)}))
        self.seen.append(dict(normalized_payload))
        return cid


class JsonlEventRecorder:
    """Keeps every event and appends it to a JSONL file."""

    def __init__(self, path: Path):
        self.path = path
        self.events: list[dict[str, Any]] = []

    def record(self, *, run_id: str, request_id: str, event_name: str, payload: Mapping[str, Any]) -> None:
        event = {"run_id": run_id, "request_id": request_id, "event_name": event_name, "payload": dict(payload)}
        self.events.append(event)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(event) + "\n")

    def names(self, start: int = 0) -> list[str]:
        return [e["event_name"] for e in self.events[start:]]


class WorkspacePreflight:
    """Binds the draft to its target: whether the file exists, plus the redacted payload."""

    def __init__(self, workspace: Path):
        self.workspace = workspace

    def compute(self, *, invocation: PreparedToolInvocation) -> PreflightBinding | None:
        target = self.workspace / invocation.payload.redacted_payload["path"]
        return PreflightBinding(
            impact_hash=default_impact_hash(
                invocation.tool, {**invocation.payload.redacted_payload, "target_exists": target.exists()}
            ),
            witness={"target": str(target), "target_exists": target.exists()},
        )


class SubprocessWriteDispatch:
    """Appends one line to ``<workspace>/<path>`` in a child process; the token travels only in its env."""

    def __init__(self, workspace: Path):
        self.workspace = workspace
        self.calls: list[dict[str, Any]] = []

    def execute(self, *, invocation: PreparedToolInvocation) -> ToolExecutionResult:
        payload = invocation.payload.normalized_payload
        target = self.workspace / payload["path"]
        self.calls.append({"token_is_real": payload["token"] == TOKEN, "thread": threading.current_thread().name})
        code = (
            "import os, sys; assert os.environ['WRITE_FILE_TOKEN'] not in ('', '[REDACTED]'), 'no token'; "
            "open(sys.argv[1], 'a').write('written by repo.write_file\\n')"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, str(target)],
            capture_output=True,
            text=True,
            env={**os.environ, "WRITE_FILE_TOKEN": payload["token"]},
            timeout=max(invocation.execution.timeout_ms / 1000, 30),
        )  # a floor for loaded machines
        ok = done.returncode == 0
        return ToolExecutionResult(
            request_id=invocation.request_id,
            execution_id=f"exec:{invocation.run_id}:{invocation.draft_id}",
            status=ExecutionStatus.SUCCEEDED if ok else ExecutionStatus.FAILED,
            reason_code=None if ok else "tool.execution_failed",
            output={"path": payload["path"], "returncode": done.returncode, "stderr": done.stderr[-500:]},
            preflight=invocation.preflight,
        )


def make_ports(tmp_path: Path) -> dict[str, Any]:
    run_dir, workspace = tmp_path / "runs" / "run-1", tmp_path / "workspace"
    run_dir.mkdir(parents=True)
    workspace.mkdir()
    return {
        "normalizer": WriteFileNormalizer(),
        "authenticator": PrefixAuthenticator(),
        "authorizer": ScopeAuthorizer(),
        "candidate_emitter": FileCandidateEmitter(tmp_path / "candidates"),
        "event_recorder": JsonlEventRecorder(tmp_path / "events.jsonl"),
        "prepared_repository": PreparedInvocationRepository(run_dir),
        "preflight": WorkspacePreflight(workspace),
        "approval_repository": ApprovalDecisionRepository(run_dir),
        "idempotency_store": IdempotencyRepository(run_dir),
        "dispatch": SubprocessWriteDispatch(workspace),
    }


def approve(approval_repository: ApprovalDecisionRepository, prepared: PreparedToolInvocation) -> ToolApprovalDecision:
    """Persist an approval bound to what was reviewed, the Noēsis way (``ApprovalDecisionRepositoryPort.save``)."""
    decision = ToolApprovalDecision(
        decision_id=f"approval:{prepared.draft_id}",
        run_id=prepared.run_id,
        request_id=prepared.request_id,
        candidate_id=prepared.governance.candidate_id,
        draft_id=prepared.draft_id,
        status=ApprovalDecisionStatus.APPROVED,
        reviewed_fingerprint=prepared.payload.request_fingerprint,
        impact_hash=prepared.preflight.impact_hash if prepared.preflight else None,
        approver_id="user:reviewer",
    )
    approval_repository.save(decision)
    return decision


def adapted_example(mapping: str) -> str:
    text = GUIDE_EXAMPLE
    for noesis_line, nb_line in zip(NOESIS_IMPORTS, IMPORT_MAPPINGS[mapping]):
        assert text.count(noesis_line) == 1
        text = text.replace(noesis_line, nb_line)
    return text


def files_containing(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


# ---- tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mapping", sorted(IMPORT_MAPPINGS))
def test_guide_example_runs_with_only_its_imports_changed(tmp_path: Path, mapping: str):
    code = adapted_example(mapping)
    changed = [line for line in difflib.ndiff(GUIDE_EXAMPLE.splitlines(), code.splitlines()) if line[:2] in ("- ", "+ ")]
    assert sorted(changed) == sorted(
        [f"- {line.strip()}" for line in NOESIS_IMPORTS] + [f"+ {line.strip()}" for line in IMPORT_MAPPINGS[mapping]]
    )
    prepare_part, execute_part = code.split(APPROVAL_COMMENT)
    ports = make_ports(tmp_path)
    recorder, dispatch, workspace = ports["event_recorder"], ports["dispatch"], tmp_path / "workspace"
    ns: dict[str, Any] = dict(ports)

    exec(compile(prepare_part, "integrate-adapters.mdx (prepare)", "exec"), ns)
    prepared = ns["prepared"]
    draft = "draft:run-1:req-1"
    assert prepared.draft_id == draft and prepared.status.value == "pending_approval"
    assert recorder.names() == GUIDE_PREPARE.split(" -> ")
    cid = prepared.governance.candidate_id
    assert cid == "cand-run-1-req-1"
    assert [(e["run_id"], e["request_id"]) for e in recorder.events] == [("run-1", "req-1")] * 8
    assert [e["payload"] for e in recorder.events] == [  # the payloads Noēsis' use case records
        {"protocol": "subprocess", "tool": "write_file"},
        {"field_count": 2},
        {"principal_id": "user:123"},
        {"policy_scope": "repo/main"},
        {"candidate_id": cid},
        {"impact_hash": prepared.preflight.impact_hash},
        {"draft_id": draft},
        {"draft_id": draft, "candidate_id": cid, "reason_code": "governance.approval_required"},
    ]
    assert prepared.security.authn_method == "test-static"  # the authenticator's context is the one kept
    assert ports["candidate_emitter"].seen == [{"path": "README.md", "token": "[REDACTED]"}]
    assert dispatch.calls == [] and not (workspace / "README.md").exists()  # prepare has no side effect
    record = json.loads((tmp_path / "runs/run-1/tool_invocations/prepared" / f"{draft}.json").read_text())
    assert record["payload"]["redacted_payload"] == {"path": "README.md", "token": "[REDACTED]"}
    assert record["payload"]["normalized_payload"]["token"] == "[REDACTED]"

    approve(ns["approval_repository"], prepared)
    exec(compile(APPROVAL_COMMENT + execute_part, "integrate-adapters.mdx (execute)", "exec"), ns)
    result = ns["result"]
    assert recorder.names(8) == GUIDE_EXECUTE.split(" -> ")
    assert result.status is ExecutionStatus.SUCCEEDED and result.execution_id == f"exec:run-1:{draft}"
    assert result.output["returncode"] == 0
    assert dispatch.calls == [{"token_is_real": True, "thread": threading.main_thread().name}]
    assert (workspace / "README.md").read_text() == "written by repo.write_file\n"
    idem = json.loads(
        (tmp_path / "runs/run-1/tool_invocations/idempotency" / "user:123__subprocess.repo.write_file.1__idem-1.json").read_text()
    )
    assert idem["fingerprint"] == prepared.payload.request_fingerprint and idem["execution_id"] == result.execution_id

    # The same draft again: its execution record answers; nothing dispatches, no event.
    again = execute_prepared_tool_invocation(**_execute_kwargs(ns, draft_id=draft, dispatch=dispatch, event_recorder=recorder))
    assert again.already_executed and again.execution_id == result.execution_id and len(recorder.events) == 11

    # A new request with the same idempotency key and payload: replayed, not dispatched (the guide's replay path).
    request2 = ns["request"].model_copy(update={"request_id": "req-2"})
    prepared2 = prepare_tool_invocation(**_prepare_kwargs(ns, request=request2, event_recorder=recorder))
    assert prepared2.payload.request_fingerprint == prepared.payload.request_fingerprint
    approve(ns["approval_repository"], prepared2)
    mark = len(recorder.events)
    replay = execute_prepared_tool_invocation(
        **_execute_kwargs(
            ns, run_id=prepared2.run_id, draft_id=prepared2.draft_id or "", dispatch=dispatch, event_recorder=recorder
        )
    )
    assert recorder.names(mark) == GUIDE_REPLAY.split(" -> ")
    assert replay.status is ExecutionStatus.REPLAYED and replay.reason_code == "idempotency.replay"
    assert replay.replayed_from_execution_id == result.execution_id
    assert len(dispatch.calls) == 1 and (workspace / "README.md").read_text() == "written by repo.write_file\n"

    # Same key, different payload: refused as a conflict, not dispatched.
    request3 = ns["request"].model_copy(update={"request_id": "req-3", "payload": {"path": "OTHER.md", "token": TOKEN}})
    prepared3 = prepare_tool_invocation(**_prepare_kwargs(ns, request=request3, event_recorder=recorder))
    approve(ns["approval_repository"], prepared3)
    mark = len(recorder.events)
    conflict = execute_prepared_tool_invocation(
        **_execute_kwargs(ns, draft_id=prepared3.draft_id, dispatch=dispatch, event_recorder=recorder)
    )
    assert recorder.names(mark) == ["tool.approved", "tool.execution.failed"]
    assert conflict.status is ExecutionStatus.FAILED and conflict.reason_code == "idempotency.conflict"
    assert len(dispatch.calls) == 1 and not (workspace / "OTHER.md").exists()

    # The token reached the child process, and no file anywhere under the tmp dir.
    assert (tmp_path / "events.jsonl").exists() and list((tmp_path / "candidates").iterdir())
    assert files_containing(tmp_path, TOKEN.encode()) == []


def test_ports_and_file_repositories_satisfy_the_noesis_protocols(tmp_path: Path):
    ports = make_ports(tmp_path)
    expected = {
        "normalizer": ToolPayloadNormalizerPort,
        "authenticator": ToolAuthenticatorPort,
        "authorizer": ToolAuthorizerPort,
        "candidate_emitter": ToolCandidateEmitterPort,
        "event_recorder": ToolEventRecorderPort,
        "preflight": ToolPreflightPort,
        "prepared_repository": PreparedInvocationRepositoryPort,
        "approval_repository": ApprovalDecisionRepositoryPort,
        "idempotency_store": IdempotencyStorePort,
        "dispatch": ToolDispatchPort,
    }
    for name, protocol in expected.items():
        assert isinstance(ports[name], protocol), name


def _prepare_example(ns: dict[str, Any]) -> None:
    exec(compile(adapted_example("package").split(APPROVAL_COMMENT)[0], "guide (prepare)", "exec"), ns)
    approve(ns["approval_repository"], ns["prepared"])


def _prepare_kwargs(ns: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """The guide's ``prepare_tool_invocation`` arguments (its ports in ``ns``), some replaced."""
    return {
        "request": ns["request"],
        "normalizer": ns["normalizer"],
        "authenticator": ns["authenticator"],
        "authorizer": ns["authorizer"],
        "candidate_emitter": ns["candidate_emitter"],
        "event_recorder": ns["event_recorder"],
        "prepared_repository": ns["prepared_repository"],
        "preflight": ns["preflight"],
        **overrides,
    }


def _execute_kwargs(ns: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    return {
        "run_id": "run-1",
        "draft_id": ns["prepared"].draft_id,
        "prepared_repository": ns["prepared_repository"],
        "approval_repository": ns["approval_repository"],
        "idempotency_store": ns["idempotency_store"],
        "dispatch": ns["dispatch"],
        "event_recorder": ns["event_recorder"],
        **overrides,
    }


def test_sync_execute_inside_a_running_event_loop_uses_a_worker_thread(tmp_path: Path):
    ns = make_ports(tmp_path)
    _prepare_example(ns)

    async def notebook_cell() -> ToolExecutionResult:
        return execute_prepared_tool_invocation(**_execute_kwargs(ns))

    result = asyncio.run(notebook_cell())
    assert result.status is ExecutionStatus.SUCCEEDED
    assert ns["dispatch"].calls[0]["thread"].startswith("noesis_nb-sync")
    assert ns["event_recorder"].names(8) == GUIDE_EXECUTE.split(" -> ")


def test_async_variant_takes_the_noesis_ports_too(tmp_path: Path):
    ns = make_ports(tmp_path)
    _prepare_example(ns)
    result = asyncio.run(execute_prepared_tool_invocation_async(**_execute_kwargs(ns)))
    assert result.status is ExecutionStatus.SUCCEEDED and len(ns["dispatch"].calls) == 1
    assert ns["event_recorder"].names(8) == GUIDE_EXECUTE.split(" -> ")


def test_redacted_token_is_not_on_disk_so_another_process_cannot_execute(tmp_path: Path):
    ns = make_ports(tmp_path)
    _prepare_example(ns)
    fresh = PreparedInvocationRepository(tmp_path / "runs" / "run-1", vault=DispatchVault())  # as in a new process
    with pytest.raises(SecretUnavailableError, match="token"):
        execute_prepared_tool_invocation(**_execute_kwargs(ns, prepared_repository=fresh))
    assert ns["dispatch"].calls == []


def test_noesis_normalizer_rejection_emits_rejected_invalid_and_writes_nothing(tmp_path: Path):
    ns = make_ports(tmp_path)
    exec(compile(adapted_example("package").split("prepared = prepare_tool_invocation(")[0], "guide", "exec"), ns)
    bad = ns["request"].model_copy(update={"payload": {"path": "README.md", "token": TOKEN, "mode": "w"}})
    with pytest.raises(UnknownToolFieldError):
        prepare_tool_invocation(
            request=bad,
            normalizer=ns["normalizer"],
            authenticator=ns["authenticator"],
            authorizer=ns["authorizer"],
            candidate_emitter=ns["candidate_emitter"],
            event_recorder=ns["event_recorder"],
            prepared_repository=ns["prepared_repository"],
        )
    assert ns["event_recorder"].names() == ["tool.requested", "tool.rejected.invalid"]
    assert ns["event_recorder"].events[1]["payload"] == {"reason_code": "tool.unknown_field"}
    assert ns["prepared_repository"].draft_ids() == []


def test_both_spellings_of_a_port_is_a_type_error(tmp_path: Path):
    ns = make_ports(tmp_path)
    exec(compile(adapted_example("package").split("prepared = prepare_tool_invocation(")[0], "guide", "exec"), ns)
    with pytest.raises(TypeError, match="both invocation= and request="):
        prepare_tool_invocation(
            ns["request"],
            request=ns["request"],
            prepared_repository=ns["prepared_repository"],
            event_recorder=ns["event_recorder"],
        )
    with pytest.raises(TypeError, match="both emit= and event_recorder="):
        prepare_tool_invocation(
            request=ns["request"],
            prepared_repository=ns["prepared_repository"],
            event_recorder=ns["event_recorder"],
            emit=lambda *a, **k: "",
        )
    with pytest.raises(TypeError, match="needs idempotency_repository="):
        execute_prepared_tool_invocation(
            run_id="run-1",
            draft_id="d",
            prepared_repository=ns["prepared_repository"],
            approval_repository=ns["approval_repository"],
            dispatch=ns["dispatch"],
            event_recorder=ns["event_recorder"],
        )
    assert ns["event_recorder"].events == []
