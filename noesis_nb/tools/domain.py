"""``noesis.domain.tool_contract`` for noesis_nb: the contract's models, enums, errors and helpers.

Code written for Noēsis changes ``from noesis.domain.tool_contract import ...`` to
``from noesis_nb.tools.domain import ...`` (or ``from noesis_nb.tools import ...``). Every
Noēsis name noesis_nb implements is here; ``canonical_json``, ``fingerprint_prepared_invocation``,
``IdempotencyScope`` and ``evaluate_idempotency`` are not implemented.
"""

from __future__ import annotations

from .codes import ALL_REASON_CODES
from .errors import (
    ApprovalDecisionBindingError,
    ApprovalDecisionRequiredError,
    PreparedToolInvocationNotFoundError,
    ToolAuthenticationError,
    ToolAuthorizationError,
    ToolContractError,
)
from .events import ALL_EVENT_NAMES
from .fingerprints import request_fingerprint
from .redaction import REDACTED_VALUE, apply_redaction, build_payload_evidence
from .types import (
    TOOL_CONTRACT_SCHEMA_VERSION,
    ApprovalDecisionStatus,
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
    ToolProtocol,
)

fingerprint_payload = request_fingerprint  # same algorithm: "sha256:" + sha256 of canonical JSON

__all__ = [
    "ALL_EVENT_NAMES",
    "ALL_REASON_CODES",
    "ApprovalDecisionBindingError",
    "ApprovalDecisionRequiredError",
    "ApprovalDecisionStatus",
    "EffectKind",
    "ExecutionContext",
    "ExecutionStatus",
    "GovernanceContext",
    "IdempotencyDecision",
    "IdempotencyEvaluation",
    "PayloadEvidence",
    "PayloadRedactionPolicy",
    "PreflightBinding",
    "PreparedToolInvocationNotFoundError",
    "PreparedInvocationStatus",
    "PreparedToolInvocation",
    "REDACTED_VALUE",
    "RiskTier",
    "SecurityContext",
    "TOOL_CONTRACT_SCHEMA_VERSION",
    "ToolAuthenticationError",
    "ToolApprovalDecision",
    "ToolAuthorizationError",
    "ToolContractError",
    "ToolExecutionResult",
    "ToolIdentity",
    "ToolProtocol",
    "apply_redaction",
    "build_payload_evidence",
    "fingerprint_payload",
]
