"""``execute_prepared_tool_invocation``: dispatch a prepared draft at most once, after approval and idempotency checks."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from noesis_nb._safetext import error_text
from noesis_nb._threads import run_in_thread, run_sync
from noesis_nb._unstarted import awaited_entry
from noesis_nb.secrets import SCAN_MARGIN, quoted, shown_cut
from noesis_nb.secrets import for_run as secrets_for_run

from . import codes, events
from ._usecase_ports import Emit, _coerce, _one, _scope, _vault, recorder_emit
from .errors import (
    ApprovalDecisionBindingError,
    ApprovalDecisionRequiredError,
    ApprovalRejectedError,
    ExecutionInProgressError,
    PreparedToolInvocationNotFoundError,
    ToolContractError,
)
from .material import dispatch_material as _dispatch_material
from .material import require_secrets
from .ports import port_method
from .protocols import ToolDispatcher, make_result
from .redaction import scrub
from .repositories import ExecutionRepository
from .types import (
    ApprovalDecisionStatus,
    ExecutionStatus,
    IdempotencyDecision,
    PreparedInvocationStatus,
    PreparedToolInvocation,
    ToolApprovalDecision,
    ToolExecutionResult,
)

__all__ = ["execute_prepared_tool_invocation", "execute_prepared_tool_invocation_async", "require_secrets"]


def _execution_ports(
    fn: str,
    run_id: str,
    idempotency_repository: Any,
    idempotency_store: Any,
    dispatcher: Any,
    dispatch: Any,
    emit: Any,
    event_recorder: Any,
) -> tuple[Any, Any, Any, Emit]:
    """(idempotency store, ToolDispatcher or None, dispatch port or None, emit) from either spelling."""
    idempotency = _one(
        fn, "idempotency_repository", idempotency_repository, "idempotency_store", idempotency_store, required=True
    )
    _one(fn, "dispatcher", dispatcher, "dispatch", dispatch, required=True)
    if isinstance(dispatch, ToolDispatcher):
        dispatcher, dispatch = dispatch, None
    _one(fn, "emit", emit, "event_recorder", event_recorder, required=True)
    return idempotency, dispatcher, dispatch, emit if emit is not None else recorder_emit(event_recorder, run_id)


def execute_prepared_tool_invocation(
    *,
    run_id: str,
    draft_id: str,
    prepared_repository: Any,
    approval_repository: Any,
    idempotency_store: Any = None,
    dispatch: Any = None,
    event_recorder: Any = None,
    idempotency_repository: Any = None,
    dispatcher: ToolDispatcher | None = None,
    emit: Emit | None = None,
    callables: Mapping[str, Callable[..., Any]] | None = None,
    decision: ToolApprovalDecision | None = None,
    execution_repository: ExecutionRepository | None = None,
    secrets: Mapping[str, Any] | None = None,
) -> ToolExecutionResult:
    """Execute a draft at most once (synchronous, as in Noēsis); see the ``_async`` variant.

    Accepts the Noēsis keywords (``idempotency_store``, ``dispatch``, ``event_recorder``) or the
    noesis_nb ones (``idempotency_repository``, ``dispatcher``, ``emit``). Without a running event
    loop in this thread the work runs here via ``asyncio.run``; with one (a notebook cell, async
    code) it runs on a worker thread with its own loop, in a copy of the caller's context, and
    this call blocks that loop until the tool finishes. In async code, ``await
    execute_prepared_tool_invocation_async(...)`` instead.
    """
    ports = _execution_ports(
        "execute_prepared_tool_invocation",
        run_id,
        idempotency_repository,
        idempotency_store,
        dispatcher,
        dispatch,
        emit,
        event_recorder,
    )

    return run_sync(
        _execute(
            run_id,
            draft_id,
            prepared_repository,
            approval_repository,
            *ports,
            callables,
            decision,
            execution_repository,
            offload=False,
            secrets=secrets,
        )
    )


@awaited_entry("execute_prepared_tool_invocation_async(…)")  # not awaited: the tool never runs, and it says so
async def execute_prepared_tool_invocation_async(
    *,
    run_id: str,
    draft_id: str,
    prepared_repository: Any,
    approval_repository: Any,
    idempotency_repository: Any = None,
    dispatcher: ToolDispatcher | None = None,
    emit: Emit | None = None,
    callables: Mapping[str, Callable[..., Any]] | None = None,
    decision: ToolApprovalDecision | None = None,
    execution_repository: ExecutionRepository | None = None,
    idempotency_store: Any = None,
    dispatch: Any = None,
    event_recorder: Any = None,
    secrets: Mapping[str, Any] | None = None,
) -> ToolExecutionResult:
    """Execute a draft at most once, after checking its approval binding and idempotency.

    A draft that already has an execution record is not dispatched again: its stored result
    comes back with ``already_executed=True`` and no event is emitted. Events: ``tool.approved``
    (approval-required drafts), then ``tool.execution.started → tool.execution.succeeded|failed``,
    or ``tool.replayed`` / ``tool.execution.failed`` (idempotency replay / conflict, no dispatch).
    ``decision`` overrides the stored approval; ``callables`` supplies ``python`` functions by
    draft id or reference. Sync ``dispatch`` ports run in a worker thread, async ones are awaited.
    ``secrets`` gives back, by payload path, values the stored draft has redacted, for a process that
    did not prepare it (see ``secret_supply``); without them that raises SecretUnavailableError.
    """
    ports = _execution_ports(
        "execute_prepared_tool_invocation_async",
        run_id,
        idempotency_repository,
        idempotency_store,
        dispatcher,
        dispatch,
        emit,
        event_recorder,
    )
    return await _execute(
        run_id,
        draft_id,
        prepared_repository,
        approval_repository,
        *ports,
        callables,
        decision,
        execution_repository,
        offload=True,
        secrets=secrets,
    )


class _NoExecutionRecord:
    """For a prepared repository without ``run_dir``: no per-draft record; the idempotency store
    is then the only guard against a second dispatch (as in Noēsis)."""

    def get(self, draft_id: str) -> None:
        return None

    def claim(self, draft_id: str) -> bool:
        return True

    def release(self, draft_id: str) -> None:
        pass

    def save(self, draft_id: str, result: ToolExecutionResult) -> None:
        pass

    def claim_path(self, draft_id: str) -> str:
        return draft_id


async def _execute(
    run_id: str,
    draft_id: str,
    prepared_repository: Any,
    approval_repository: Any,
    idempotency: Any,
    dispatcher: ToolDispatcher | None,
    dispatch_port: Any,
    emit: Emit,
    callables: Mapping[str, Any] | None,
    decision: Any,
    execution_repository: Any,
    *,
    offload: bool,
    secrets: Mapping[str, Any] | None = None,
) -> ToolExecutionResult:
    where = type(prepared_repository).__name__
    prepared = _coerce(PreparedToolInvocation, prepared_repository.load(run_id=run_id, draft_id=draft_id), where)
    if prepared is None:
        drafts = prepared_repository.draft_ids() if hasattr(prepared_repository, "draft_ids") else []
        raise PreparedToolInvocationNotFoundError(
            f"no prepared draft {quoted(draft_id)} for run {quoted(run_id)} in {getattr(prepared_repository, 'root', where)}; "
            f"drafts: {', '.join(drafts) or 'none'}."
        )
    run_dir = getattr(prepared_repository, "run_dir", None)
    executions = execution_repository or (ExecutionRepository(run_dir) if run_dir is not None else _NoExecutionRecord())
    if (done := executions.get(draft_id)) is not None:
        return done.model_copy(update={"already_executed": True})
    approval = None
    if prepared.governance.requires_approval:
        stored = decision if decision is not None else approval_repository.load(run_id=run_id, draft_id=draft_id)
        approval = _check_approval(prepared, _coerce(ToolApprovalDecision, stored, type(approval_repository).__name__))
    payload, func, found = _dispatch_material(
        prepared, prepared_repository, dispatcher, callables, need_callable=dispatch_port is None, secrets=secrets
    )
    if not executions.claim(draft_id):
        if (done := executions.get(draft_id)) is not None:
            return done.model_copy(update={"already_executed": True})
        raise ExecutionInProgressError(
            f"draft {quoted(draft_id)} is being executed elsewhere, or an earlier attempt stopped after claiming it. "
            f"If nothing is running, check the tool's effects, then delete {executions.claim_path(draft_id)} to retry."
        )
    rid, state = prepared.request_id, {"dispatched": False}
    try:
        if (done := executions.get(draft_id)) is not None:
            return done.model_copy(update={"already_executed": True})
        if approval is not None:
            emit(events.TOOL_APPROVED, rid, draft_id=draft_id, decision_id=approval.decision_id)
        result, final = await _run_once(
            prepared,
            idempotency,
            dispatcher,
            dispatch_port,
            emit,
            payload,
            func,
            found,
            state,
            offload,
            secrets_for_run(_scope(prepared_repository)),
        )
        executions.save(draft_id, result)
        state["dispatched"] = False  # the result is recorded, so the claim can go
    finally:
        if not state["dispatched"]:  # a dispatch without a saved record keeps its claim (at most once)
            executions.release(draft_id)
    prepared_repository.save(prepared.model_copy(update={"status": PreparedInvocationStatus.APPROVED}))
    _vault(prepared_repository).discard(_scope(prepared_repository), draft_id)
    emit(final[0], rid, **final[1])
    return result


async def _run_once(
    prepared: PreparedToolInvocation,
    idempotency: Any,
    dispatcher: ToolDispatcher | None,
    dispatch_port: Any,
    emit: Emit,
    payload: dict[str, Any],
    func: Any,
    secrets: list[str],
    state: dict[str, Any],
    offload: bool,
    guard: Any,
) -> tuple[ToolExecutionResult, tuple[str, dict[str, Any]]]:
    """Replay, refuse (conflict) or dispatch; returns the result and the closing event."""
    rid, draft_id = prepared.request_id, prepared.key
    evaluation = idempotency.evaluate(invocation=prepared)
    decision = IdempotencyDecision(getattr(evaluation.decision, "value", evaluation.decision))
    if decision is IdempotencyDecision.REPLAY:
        result = ToolExecutionResult(
            request_id=rid,
            execution_id=evaluation.replayed_execution_id or f"exec:replay:{draft_id}",
            status=ExecutionStatus.REPLAYED,
            reason_code=codes.IDEMPOTENCY_REPLAY,
            output=getattr(evaluation, "output", None),
            replayed_from_execution_id=evaluation.replayed_execution_id,
            preflight=prepared.preflight,
        )
        return result, (events.TOOL_REPLAYED, {"draft_id": draft_id, "execution_id": result.execution_id})
    if decision is IdempotencyDecision.CONFLICT:
        result = ToolExecutionResult(
            request_id=rid,
            execution_id=f"exec:conflict:{draft_id}",
            status=ExecutionStatus.FAILED,
            reason_code=codes.IDEMPOTENCY_CONFLICT,
            preflight=prepared.preflight,
        )
        return result, (events.TOOL_EXECUTION_FAILED, {"draft_id": draft_id, "reason_code": codes.IDEMPOTENCY_CONFLICT})
    emit(events.TOOL_EXECUTION_STARTED, rid, draft_id=draft_id, candidate_id=prepared.governance.candidate_id)
    state["dispatched"] = True
    result = await _dispatch(dispatcher, dispatch_port, prepared, payload, func, offload)
    # the draft's own secrets (even short ones), the run's known ones, and credentials of known formats the
    # tool printed (not random-looking words: tool output is full of digests and ids)
    result = result.model_copy(update={"output": guard.redact(scrub(result.output, secrets), entropy=False)})
    idempotency.record(invocation=prepared, result=result)
    name = events.TOOL_EXECUTION_SUCCEEDED if result.status is ExecutionStatus.SUCCEEDED else events.TOOL_EXECUTION_FAILED
    return result, (name, {"draft_id": draft_id, "execution_id": result.execution_id, "reason_code": result.reason_code})


async def _dispatch(
    dispatcher: ToolDispatcher | None,
    port: Any,
    prepared: PreparedToolInvocation,
    payload: dict[str, Any],
    func: Any,
    offload: bool,
) -> ToolExecutionResult:
    """Run the tool through the ToolDispatcher, or through a Noēsis ``ToolDispatchPort``.

    The port gets an in-memory copy of the draft whose ``payload.normalized_payload`` is the real
    payload (stored records keep only the redacted one). A sync port runs in a worker thread when
    ``offload`` (the async entry point), inline otherwise (the sync entry point owns its loop).
    """
    try:
        if port is None:
            assert dispatcher is not None, "a dispatcher or a dispatch port is required"
            return await dispatcher.dispatch(prepared, payload, func)
        view = prepared.model_copy(update={"payload": prepared.payload.model_copy(update={"normalized_payload": payload})})
        execute = port_method(port, "execute")
        if execute is None:
            raise ToolContractError(f"the dispatch port {type(port).__name__} has no execute(); pass a ToolDispatchPort")
        if offload and not inspect.iscoroutinefunction(execute):
            raw = await run_in_thread(execute, invocation=view, name="noesis_nb-dispatch-port")
        else:
            raw = execute(invocation=view)
        if inspect.isawaitable(raw):
            raw = await raw
        if raw is None:
            raise ToolContractError(f"the dispatch port {type(port).__name__} returned None, not a ToolExecutionResult.")
        coerced: ToolExecutionResult = _coerce(ToolExecutionResult, raw, f"the dispatch port {type(port).__name__}")
        return coerced
    except ToolContractError as exc:
        return make_result(prepared, ExecutionStatus.FAILED, exc.reason_code, {"error": str(exc)})
    except Exception as exc:  # a handler bug still counts as the draft's one execution
        return make_result(
            prepared,
            ExecutionStatus.FAILED,
            codes.TOOL_ADAPTER_ERROR,
            {
                "error": shown_cut(f"{type(exc).__name__}: {error_text(exc, 2000 + SCAN_MARGIN)}", 2000),
                "error_type": type(exc).__name__,
            },
        )


def _check_approval(prepared: PreparedToolInvocation, decision: ToolApprovalDecision | None) -> ToolApprovalDecision:
    key = prepared.key
    if decision is None:
        raise ApprovalDecisionRequiredError(
            f"draft {quoted(key)} requires approval and has no decision; call decide(run_dir, {quoted(key)}, approve=True, "
            "approver_id=...) first."
        )
    if decision.status is ApprovalDecisionStatus.REJECTED:
        raise ApprovalRejectedError(
            f"draft {quoted(key)} was rejected by {decision.approver_id or 'a reviewer'}"
            + (f": {decision.reason}" if decision.reason else "")
            + "; it will not run.",
            decision=decision,
        )
    if decision.run_id != prepared.run_id:  # Noēsis finds a decision by run_id + draft_id: another run's is none
        raise ApprovalDecisionBindingError(
            f"decision {quoted(decision.decision_id)} is for run {quoted(decision.run_id)}, but draft {quoted(key)} is "
            f"run {quoted(prepared.run_id)}'s; decide this draft in its own run."
        )
    if decision.request_id != prepared.request_id:
        raise ApprovalDecisionBindingError(
            f"decision {quoted(decision.decision_id)} is for request {quoted(decision.request_id)}, "
            f"but draft {quoted(key)} is request {quoted(prepared.request_id)}; decide this draft."
        )
    if decision.reviewed_fingerprint != prepared.payload.request_fingerprint:
        raise ApprovalDecisionBindingError(
            f"decision {quoted(decision.decision_id)} reviewed payload {decision.reviewed_fingerprint!r}, but draft "
            f"{quoted(key)} "
            f"has {prepared.payload.request_fingerprint!r}; the payload changed after review, so review it again."
        )
    if prepared.preflight is not None and decision.impact_hash != prepared.preflight.impact_hash:
        raise ApprovalDecisionBindingError(
            f"decision {quoted(decision.decision_id)} has impact_hash {decision.impact_hash!r}, but draft {quoted(key)} has "
            f"{prepared.preflight.impact_hash!r}; review the draft again."
        )
    return decision
