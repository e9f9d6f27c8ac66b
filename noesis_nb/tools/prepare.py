"""``prepare_tool_invocation``: validate, authorise, redact and persist a draft, executing nothing."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from noesis_nb.secrets import for_run as secrets_for_run

from . import codes, events
from ._base import as_json_data
from ._files import check_id
from ._usecase_ports import Emit, _one, _scope, _vault, recorder_emit
from .errors import CallableResolutionError, InvalidToolPayloadError, ToolContractError
from .fingerprints import default_candidate_id, default_preflight
from .ports import authenticate, authorize, call_port, port_method
from .protocols import ToolDispatcher, callable_reference
from .redaction import build_payload_evidence
from .types import (
    EffectKind,
    PreparedInvocationStatus,
    PreparedToolInvocation,
    ToolInvocationInput,
    ToolProtocol,
)
from .vault import VaultEntry

__all__ = ["prepare_tool_invocation"]


def prepare_tool_invocation(
    invocation: ToolInvocationInput | None = None,
    *,
    prepared_repository: Any,
    emit: Emit | None = None,
    preflight: Any = None,
    authn: Any = None,
    authz: Any = None,
    dispatcher: ToolDispatcher | None = None,
    emit_candidate: Callable[[ToolInvocationInput, dict[str, Any]], str] | None = None,
    request: ToolInvocationInput | None = None,
    normalizer: Any = None,
    authenticator: Any = None,
    authorizer: Any = None,
    candidate_emitter: Any = None,
    event_recorder: Any = None,
) -> PreparedToolInvocation:
    """Validate, authorise and persist a draft without executing anything.

    Events: ``tool.requested → tool.validated → tool.authn.passed → tool.authz.passed →
    action.candidate_emitted`` then, for write effects, ``tool.preflight.computed`` and
    ``tool.draft_created`` (as Noēsis: read effects get neither), then ``tool.approval.pending``
    when approval is required. The record is saved before ``tool.draft_created``. Failures:
    ``tool.rejected.invalid`` / ``tool.authn.failed`` / ``tool.authz.denied`` ``{reason_code}``,
    then the error is raised; nothing is written.

    The call to prepare: ``invocation`` (positional) or ``request=`` (Noēsis). Events go to
    ``emit`` or ``event_recorder``. Validation: ``dispatcher.normalize`` (default: the built-in
    protocol handlers) or ``normalizer``, whose result must be JSON data. Other ports, each a
    plain callable or a Noēsis-style object: ``authn``/``authenticator`` (``authenticate(*,
    security) -> SecurityContext|None``), ``authz``/``authorizer`` (``authorize(*, request,
    security)``; raise or return False to deny), ``preflight`` (``compute(*, invocation) ->
    PreflightBinding|None``; default ``default_preflight``, write effects only), and
    ``emit_candidate(invocation, redacted_payload)`` or ``candidate_emitter.emit_candidate(*,
    request, normalized_payload, candidate_id)`` returning the candidate id. The candidate
    emitter sees the stored, secret-free normalised payload, not the raw values.
    """
    fn = "prepare_tool_invocation"
    inv: ToolInvocationInput = _one(fn, "invocation", invocation, "request", request, required=True)
    _one(fn, "emit", emit, "event_recorder", event_recorder, required=True)
    emit = emit if emit is not None else recorder_emit(event_recorder, inv.run_id)
    authn = _one(fn, "authn", authn, "authenticator", authenticator)
    authz = _one(fn, "authz", authz, "authorizer", authorizer)
    _one(fn, "emit_candidate", emit_candidate, "candidate_emitter", candidate_emitter)
    _one(fn, "dispatcher", dispatcher, "normalizer", normalizer)

    rid = inv.request_id
    draft_id = check_id(inv.effective_draft_id)
    emit(events.TOOL_REQUESTED, rid, protocol=inv.protocol.value, tool=inv.tool.name)
    try:
        normalized = _normalize(inv, dispatcher, normalizer)
        if inv.protocol is ToolProtocol.PYTHON and normalizer is None and not callable(inv.func):
            raise CallableResolutionError("a python tool call needs the function: ToolInvocationInput(func=...).")
    except ToolContractError as exc:
        emit(events.TOOL_REJECTED_INVALID, rid, reason_code=exc.reason_code)
        raise
    emit(events.TOOL_VALIDATED, rid, field_count=len(normalized))
    security = authenticate(port_method(authn, "authenticate"), inv, emit)
    emit(events.TOOL_AUTHN_PASSED, rid, principal_id=security.principal_id)
    authorize(port_method(authz, "authorize"), inv, security, emit)
    emit(events.TOOL_AUTHZ_PASSED, rid, policy_scope=security.policy_scope)

    evidence = build_payload_evidence(normalized, inv.redaction_policy, secrets=secrets_for_run(_scope(prepared_repository)))
    candidate_id = _candidate_id(inv, evidence, emit_candidate, candidate_emitter)
    emit(events.ACTION_CANDIDATE_EMITTED, rid, candidate_id=candidate_id)
    governance = inv.governance.model_copy(update={"candidate_id": candidate_id})
    prepared = PreparedToolInvocation(
        run_id=inv.run_id,
        request_id=rid,
        protocol=inv.protocol,
        tool=inv.tool,
        payload=evidence,
        execution=inv.execution,
        security=security,
        governance=governance,
        draft_id=draft_id,
        status=PreparedInvocationStatus.PENDING_APPROVAL if governance.requires_approval else PreparedInvocationStatus.PREPARED,
    )
    if inv.protocol is ToolProtocol.PYTHON and inv.func is not None:
        prepared = prepared.model_copy(update={"x_callable": callable_reference(inv.func)})
    write = governance.effect_kind is EffectKind.WRITE
    if write:
        binding = call_port(port_method(preflight, "compute") or default_preflight, invocation=prepared)
        if binding is not None:
            prepared = prepared.model_copy(update={"preflight": binding})
            emit(events.TOOL_PREFLIGHT_COMPUTED, rid, impact_hash=binding.impact_hash)
    _vault(prepared_repository).put(
        _scope(prepared_repository), draft_id, VaultEntry(evidence.request_fingerprint, normalized, inv.func)
    )
    prepared_repository.save(prepared)  # on disk before any event announces the draft
    if write:
        emit(events.TOOL_DRAFT_CREATED, rid, draft_id=draft_id)
    if governance.requires_approval:
        emit(
            events.TOOL_APPROVAL_PENDING,
            rid,
            draft_id=draft_id,
            candidate_id=candidate_id,
            reason_code=codes.GOVERNANCE_APPROVAL_REQUIRED,
        )
    return prepared


def _normalize(inv: ToolInvocationInput, dispatcher: ToolDispatcher | None, normalizer: Any) -> dict[str, Any]:
    if normalizer is None:
        return (dispatcher or ToolDispatcher()).normalize(inv.protocol, inv.payload)
    out = call_port(
        _required(port_method(normalizer, "validate_and_normalize"), "normalizer"),
        protocol=inv.protocol,
        tool=inv.tool,
        payload=copy.deepcopy(inv.payload),
    )
    if not isinstance(out, Mapping):
        raise InvalidToolPayloadError(
            f"the normalizer returned {type(out).__name__}, not a mapping; "
            "validate_and_normalize must return the normalised payload as a dict."
        )
    return as_json_data(dict(out), "normalized payload")


def _candidate_id(inv: ToolInvocationInput, evidence: Any, emit_candidate: Any, candidate_emitter: Any) -> str:
    given = inv.governance.candidate_id
    got = None
    if candidate_emitter is not None:
        got = call_port(
            _required(port_method(candidate_emitter, "emit_candidate"), "candidate_emitter"),
            request=inv,
            normalized_payload=copy.deepcopy(evidence.normalized_payload),
            candidate_id=given,
        )
    elif emit_candidate is not None:
        got = emit_candidate(inv, copy.deepcopy(evidence.redacted_payload))
    return got or given or default_candidate_id(inv.run_id, inv.request_id, evidence.request_fingerprint)


def _required(method: Callable[..., Any] | None, name: str) -> Callable[..., Any]:
    if method is None:
        raise TypeError(f"{name}= is neither a callable nor an object with the port's method")
    return method
