"""The Noēsis tool contract (ADR-016) for noesis_nb: prepare a tool call as a draft, get it
approved, execute it at most once, with evidence under ``<run_dir>/tool_invocations/``.

    prepared = prepare_tool_invocation(ToolInvocationInput(...), prepared_repository=..., emit=...)
    decision, created = decide(run_dir, prepared.draft_id, approve=True, approver_id="ana")
    result = await execute_prepared_tool_invocation(run_id=..., draft_id=..., ...)
"""

from . import codes, events
from .decisions import decide
from .errors import (AmbiguousPreparedToolInvocationError, ApprovalDecisionBindingError, ApprovalDecisionRequiredError,
                     ApprovalRejectedError, CallableResolutionError, ExecutionInProgressError, IdempotencyConflictError,
                     InvalidToolPayloadError, PayloadIntegrityError, PreparedToolInvocationNotFoundError,
                     SecretUnavailableError, ToolAuthenticationError, ToolAuthorizationError, ToolContractError,
                     ToolExecutionFailedError, ToolRecordError, UnknownToolFieldError, UnsupportedToolProtocolError)
from .fingerprints import default_impact_hash, default_preflight, request_fingerprint, tool_key
from .protocols import (ProtocolHandler, PythonCallableProtocol, SubprocessProtocol, ToolDispatcher,
                        callable_reference, render_command_line)
from .redaction import REDACTED_VALUE, apply_redaction, build_payload_evidence, is_secret_key, redact_secrets
from .repositories import (ApprovalDecisionRepository, ExecutionRepository, IdempotencyRepository,
                           PreparedInvocationRepository, resolve_draft_id)
from .types import (TOOL_CONTRACT_SCHEMA_VERSION, ApprovalDecisionStatus, CallableRef, EffectKind, ExecutionContext,
                    ExecutionStatus, GovernanceContext, IdempotencyDecision, IdempotencyEvaluation, PayloadEvidence,
                    PayloadRedactionPolicy, PreflightBinding, PreparedInvocationStatus, PreparedToolInvocation, RiskTier,
                    SecurityContext, ToolApprovalDecision, ToolExecutionResult, ToolIdentity, ToolInvocationInput,
                    ToolProtocol, default_decision_id, default_draft_id)
from .usecases import Emit, execute_prepared_tool_invocation, prepare_tool_invocation
from .vault import PROCESS_VAULT, DispatchVault

__all__ = [
    # use cases
    "prepare_tool_invocation", "execute_prepared_tool_invocation", "decide", "resolve_draft_id", "Emit",
    # models and enums
    "TOOL_CONTRACT_SCHEMA_VERSION", "ToolProtocol", "EffectKind", "RiskTier", "PreparedInvocationStatus",
    "ApprovalDecisionStatus", "ExecutionStatus", "IdempotencyDecision", "ToolIdentity", "ExecutionContext",
    "SecurityContext", "GovernanceContext", "PayloadRedactionPolicy", "PayloadEvidence", "PreflightBinding",
    "CallableRef", "ToolInvocationInput", "PreparedToolInvocation", "ToolApprovalDecision", "ToolExecutionResult",
    "IdempotencyEvaluation", "default_draft_id", "default_decision_id",
    # fingerprints and redaction
    "request_fingerprint", "tool_key", "default_impact_hash", "default_preflight", "REDACTED_VALUE",
    "is_secret_key", "redact_secrets", "apply_redaction", "build_payload_evidence",
    # storage
    "PreparedInvocationRepository", "ApprovalDecisionRepository", "IdempotencyRepository", "ExecutionRepository",
    "DispatchVault", "PROCESS_VAULT",
    # protocols
    "ToolDispatcher", "ProtocolHandler", "SubprocessProtocol", "PythonCallableProtocol", "render_command_line",
    "callable_reference", "codes", "events",
    # errors
    "ToolContractError", "InvalidToolPayloadError", "UnknownToolFieldError", "UnsupportedToolProtocolError",
    "CallableResolutionError", "ToolAuthenticationError", "ToolAuthorizationError",
    "PreparedToolInvocationNotFoundError", "AmbiguousPreparedToolInvocationError", "ApprovalDecisionRequiredError",
    "ApprovalRejectedError", "ApprovalDecisionBindingError", "IdempotencyConflictError", "ToolExecutionFailedError",
    "SecretUnavailableError", "PayloadIntegrityError", "ExecutionInProgressError", "ToolRecordError",
]
