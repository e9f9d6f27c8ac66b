"""Prepare and execute tool invocations (the Noēsis ADR-016 use cases).

``emit(name, request_id, **extra) -> event_id`` is supplied by the runtime; it writes one
event with phase ``tool``, agent ``tool_contract`` and payload ``{event_name, request_id,
**extra}``. Extras carry ids, names and hashes only, never payload values.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from . import codes, events
from ._files import check_id
from .errors import (ApprovalDecisionBindingError, ApprovalDecisionRequiredError, ApprovalRejectedError,
                     CallableResolutionError, ExecutionInProgressError, PayloadIntegrityError,
                     PreparedToolInvocationNotFoundError, SecretUnavailableError, ToolContractError)
from .fingerprints import default_candidate_id, default_preflight, request_fingerprint
from .ports import authenticate, authorize, call_port, port_method
from .protocols import ToolDispatcher, callable_reference, import_callable, make_result
from .redaction import build_payload_evidence, redacted_paths, scrub, secret_values
from .repositories import (ApprovalDecisionRepository, ExecutionRepository, IdempotencyRepository,
                           PreparedInvocationRepository)
from .types import (ApprovalDecisionStatus, EffectKind, ExecutionStatus, IdempotencyDecision, PreparedInvocationStatus,
                    PreparedToolInvocation, ToolApprovalDecision, ToolExecutionResult, ToolInvocationInput, ToolProtocol)
from .vault import PROCESS_VAULT, VaultEntry

__all__ = ["Emit", "prepare_tool_invocation", "execute_prepared_tool_invocation"]

Emit = Callable[..., str]


def prepare_tool_invocation(invocation: ToolInvocationInput, *, prepared_repository: PreparedInvocationRepository,
                            emit: Emit, preflight: Any = None, authn: Any = None, authz: Any = None,
                            dispatcher: ToolDispatcher | None = None,
                            emit_candidate: Callable[[ToolInvocationInput, dict], str] | None = None) -> PreparedToolInvocation:
    """Validate, authorise and persist a draft without executing anything.

    Events: ``tool.requested → tool.validated → tool.authn.passed → tool.authz.passed →
    action.candidate_emitted`` then, for write effects, ``tool.preflight.computed`` and
    ``tool.draft_created`` (as Noēsis: read effects get neither), then ``tool.approval.pending``
    when approval is required. The record is saved before ``tool.draft_created``. Failures:
    ``tool.rejected.invalid`` / ``tool.authn.failed`` / ``tool.authz.denied`` ``{reason_code}``,
    then the error is raised; nothing is written.

    Ports (plain callables or Noēsis-style objects): ``authn(security) -> SecurityContext|None``,
    ``authz(invocation, security)`` (raise or return False to deny), ``preflight(prepared) ->
    PreflightBinding|None`` (default: ``default_preflight``, write effects only),
    ``emit_candidate(invocation, redacted_payload) -> candidate_id``.
    """
    inv, rid = invocation, invocation.request_id
    draft_id = check_id(inv.effective_draft_id)
    emit(events.TOOL_REQUESTED, rid, protocol=inv.protocol.value, tool=inv.tool.name)
    try:
        normalized = (dispatcher or ToolDispatcher()).normalize(inv.protocol, inv.payload)
        if inv.protocol is ToolProtocol.PYTHON and not callable(inv.func):
            raise CallableResolutionError("a python tool call needs the function: ToolInvocationInput(func=...).")
    except ToolContractError as exc:
        emit(events.TOOL_REJECTED_INVALID, rid, reason_code=exc.reason_code)
        raise
    emit(events.TOOL_VALIDATED, rid, field_count=len(normalized))
    security = authenticate(port_method(authn, "authenticate"), inv, emit)
    emit(events.TOOL_AUTHN_PASSED, rid, principal_id=security.principal_id)
    authorize(port_method(authz, "authorize"), inv, security, emit)
    emit(events.TOOL_AUTHZ_PASSED, rid, policy_scope=security.policy_scope)

    evidence = build_payload_evidence(normalized, inv.redaction_policy)
    candidate_id = (emit_candidate(inv, evidence.redacted_payload) if emit_candidate else
                    inv.governance.candidate_id or default_candidate_id(inv.run_id, rid, evidence.request_fingerprint))
    emit(events.ACTION_CANDIDATE_EMITTED, rid, candidate_id=candidate_id)
    governance = inv.governance.model_copy(update={"candidate_id": candidate_id})
    prepared = PreparedToolInvocation(
        run_id=inv.run_id, request_id=rid, protocol=inv.protocol, tool=inv.tool, payload=evidence,
        execution=inv.execution, security=security, governance=governance, draft_id=draft_id,
        status=PreparedInvocationStatus.PENDING_APPROVAL if governance.requires_approval else PreparedInvocationStatus.PREPARED,
        x_callable=callable_reference(inv.func) if inv.protocol is ToolProtocol.PYTHON else None)
    write = governance.effect_kind is EffectKind.WRITE
    if write:
        binding = call_port(port_method(preflight, "compute") or default_preflight, invocation=prepared)
        if binding is not None:
            prepared = prepared.model_copy(update={"preflight": binding})
            emit(events.TOOL_PREFLIGHT_COMPUTED, rid, impact_hash=binding.impact_hash)
    vault = getattr(prepared_repository, "vault", PROCESS_VAULT)
    vault.put(prepared_repository.run_dir, draft_id, VaultEntry(evidence.request_fingerprint, normalized, inv.func))
    prepared_repository.save(prepared)  # on disk before any event announces the draft
    if write:
        emit(events.TOOL_DRAFT_CREATED, rid, draft_id=draft_id)
    if governance.requires_approval:
        emit(events.TOOL_APPROVAL_PENDING, rid, draft_id=draft_id, candidate_id=candidate_id,
             reason_code=codes.GOVERNANCE_APPROVAL_REQUIRED)
    return prepared


async def execute_prepared_tool_invocation(
        *, run_id: str, draft_id: str, prepared_repository: PreparedInvocationRepository,
        approval_repository: ApprovalDecisionRepository, idempotency_repository: IdempotencyRepository,
        dispatcher: ToolDispatcher, emit: Emit, callables: Mapping[str, Callable[..., Any]] | None = None,
        decision: ToolApprovalDecision | None = None,
        execution_repository: ExecutionRepository | None = None) -> ToolExecutionResult:
    """Execute a draft at most once, after checking its approval binding and idempotency.

    A draft that already has an execution record is not dispatched again: its stored result
    comes back with ``already_executed=True`` and no event is emitted.
    """
    prepared = prepared_repository.get(run_id, draft_id)
    if prepared is None:
        raise PreparedToolInvocationNotFoundError(
            f"no prepared draft {draft_id!r} for run {run_id!r} in {prepared_repository.root}; "
            f"drafts: {', '.join(prepared_repository.draft_ids()) or 'none'}.")
    executions = execution_repository or ExecutionRepository(prepared_repository.run_dir)
    if (done := executions.get(draft_id)) is not None:
        return done.model_copy(update={"already_executed": True})
    approval = None
    if prepared.governance.requires_approval:
        approval = _check_approval(prepared, decision or approval_repository.get(run_id, draft_id))
    payload, func, secrets = _dispatch_material(prepared, prepared_repository, dispatcher, callables)
    if not executions.claim(draft_id):
        if (done := executions.get(draft_id)) is not None:
            return done.model_copy(update={"already_executed": True})
        raise ExecutionInProgressError(
            f"draft {draft_id!r} is being executed elsewhere, or an earlier attempt stopped after claiming it. "
            f"If nothing is running, check the tool's effects, then delete {executions.claim_path(draft_id)} to retry.")
    rid, state = prepared.request_id, {"dispatched": False}
    try:
        if (done := executions.get(draft_id)) is not None:
            return done.model_copy(update={"already_executed": True})
        if approval is not None:
            emit(events.TOOL_APPROVED, rid, draft_id=draft_id, decision_id=approval.decision_id)
        result, final = await _run_once(prepared, idempotency_repository, dispatcher, emit, payload, func, secrets, state)
        executions.save(draft_id, result)
        state["dispatched"] = False  # the result is recorded, so the claim can go
    finally:
        if not state["dispatched"]:  # a dispatch without a saved record keeps its claim (at most once)
            executions.release(draft_id)
    prepared_repository.save(prepared.model_copy(update={"status": PreparedInvocationStatus.APPROVED}))
    getattr(prepared_repository, "vault", PROCESS_VAULT).discard(prepared_repository.run_dir, draft_id)
    emit(final[0], rid, **final[1])
    return result


async def _run_once(prepared: PreparedToolInvocation, idempotency: IdempotencyRepository, dispatcher: ToolDispatcher,
                    emit: Emit, payload: dict, func: Any, secrets: list[str],
                    state: dict) -> tuple[ToolExecutionResult, tuple[str, dict]]:
    """Replay, refuse (conflict) or dispatch; returns the result and the closing event."""
    rid, draft_id = prepared.request_id, prepared.key
    evaluation = idempotency.evaluate(prepared)
    if evaluation.decision is IdempotencyDecision.REPLAY:
        result = ToolExecutionResult(
            request_id=rid, execution_id=evaluation.replayed_execution_id or f"exec:replay:{draft_id}",
            status=ExecutionStatus.REPLAYED, reason_code=codes.IDEMPOTENCY_REPLAY, output=evaluation.output,
            replayed_from_execution_id=evaluation.replayed_execution_id, preflight=prepared.preflight)
        return result, (events.TOOL_REPLAYED, {"draft_id": draft_id, "execution_id": result.execution_id})
    if evaluation.decision is IdempotencyDecision.CONFLICT:
        result = ToolExecutionResult(
            request_id=rid, execution_id=f"exec:conflict:{draft_id}", status=ExecutionStatus.FAILED,
            reason_code=codes.IDEMPOTENCY_CONFLICT, preflight=prepared.preflight)
        return result, (events.TOOL_EXECUTION_FAILED, {"draft_id": draft_id, "reason_code": codes.IDEMPOTENCY_CONFLICT})
    emit(events.TOOL_EXECUTION_STARTED, rid, draft_id=draft_id, candidate_id=prepared.governance.candidate_id)
    state["dispatched"] = True
    result = await _dispatch(dispatcher, prepared, payload, func)
    result = result.model_copy(update={"output": scrub(result.output, secrets)})
    idempotency.record(prepared, result)
    name = events.TOOL_EXECUTION_SUCCEEDED if result.status is ExecutionStatus.SUCCEEDED else events.TOOL_EXECUTION_FAILED
    return result, (name, {"draft_id": draft_id, "execution_id": result.execution_id, "reason_code": result.reason_code})


async def _dispatch(dispatcher: ToolDispatcher, prepared: PreparedToolInvocation, payload: dict,
                    func: Any) -> ToolExecutionResult:
    try:
        return await dispatcher.dispatch(prepared, payload, func)
    except ToolContractError as exc:
        return make_result(prepared, ExecutionStatus.FAILED, exc.reason_code, {"error": str(exc)})
    except Exception as exc:  # a handler bug still counts as the draft's one execution
        return make_result(prepared, ExecutionStatus.FAILED, codes.TOOL_ADAPTER_ERROR,
                           {"error": f"{type(exc).__name__}: {exc}", "error_type": type(exc).__name__})


def _check_approval(prepared: PreparedToolInvocation, decision: ToolApprovalDecision | None) -> ToolApprovalDecision:
    key = prepared.key
    if decision is None:
        raise ApprovalDecisionRequiredError(
            f"draft {key!r} requires approval and has no decision; call decide(run_dir, {key!r}, approve=True, "
            "approver_id=...) first.")
    if decision.status is ApprovalDecisionStatus.REJECTED:
        raise ApprovalRejectedError(f"draft {key!r} was rejected by {decision.approver_id or 'a reviewer'}"
                                    + (f": {decision.reason}" if decision.reason else "") + "; it will not run.",
                                    decision=decision)
    if decision.request_id != prepared.request_id:
        raise ApprovalDecisionBindingError(f"decision {decision.decision_id!r} is for request {decision.request_id!r}, "
                                           f"but draft {key!r} is request {prepared.request_id!r}; decide this draft.")
    if decision.reviewed_fingerprint != prepared.payload.request_fingerprint:
        raise ApprovalDecisionBindingError(
            f"decision {decision.decision_id!r} reviewed payload {decision.reviewed_fingerprint!r}, but draft {key!r} "
            f"has {prepared.payload.request_fingerprint!r}; the payload changed after review, so review it again.")
    if prepared.preflight is not None and decision.impact_hash != prepared.preflight.impact_hash:
        raise ApprovalDecisionBindingError(
            f"decision {decision.decision_id!r} has impact_hash {decision.impact_hash!r}, but draft {key!r} has "
            f"{prepared.preflight.impact_hash!r}; review the draft again.")
    return decision


def _dispatch_material(prepared: PreparedToolInvocation, repo: PreparedInvocationRepository,
                       dispatcher: ToolDispatcher, callables: Mapping[str, Any] | None) -> tuple[dict, Any, list[str]]:
    """(real payload, callable, secret strings to scrub from output): from memory, else rebuilt from disk."""
    fingerprint = prepared.payload.request_fingerprint
    entry = getattr(repo, "vault", PROCESS_VAULT).get(repo.run_dir, prepared.key, fingerprint)
    if entry is not None:
        payload, func = entry.payload, entry.func
    else:
        payload, filled = dispatcher.restore(prepared.protocol, dict(prepared.payload.normalized_payload))
        func = None
        if request_fingerprint(payload) != fingerprint:
            if left := redacted_paths(payload):
                raise SecretUnavailableError(
                    f"payload field(s) {', '.join(left)} of draft {prepared.key!r} are stored redacted and their "
                    "values exist only in the process that prepared it; execute it there, or prepare the call again.")
            why = (f"{', '.join(filled)} came from os.environ and differ from the values the draft was prepared with"
                   if filled else "the record was edited after it was prepared")
            raise PayloadIntegrityError(f"the stored payload of draft {prepared.key!r} does not match its "
                                        f"request_fingerprint: {why}. Prepare the call again.")
    if prepared.protocol is ToolProtocol.PYTHON:
        func = _resolve_callable(prepared, callables, func)
    return payload, func, secret_values(payload, prepared.payload.normalized_payload)


def _resolve_callable(prepared: PreparedToolInvocation, callables: Mapping[str, Any] | None, func: Any) -> Any:
    ref = prepared.x_callable
    supplied = None
    if callables:
        supplied = callables.get(prepared.key) or (callables.get(ref.ref) if ref else None)
    if supplied is not None:
        got = callable_reference(supplied).ref
        if ref is not None and got != ref.ref:
            raise CallableResolutionError(f"callables gives {got} for draft {prepared.key!r}, but it was prepared and "
                                          f"reviewed for {ref.ref}; pass that function.")
        return supplied
    if func is not None:
        return func
    if ref is None:
        raise CallableResolutionError(f"draft {prepared.key!r} records no x-callable; pass callables={{draft_id: func}}.")
    return import_callable(ref)
