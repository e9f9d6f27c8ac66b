"""Pydantic models and enums of the Noēsis tool contract (``tool_contract/1.0.0``).

Field names and enum values are the Noēsis ones, so ``record()`` gives the JSON Noēsis
writes under ``tool_invocations/``. Records accept unknown keys (``extra="allow"``) because
other programs may add extension keys; enums serialise to their string values.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator
from ulid import ULID

from .._safetext import cut_free_text
from . import codes
from .errors import IdempotencyConflictError, ToolExecutionFailedError
from .names import check_tool_identity

__all__ = [
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
]

TOOL_CONTRACT_SCHEMA_VERSION = "tool_contract/1.0.0"


class ToolProtocol(str, Enum):
    SUBPROCESS = "subprocess"
    HTTP = "http"
    MCP = "mcp"
    PYTHON = "python"  # noesis_nb: an in-process callable (not a Noēsis protocol)


class EffectKind(str, Enum):
    READ = "read"
    WRITE = "write"


class RiskTier(str, Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class PreparedInvocationStatus(str, Enum):
    PREPARED = "prepared"
    PENDING_APPROVAL = "pending_approval"
    APPROVED = "approved"


class ApprovalDecisionStatus(str, Enum):
    APPROVED = "approved"
    REJECTED = "rejected"


class ExecutionStatus(str, Enum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    REPLAYED = "replayed"


class IdempotencyDecision(str, Enum):
    NEW = "new"
    REPLAY = "replay"
    CONFLICT = "conflict"


def default_draft_id(run_id: str, request_id: str) -> str:
    return f"draft:{run_id}:{request_id}"


def default_decision_id(draft_id: str) -> str:
    return f"approval:{draft_id}"


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True)


class _Record(BaseModel):
    """A top-level record file: frozen, keeps unknown keys, dumps by alias."""

    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=True)
    _omit_when_none: ClassVar[tuple[str, ...]] = ()

    def record(self) -> dict[str, Any]:
        """The JSON document for disk or events (extension keys left out when unset)."""
        data = self.model_dump(mode="json", by_alias=True)
        for key in self._omit_when_none:
            if data.get(key) is None:
                data.pop(key, None)
        return data


class ToolIdentity(_Part):
    namespace: str = Field(min_length=1)
    name: str = Field(min_length=1)
    version: str | None = None

    @property
    def key(self) -> str:
        """Display key ``namespace.name@version`` (no ``@`` part without a version)."""
        base = f"{self.namespace}.{self.name}"
        return f"{base}@{self.version}" if self.version else base

    def tool_key(self, protocol: ToolProtocol | str) -> str:
        """Noēsis idempotency key: dot-joined non-empty protocol, namespace, name, version."""
        proto = protocol.value if isinstance(protocol, ToolProtocol) else str(protocol)
        return ".".join(p for p in (proto, self.namespace, self.name, self.version or "") if p)


class ExecutionContext(_Part):
    timeout_ms: int = 30_000
    retry_limit: int = Field(default=0, ge=0)
    idempotency_key: str | None = None


class SecurityContext(_Part):
    principal_id: str = Field(min_length=1)
    scopes: tuple[str, ...] = ()
    policy_scope: str = "default"
    authn_method: str | None = None
    credential_ref: str | None = None


class GovernanceContext(_Part):
    effect_kind: EffectKind
    risk_tier: RiskTier
    candidate_id: str | None = None
    requires_approval: bool = False
    tags: tuple[str, ...] = ()


class PayloadRedactionPolicy(_Part):
    """Fields (top-level keys or dotted paths such as ``env.API_KEY``) to redact or hash."""

    redact_fields: tuple[str, ...] = ()
    hash_fields: tuple[str, ...] = ()


class PayloadEvidence(_Part):
    normalized_payload: dict[str, Any]
    redacted_payload: dict[str, Any]
    request_fingerprint: str
    redaction_applied: bool


class PreflightBinding(_Part):
    impact_hash: str
    witness: dict[str, Any] | None = None


class CallableRef(_Part):
    """Import reference ``module:qualname`` of a ``python`` tool and whether it re-imports."""

    ref: str
    importable: bool
    seal: str | None = None  # HMAC under the user's seal key (``callable_seal``): imported only when it holds


class ToolInvocationInput(BaseModel):
    """A tool call to prepare. ``func`` is the callable of the ``python`` protocol (never stored)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, populate_by_name=True)

    run_id: str = Field(min_length=1)
    request_id: str = Field(default_factory=lambda: f"req_{ULID()}", min_length=1)
    protocol: ToolProtocol
    tool: ToolIdentity
    payload: dict[str, Any] = Field(validation_alias=AliasChoices("payload", "raw_payload"))
    execution: ExecutionContext = Field(default_factory=ExecutionContext)
    security: SecurityContext = Field(default_factory=lambda: SecurityContext(principal_id="notebook"))
    governance: GovernanceContext
    redaction_policy: PayloadRedactionPolicy | None = None
    draft_id: str | None = None
    func: Callable[..., Any] | None = Field(default=None, exclude=True)

    @field_validator("tool")
    @classmethod
    def _recordable_tool(cls, tool: ToolIdentity) -> ToolIdentity:
        """A tool about to be prepared has a name its candidate's kind and file names can hold (``names``), the
        rule ``ctx.tool`` applies; a ``ToolIdentity`` read back from another program's record is not judged."""
        check_tool_identity(tool.namespace, tool.name, tool.version)
        return tool

    @property
    def effective_draft_id(self) -> str:
        return self.draft_id or default_draft_id(self.run_id, self.request_id)

    @property
    def raw_payload(self) -> dict[str, Any]:
        """The Noēsis field name of ``payload`` (what ports written for Noēsis read)."""
        return self.payload


