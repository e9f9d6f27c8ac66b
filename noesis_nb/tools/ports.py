"""Ports of the tool use cases: the Noēsis port protocols and the helpers that call them.

The ``typing.Protocol`` classes carry the names and keyword-only method signatures of Noēsis'
``noesis/usecases/tool_invocation/ports.py``, so an object written against Noēsis fits the
matching keyword of ``prepare_tool_invocation`` / ``execute_prepared_tool_invocation``:

    normalizer           ToolPayloadNormalizerPort         validate_and_normalize(*, protocol, tool, payload)
    authenticator        ToolAuthenticatorPort             authenticate(*, security) -> SecurityContext
    authorizer           ToolAuthorizerPort                authorize(*, request, security) -> None (raise to deny)
    candidate_emitter    ToolCandidateEmitterPort          emit_candidate(*, request, normalized_payload, candidate_id) -> str
    event_recorder       ToolEventRecorderPort             record(*, run_id, request_id, event_name, payload) -> None
    preflight            ToolPreflightPort                 compute(*, invocation) -> PreflightBinding | None
    prepared_repository  PreparedInvocationRepositoryPort  save(invocation); load(*, run_id, draft_id)
    approval_repository  ApprovalDecisionRepositoryPort    save(decision); load(*, run_id, draft_id)
    idempotency_store    IdempotencyStorePort              evaluate(*, invocation); record(*, invocation, result)
    dispatch             ToolDispatchPort                  execute(*, invocation) -> ToolExecutionResult

The file repositories of ``repositories.py`` implement the last four. Besides such objects,
``authn``/``authz``/``preflight`` also take plain callables; ``None`` means allow-all.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from . import events
from .errors import ToolAuthenticationError, ToolAuthorizationError
from .types import (
    IdempotencyEvaluation,
    PreflightBinding,
    PreparedToolInvocation,
    SecurityContext,
    ToolApprovalDecision,
    ToolExecutionResult,
    ToolIdentity,
    ToolInvocationInput,
    ToolProtocol,
)

__all__ = [
    "port_method",
    "call_port",
    "authenticate",
    "authorize",
    "ToolPayloadNormalizerPort",
    "ToolAuthenticatorPort",
    "ToolAuthorizerPort",
    "ToolCandidateEmitterPort",
    "ToolEventRecorderPort",
    "ToolPreflightPort",
    "PreparedInvocationRepositoryPort",
    "ApprovalDecisionRepositoryPort",
    "IdempotencyStorePort",
    "ToolDispatchPort",
    "PORT_PROTOCOLS",
]


@runtime_checkable
class ToolPayloadNormalizerPort(Protocol):
    """Validates a raw payload and returns its normalised form (raise InvalidToolPayloadError to reject)."""

    def validate_and_normalize(
        self, *, protocol: ToolProtocol, tool: ToolIdentity, payload: Mapping[str, Any]
    ) -> Mapping[str, Any]: ...


@runtime_checkable
class ToolAuthenticatorPort(Protocol):
    """Returns the authenticated (possibly enriched) security context; raise ToolAuthenticationError to fail."""

    def authenticate(self, *, security: SecurityContext) -> SecurityContext: ...


@runtime_checkable
class ToolAuthorizerPort(Protocol):
    """Raises ToolAuthorizationError to deny (noesis_nb also treats a ``False`` return as a denial)."""

    def authorize(self, *, request: ToolInvocationInput, security: SecurityContext) -> None: ...


@runtime_checkable
class ToolCandidateEmitterPort(Protocol):
    """Records the action candidate and returns its id. noesis_nb passes the secret-free stored
    ``normalized_payload`` (secrets and ``redact_fields`` replaced), never the raw values."""

    def emit_candidate(
        self, *, request: ToolInvocationInput, normalized_payload: Mapping[str, Any], candidate_id: str | None
    ) -> str: ...


@runtime_checkable
class ToolEventRecorderPort(Protocol):
    """Records one ``tool.*`` event; ``payload`` holds ids, names and hashes only."""

    def record(self, *, run_id: str, request_id: str, event_name: str, payload: Mapping[str, Any]) -> None: ...


@runtime_checkable
class ToolPreflightPort(Protocol):
    """Computes the impact binding of a write draft (called for write effects only)."""

    def compute(self, *, invocation: PreparedToolInvocation) -> PreflightBinding | None: ...


@runtime_checkable
class PreparedInvocationRepositoryPort(Protocol):
    def save(self, invocation: PreparedToolInvocation) -> Any: ...

    def load(self, *, run_id: str, draft_id: str) -> PreparedToolInvocation | None: ...


@runtime_checkable
class ApprovalDecisionRepositoryPort(Protocol):
    def save(self, decision: ToolApprovalDecision) -> Any: ...

    def load(self, *, run_id: str, draft_id: str) -> ToolApprovalDecision | None: ...


@runtime_checkable
class IdempotencyStorePort(Protocol):
    def evaluate(self, *, invocation: PreparedToolInvocation) -> IdempotencyEvaluation: ...

    def record(self, *, invocation: PreparedToolInvocation, result: ToolExecutionResult) -> None: ...


@runtime_checkable
class ToolDispatchPort(Protocol):
    """Crosses the side-effect boundary. ``invocation.payload.normalized_payload`` holds the real
    (unredacted) payload here; it is an in-memory view and is never persisted. May be ``async``."""

    def execute(self, *, invocation: PreparedToolInvocation) -> ToolExecutionResult: ...


PORT_PROTOCOLS = (
    ToolPayloadNormalizerPort,
    ToolAuthenticatorPort,
    ToolAuthorizerPort,
    ToolCandidateEmitterPort,
    ToolEventRecorderPort,
    ToolPreflightPort,
    PreparedInvocationRepositoryPort,
    ApprovalDecisionRepositoryPort,
    IdempotencyStorePort,
    ToolDispatchPort,
)


def port_method(port: Any, method: str) -> Callable[..., Any] | None:
    """A Noēsis-style port object's method, or the plain callable itself."""
    found: Callable[..., Any] | None = getattr(port, method) if port is not None and hasattr(port, method) else port
    return found


def call_port(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """Call a port by keyword when its signature has those names (Noēsis style), else positionally."""
    params: Mapping[str, inspect.Parameter]
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    by_name = all(k in params for k in kwargs) or any(p.kind is p.VAR_KEYWORD for p in params.values())
    return fn(**kwargs) if by_name else fn(*kwargs.values())


def authenticate(authn: Any, inv: ToolInvocationInput, emit: Callable[..., str]) -> SecurityContext:
    """The (possibly enriched) security context; emits ``tool.authn.failed`` before re-raising."""
    if authn is None:
        return inv.security
    try:
        security = call_port(authn, security=inv.security)
    except ToolAuthenticationError as exc:
        emit(events.TOOL_AUTHN_FAILED, inv.request_id, reason_code=exc.reason_code)
        raise
    return security or inv.security


def authorize(authz: Any, inv: ToolInvocationInput, security: SecurityContext, emit: Callable[..., str]) -> None:
    """Raise ToolAuthorizationError when denied (``False`` or a raise); emits ``tool.authz.denied``."""
    if authz is None:
        return
    try:
        allowed = call_port(authz, request=inv, security=security)
        if allowed is False:
            raise ToolAuthorizationError(
                f"principal {security.principal_id!r} may not call {inv.tool.key} in policy "
                f"scope {security.policy_scope!r}; grant it in the authz port or change the scope."
            )
    except ToolAuthorizationError as exc:
        emit(events.TOOL_AUTHZ_DENIED, inv.request_id, reason_code=exc.reason_code)
        raise
