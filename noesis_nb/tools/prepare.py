"""``prepare_tool_invocation``: validate, authorise, redact and persist a draft, executing nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from noesis_nb._jsonio import canonical_json
from noesis_nb.secrets import for_run as secrets_for_run

from . import codes, events
from ._files import check_id
from ._usecase_ports import Emit, PreparePorts, _scope, _vault, prepare_ports
from .callable_seal import sealed_reference
from .errors import CallableResolutionError, ToolContractError
from .fingerprints import default_candidate_id
from .payload_seal import payload_seal
from .ports import authenticate, authorize, call_port
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
    hold: bool = False,
) -> PreparedToolInvocation:
    """Validate, authorise and persist a draft without executing anything.

    Events: ``tool.requested → tool.validated → tool.authn.passed → tool.authz.passed →
    action.candidate_emitted`` then, for write effects, ``tool.preflight.computed`` and
    ``tool.draft_created`` (as Noēsis: read effects get neither), then ``tool.approval.pending``
    when approval is required. The record is saved before ``tool.draft_created``. Failures:
    ``tool.rejected.invalid`` / ``tool.authn.failed`` / ``tool.authz.denied`` ``{reason_code}``,
    then the error is raised; nothing is written.

    Each port is taken under its noesis_nb or its Noēsis name (the table is in ``usecases``) and
    may be a plain callable or a Noēsis-style object; ``authn``/``authz`` default to allow-all and
    ``preflight`` to ``default_preflight`` (write effects only). The candidate emitter sees the
    stored, secret-free payload, not the raw values.

    ``hold`` (an addition): a draft that needs approval while its run is paused on another one is saved held
    (``prepared``, its approval still required: ``tools.awaiting``) rather than ``pending_approval``, so the run never
    has two pending records, not even for an instant; its ``tool.approval.pending`` is emitted all the same.
    """
    inv, ports = prepare_ports(
        invocation=invocation,
        request=request,
        prepared_repository=prepared_repository,
        emit=emit,
        event_recorder=event_recorder,
        preflight=preflight,
        authn=authn,
        authenticator=authenticator,
        authz=authz,
        authorizer=authorizer,
        dispatcher=dispatcher,
        normalizer=normalizer,
        emit_candidate=emit_candidate,
        candidate_emitter=candidate_emitter,
    )
    return prepare(inv, ports, hold=hold)


def prepare(inv: ToolInvocationInput, ports: PreparePorts, *, hold: bool = False) -> PreparedToolInvocation:
    """``prepare_tool_invocation`` with its ports already translated (``PreparePorts``)."""
    emit, prepared_repository = ports.emit, ports.repository
    rid = inv.request_id
    draft_id = check_id(inv.effective_draft_id)
    # the tool's name says which tool runs: no value the run learned is hidden in it (``RunSecrets.name_shown``)
    secrets = secrets_for_run(_scope(prepared_repository))
    secrets.name_shown(inv.tool.key)
    emit(events.TOOL_REQUESTED, rid, protocol=inv.protocol.value, tool=inv.tool.name)
    try:
        normalized = ports.normalize(inv)
        if inv.protocol is ToolProtocol.PYTHON and not ports.custom_normalizer and not callable(inv.func):
            raise CallableResolutionError("a python tool call needs the function: ToolInvocationInput(func=...).")
    except ToolContractError as exc:
        emit(events.TOOL_REJECTED_INVALID, rid, reason_code=exc.reason_code)
        raise
    emit(events.TOOL_VALIDATED, rid, field_count=len(normalized))
    security = authenticate(ports.authenticate, inv, emit)
    emit(events.TOOL_AUTHN_PASSED, rid, principal_id=security.principal_id)
    authorize(ports.authorize, inv, security, emit)
    emit(events.TOOL_AUTHZ_PASSED, rid, policy_scope=security.policy_scope)

    evidence = build_payload_evidence(normalized, inv.redaction_policy, secrets=secrets)
    candidate_id = (
        ports.candidate(inv, evidence)
        or inv.governance.candidate_id
        or default_candidate_id(inv.run_id, inv.request_id, evidence.request_fingerprint)
    )
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
        status=(
            PreparedInvocationStatus.PENDING_APPROVAL
            if governance.requires_approval and not hold
            else PreparedInvocationStatus.PREPARED
        ),
    )
    if canonical_json(normalized) != canonical_json(evidence.normalized_payload):  # a secret was redacted
        prepared = prepared.model_copy(update={"x_payload_seal": payload_seal(inv.run_id, normalized)})
    if inv.protocol is ToolProtocol.PYTHON and inv.func is not None:
        ref = sealed_reference(prepared.run_id, prepared.key, callable_reference(inv.func))
        prepared = prepared.model_copy(update={"x_callable": ref})
    write = governance.effect_kind is EffectKind.WRITE
    if write:
        binding = call_port(ports.preflight, invocation=prepared)
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
