"""The Noēsis tool contract (ADR-016) for noesis_nb: prepare a tool call as a draft, get it
approved, execute it at most once, with evidence under ``<run_dir>/tool_invocations/``.

    prepared = prepare_tool_invocation(ToolInvocationInput(...), prepared_repository=..., emit=...)
    decision, created = decide(run_dir, prepared.draft_id, approve=True, approver_id="ana")
    result = execute_prepared_tool_invocation(run_id=..., draft_id=..., ...)          # sync, as Noēsis
    result = await execute_prepared_tool_invocation_async(run_id=..., draft_id=..., ...)  # async code

Code written for Noēsis runs after changing only its imports:

    Noēsis                                        noesis_nb
    noesis.domain.tool_contract                   noesis_nb.tools.domain    (or noesis_nb.tools)
    noesis.usecases.tool_invocation               noesis_nb.tools.usecases  (or noesis_nb.tools)
    noesis.usecases.tool_invocation.ports         noesis_nb.tools.ports     (or noesis_nb.tools)

The use cases take each port under its Noēsis name or its noesis_nb name (the table is in
``usecases``; the port protocols in ``ports``). The file repositories implement the Noēsis
repository and idempotency-store ports. Differences:
``ToolProtocol.PYTHON`` and the ``x-callable``/``reason``/``decided_at`` keys are additions;
a write effect without a ``preflight`` port gets ``default_preflight``; secrets are redacted
before anything is stored, so the candidate emitter sees the stored (redacted) payload and only
the dispatch port sees real values; a draft executes at most once (``executions/``). A process
that did not prepare a draft gets its redacted values back through ``secrets=`` /
``supply_secrets`` (see ``secret_supply``).
"""

from . import codes, domain, events
from .decisions import decide
from .domain import ALL_EVENT_NAMES, ALL_REASON_CODES, fingerprint_payload
from .errors import (
    AmbiguousPreparedToolInvocationError,
    ApprovalDecisionBindingError,
    ApprovalDecisionRequiredError,
    ApprovalRejectedError,
    CallableResolutionError,
    ExecutionInProgressError,
    IdempotencyConflictError,
    InvalidToolPayloadError,
    PayloadIntegrityError,
    PreparedToolInvocationNotFoundError,
    SecretUnavailableError,
    ToolAuthenticationError,
    ToolAuthorizationError,
    ToolContractError,
    ToolExecutionFailedError,
    ToolOutcomeUnknownError,
    ToolRecordError,
    UnknownToolFieldError,
    UnsupportedToolProtocolError,
)
from .execute import require_secrets
from .fingerprints import (
    default_impact_hash,
    default_preflight,
    request_fingerprint,
    tool_key,
)
from .ports import (
    PORT_PROTOCOLS,
    ApprovalDecisionRepositoryPort,
    IdempotencyStorePort,
    PreparedInvocationRepositoryPort,
    ToolAuthenticatorPort,
    ToolAuthorizerPort,
    ToolCandidateEmitterPort,
    ToolDispatchPort,
    ToolEventRecorderPort,
    ToolPayloadNormalizerPort,
    ToolPreflightPort,
)
from .protocols import (
    ProtocolHandler,
    PythonCallableProtocol,
    SubprocessProtocol,
    ToolDispatcher,
    callable_reference,
    render_command_line,
)
from .redaction import (
    REDACTED_VALUE,
    apply_redaction,
    build_payload_evidence,
    is_secret_key,
    redact_secrets,
)
from .repositories import (
    ApprovalDecisionRepository,
    ExecutionRepository,
    IdempotencyRepository,
    PreparedInvocationRepository,
    resolve_draft_id,
)
from .secret_supply import secret_env_name, supply_secrets
from .types import (
    TOOL_CONTRACT_SCHEMA_VERSION,
    ApprovalDecisionStatus,
    CallableRef,
    EffectKind,
    ExecutionContext,
    ExecutionStatus,
    GovernanceContext,
    IdempotencyDecision,
    IdempotencyEvaluation,
    PayloadEvidence,
    PayloadRedactionPolicy,
    PreflightBinding,
    PreparedInvocationStatus,
    PreparedToolInvocation,
    RiskTier,
    SecurityContext,
    ToolApprovalDecision,
    ToolExecutionResult,
    ToolIdentity,
    ToolInvocationInput,
    ToolProtocol,
    default_decision_id,
    default_draft_id,
)
from .usecases import (
    Emit,
    execute_prepared_tool_invocation,
    execute_prepared_tool_invocation_async,
    prepare_tool_invocation,
    recorder_emit,
)
from .vault import PROCESS_VAULT, DispatchVault

__all__ = [
    # use cases
    "prepare_tool_invocation",
    "execute_prepared_tool_invocation",
    "execute_prepared_tool_invocation_async",
    "decide",
    "resolve_draft_id",
    "Emit",
    "recorder_emit",
    # Noēsis port protocols (typing.Protocol)
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
    # models and enums
    "TOOL_CONTRACT_SCHEMA_VERSION",
    "ToolProtocol",
    "EffectKind",
    "RiskTier",
    "PreparedInvocationStatus",
    "ApprovalDecisionStatus",
    "ExecutionStatus",
    "IdempotencyDecision",
    "ToolIdentity",
    "ExecutionContext",
    "SecurityContext",
    "GovernanceContext",
    "PayloadRedactionPolicy",
    "PayloadEvidence",
    "PreflightBinding",
    "CallableRef",
    "ToolInvocationInput",
    "PreparedToolInvocation",
    "ToolApprovalDecision",
    "ToolExecutionResult",
    "IdempotencyEvaluation",
    "default_draft_id",
    "default_decision_id",
    # fingerprints and redaction
    "request_fingerprint",
    "fingerprint_payload",
    "tool_key",
    "ALL_EVENT_NAMES",
    "ALL_REASON_CODES",
    "default_impact_hash",
    "default_preflight",
    "REDACTED_VALUE",
    "is_secret_key",
    "redact_secrets",
    "apply_redaction",
    "build_payload_evidence",
    "supply_secrets",
    "require_secrets",
    "secret_env_name",
    # storage
    "PreparedInvocationRepository",
    "ApprovalDecisionRepository",
    "IdempotencyRepository",
    "ExecutionRepository",
    "DispatchVault",
    "PROCESS_VAULT",
    # protocols
    "ToolDispatcher",
    "ProtocolHandler",
    "SubprocessProtocol",
    "PythonCallableProtocol",
    "render_command_line",
    "callable_reference",
    "codes",
    "events",
    "domain",
    # errors
    "ToolContractError",
    "InvalidToolPayloadError",
    "UnknownToolFieldError",
    "UnsupportedToolProtocolError",
    "CallableResolutionError",
    "ToolAuthenticationError",
    "ToolAuthorizationError",
    "PreparedToolInvocationNotFoundError",
    "AmbiguousPreparedToolInvocationError",
    "ApprovalDecisionRequiredError",
    "ApprovalRejectedError",
    "ApprovalDecisionBindingError",
    "IdempotencyConflictError",
    "ToolExecutionFailedError",
    "SecretUnavailableError",
    "PayloadIntegrityError",
    "ExecutionInProgressError",
    "ToolOutcomeUnknownError",
    "ToolRecordError",
]
