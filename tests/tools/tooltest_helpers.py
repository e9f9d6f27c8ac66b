"""Helpers for the tool-contract tests: an event recorder, a harness, input builders."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noesis_nb.tools import (
    ApprovalDecisionRepository,
    EffectKind,
    ExecutionContext,
    GovernanceContext,
    IdempotencyRepository,
    PreparedInvocationRepository,
    RiskTier,
    SecurityContext,
    ToolDispatcher,
    ToolIdentity,
    ToolInvocationInput,
    ToolProtocol,
    execute_prepared_tool_invocation_async,
    prepare_tool_invocation,
)

RUN_ID = "ep_test"


@dataclass
class Recorder:
    """The ``emit`` port: keeps (event_name, request_id, extra) like the runtime's tool events."""

    events: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)

    def __call__(self, name: str, request_id: str, **extra: Any) -> str:
        self.events.append((name, request_id, extra))
        return f"evt-{len(self.events)}"

    @property
    def names(self) -> list[str]:
        return [name for name, _, _ in self.events]

    def payloads(self) -> list[dict[str, Any]]:
        return [{"event_name": n, "request_id": r, **x} for n, r, x in self.events]

    def clear(self) -> None:
        self.events.clear()


@dataclass
class Harness:
    run_dir: Path
    emit: Recorder
    prepared: PreparedInvocationRepository
    approvals: ApprovalDecisionRepository
    idempotency: IdempotencyRepository
    dispatcher: ToolDispatcher

    def prepare(self, invocation: ToolInvocationInput, **kw: Any):
        return prepare_tool_invocation(invocation, prepared_repository=self.prepared, emit=self.emit, **kw)

    def execute(self, draft_id: str, **kw: Any):
        return asyncio.run(
            execute_prepared_tool_invocation_async(
                run_id=RUN_ID,
                draft_id=draft_id,
                prepared_repository=self.prepared,
                approval_repository=self.approvals,
                idempotency_repository=self.idempotency,
                dispatcher=self.dispatcher,
                emit=self.emit,
                **kw,
            )
        )


def touch_argv(path: Path, text: str = "x") -> list[str]:
    """argv of a subprocess that appends ``text`` to ``path`` (one line per run)."""
    code = f"open({str(path)!r}, 'a').write({text!r} + '\\n')"
    return [sys.executable, "-c", code]


def sub_input(
    payload: dict,
    *,
    request_id: str = "req-1",
    write: bool = True,
    approval: bool = False,
    idempotency_key: str | None = None,
    principal: str = "ana",
    **kw: Any,
) -> ToolInvocationInput:
    return ToolInvocationInput(
        run_id=RUN_ID,
        request_id=request_id,
        protocol=ToolProtocol.SUBPROCESS,
        tool=ToolIdentity(namespace="repo", name="write_file", version="1"),
        payload=payload,
        execution=ExecutionContext(timeout_ms=20_000, retry_limit=0, idempotency_key=idempotency_key),
        security=SecurityContext(principal_id=principal, scopes=("repo:write",), policy_scope="repo"),
        governance=GovernanceContext(
            effect_kind=EffectKind.WRITE if write else EffectKind.READ,
            risk_tier=RiskTier.HIGH if approval else RiskTier.LOW,
            requires_approval=approval,
        ),
        **kw,
    )
