"""Tool-contract errors: the Noēsis class names, each carrying a Noēsis reason code.

    NoesisNbError
    └── ToolContractError (also RuntimeError)                 tool.adapter_error
        ├── InvalidToolPayloadError (also ValueError)         tool.invalid_payload
        │   └── UnknownToolFieldError                         tool.unknown_field
        ├── UnsupportedToolProtocolError                      tool.unsupported_protocol
        ├── CallableResolutionError                           tool.unsupported_tool
        ├── ToolAuthenticationError                           authn.failed
        ├── ToolAuthorizationError                            authz.denied
        ├── PreparedToolInvocationNotFoundError (+ DraftNotFoundError)   precondition.failed
        ├── AmbiguousPreparedToolInvocationError (+ AmbiguousDraftError) precondition.failed
        ├── ApprovalDecisionRequiredError                     governance.approval_required
        │   └── ApprovalRejectedError                         governance.vetoed
        ├── ApprovalDecisionBindingError                      preflight.mismatch
        ├── IdempotencyConflictError                          idempotency.conflict
        ├── ToolExecutionFailedError                          (the result's reason code)
        ├── SecretUnavailableError                            precondition.failed
        ├── PayloadIntegrityError                             precondition.failed
        ├── ExecutionInProgressError                          precondition.failed
        └── ToolRecordError (also ValueError)                 precondition.failed

Names outside Noēsis' ``tool_contract/errors.py`` (the payload, callable, secret,
integrity, in-progress, record and execution-failed classes) are noesis_nb additions.
"""

from __future__ import annotations

from typing import Any, ClassVar

from noesis_nb.errors import AmbiguousDraftError, DraftNotFoundError, NoesisNbError

from . import codes

__all__ = [
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
    "ToolRecordError",
]


class ToolContractError(NoesisNbError, RuntimeError):
    """Base of every tool-contract error; ``reason_code`` is a Noēsis reason code."""

    default_reason_code: ClassVar[str] = codes.TOOL_ADAPTER_ERROR

    def __init__(self, message: str, *, reason_code: str | None = None):
        self.reason_code = reason_code or self.default_reason_code
        super().__init__(message)


class InvalidToolPayloadError(ToolContractError, ValueError):
    default_reason_code = codes.TOOL_INVALID_PAYLOAD


class UnknownToolFieldError(InvalidToolPayloadError):
    """A payload key the protocol does not know; ``fields`` lists them."""

    default_reason_code = codes.TOOL_UNKNOWN_FIELD

    def __init__(self, message: str, *, fields: tuple[str, ...] = ()):
        self.fields = fields
        super().__init__(message)


class UnsupportedToolProtocolError(ToolContractError):
    default_reason_code = codes.TOOL_UNSUPPORTED_PROTOCOL


class CallableResolutionError(ToolContractError):
    """The in-process callable of a ``python`` draft cannot be found or is not the reviewed one."""

    default_reason_code = codes.TOOL_UNSUPPORTED_TOOL


class UnsealedCallableError(CallableResolutionError):
    """A draft's stored function name is not the one noesis_nb stored under the user's seal key: not imported."""


class ToolAuthenticationError(ToolContractError):
    default_reason_code = codes.AUTHN_FAILED


class ToolAuthorizationError(ToolContractError):
    default_reason_code = codes.AUTHZ_DENIED


class PreparedToolInvocationNotFoundError(ToolContractError, DraftNotFoundError):
    default_reason_code = codes.PRECONDITION_FAILED


class AmbiguousPreparedToolInvocationError(ToolContractError, AmbiguousDraftError):
    default_reason_code = codes.PRECONDITION_FAILED


class ApprovalDecisionRequiredError(ToolContractError):
    default_reason_code = codes.GOVERNANCE_APPROVAL_REQUIRED


class ApprovalRejectedError(ApprovalDecisionRequiredError):
    """The draft's decision is ``rejected``; ``decision`` is the ToolApprovalDecision."""

    default_reason_code = codes.GOVERNANCE_VETOED

    def __init__(self, message: str, *, decision: Any = None):
        self.decision = decision
        super().__init__(message)


class ApprovalDecisionBindingError(ToolContractError):
    default_reason_code = codes.PREFLIGHT_MISMATCH


class IdempotencyConflictError(ToolContractError):
    """Raised by ``ToolExecutionResult.raise_for_status`` for an idempotency conflict."""

    default_reason_code = codes.IDEMPOTENCY_CONFLICT


class ToolExecutionFailedError(ToolContractError):
    """Raised by ``ToolExecutionResult.raise_for_status``; ``result`` is the failed result."""

    def __init__(self, message: str, *, reason_code: str | None = None, result: Any = None):
        self.result = result
        super().__init__(message, reason_code=reason_code)


class SecretUnavailableError(ToolContractError):
    default_reason_code = codes.PRECONDITION_FAILED


class PayloadIntegrityError(ToolContractError):
    default_reason_code = codes.PRECONDITION_FAILED


class ExecutionInProgressError(ToolContractError):
    default_reason_code = codes.PRECONDITION_FAILED


class ToolOutcomeUnknownError(ToolContractError):
    """A draft was dispatched by a process that stopped before recording the result.

    Its effects may or may not have happened, so it is never run again silently:
    ``resume_run(…, unknown_outcome="retry")`` runs it again, ``"fail"`` records it as failed.
    """

    default_reason_code = codes.PRECONDITION_FAILED


class ToolRecordError(ToolContractError, ValueError):
    """A ``tool_invocations/`` file that is not valid JSON or not a valid record."""

    default_reason_code = codes.PRECONDITION_FAILED