class PreparedToolInvocation(_Record):
    """``tool_invocations/prepared/<draft_id>.json``; ``x-callable`` and ``x-payload_seal`` are noesis_nb extensions.

    ``x-payload_seal`` (``payload_seal``) binds the real payload when redaction changed it; none otherwise."""

    _omit_when_none = ("x-callable", "x-payload_seal")

    run_id: str
    request_id: str
    protocol: ToolProtocol
    tool: ToolIdentity
    payload: PayloadEvidence
    execution: ExecutionContext
    security: SecurityContext
    governance: GovernanceContext
    status: PreparedInvocationStatus
    schema_version: str = TOOL_CONTRACT_SCHEMA_VERSION
    draft_id: str | None = None
    preflight: PreflightBinding | None = None
    x_callable: CallableRef | None = Field(default=None, alias="x-callable")
    x_payload_seal: str | None = Field(default=None, alias="x-payload_seal")

    @property
    def key(self) -> str:
        """The file key Noēsis uses: ``draft_id``, else ``request_id``."""
        return self.draft_id or self.request_id


class ToolApprovalDecision(_Record):
    """``tool_invocations/approvals/<draft_id>.json``; ``reason``/``decided_at`` are extensions."""

    _omit_when_none = ("reason", "decided_at")

    decision_id: str
    run_id: str
    request_id: str
    candidate_id: str | None = None
    draft_id: str | None = None
    status: ApprovalDecisionStatus
    schema_version: str = TOOL_CONTRACT_SCHEMA_VERSION
    reason_code: str | None = None
    reviewed_fingerprint: str | None = None
    impact_hash: str | None = None
    approver_id: str | None = None
    approval_token_ref: str | None = None
    reason: str | None = None
    decided_at: str | None = None

    @field_validator("reason")
    @classmethod
    def _reason_cut(cls, value: str | None) -> str | None:
        """A reason is at most ``MAX_FREE_TEXT`` characters (README): a decision file any program wrote is taken with
        a longer one cut (``cut_free_text``), as every reader takes it, never carried whole into the run's events."""
        return cut_free_text(value) if isinstance(value, str) else value


class ToolExecutionResult(_Record):
    """Outcome of executing a draft. ``already_executed`` is in-memory only (never stored)."""

    request_id: str
    execution_id: str
    status: ExecutionStatus
    schema_version: str = TOOL_CONTRACT_SCHEMA_VERSION
    reason_code: str | None = None
    output: dict[str, Any] | None = None
    replayed_from_execution_id: str | None = None
    preflight: PreflightBinding | None = None
    already_executed: bool = Field(default=False, exclude=True)

    @property
    def ok(self) -> bool:
        return self.status is not ExecutionStatus.FAILED

    def raise_for_status(self) -> ToolExecutionResult:
        """Return self, or raise IdempotencyConflictError / ToolExecutionFailedError when failed."""
        if self.ok:
            return self
        if self.reason_code == codes.IDEMPOTENCY_CONFLICT:
            raise IdempotencyConflictError(
                f"execution {self.execution_id!r} was refused: its idempotency key was already used with a "
                "different payload. Use a new idempotency_key, or send the original payload to replay it."
            )
        raise ToolExecutionFailedError(
            f"execution {self.execution_id!r} failed with {self.reason_code!r}; see result.output for details.",
            reason_code=self.reason_code,
            result=self,
        )


class IdempotencyEvaluation(_Part):
    decision: IdempotencyDecision
    fingerprint: str
    replayed_execution_id: str | None = None
    output: dict[str, Any] | None = None
