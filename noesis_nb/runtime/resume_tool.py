"""Resuming a run paused on a tool draft: execute it once if approved, record a rejection otherwise, seal."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..store import now_iso
from .context import dispatcher, tool_repositories
from .episode import Episode

__all__ = ["resume_tool_draft"]


async def resume_tool_draft(episode: Episode, checkpoint: dict[str, Any], pending_event: dict[str, Any], *,
                            tools: dict[str, Any] | None, resumed: bool) -> None:
    from .. import tools as tc

    rec = episode.recorder
    episode.loop = asyncio.get_running_loop()
    draft_id = pending_event["payload"]["draft_id"]
    request_id = pending_event["payload"].get("request_id")
    repos = tool_repositories(rec.run_dir)
    decision = repos.approvals.get(None, draft_id)
    if decision is None:
        raise tc.ApprovalDecisionRequiredError(
            f"draft {draft_id!r} has no decision yet; run noesis_nb.approve_draft({rec.episode_id!r}, approver_id=...) "
            "or reject_draft(...) first, then resume_run")
    prepared = repos.prepared.get(rec.episode_id, draft_id)
    if prepared is None:
        raise tc.PreparedToolInvocationNotFoundError(
            f"run {rec.episode_id} paused on draft {draft_id!r}, but {repos.prepared.root} holds no such record for it; "
            "restore the file from a backup (nothing was resumed)")
    if getattr(decision.status, "value", decision.status) == "approved":
        tc.require_secrets(repos.prepared, prepared)  # a missing secret fails here, before anything is written
    if not resumed:
        rec.resume_event(checkpoint)

    def emit(event_name: str, req: str, **extra: Any) -> str:
        return rec.emit("tool", {"event_name": event_name, "request_id": req, **extra}, agent_id="tool_contract")["id"]

    started = (now_iso(), time.perf_counter())
    status_word = getattr(decision.status, "value", decision.status)
    tool = prepared.tool
    label = f"{tool.namespace}.{tool.name}" + (f":{tool.version}" if tool.version else "")
    if status_word != "approved":
        emit("tool.rejected.governance", request_id, draft_id=draft_id, decision_id=decision.decision_id,
             reason_code="governance.vetoed", reason=getattr(decision, "reason", None))
        message = f"tool call {label} rejected by {decision.approver_id}" + (f": {decision.reason}" if getattr(decision, "reason", None) else "")
        _close(episode, started, label, "vetoed", message, ["tool_rejected"], None)
        return
    callables = None
    if tools:
        fn = tools.get(f"{tool.namespace}.{tool.name}") or tools.get(tool.name)
        callables = {draft_id: fn} if fn else None
    result = await tc.execute_prepared_tool_invocation_async(
        run_id=rec.episode_id, draft_id=draft_id, prepared_repository=repos.prepared, approval_repository=repos.approvals,
        idempotency_repository=repos.idempotency, dispatcher=dispatcher(), emit=emit, callables=callables,
        decision=decision)
    status = getattr(result.status, "value", result.status)
    rec.state["outcomes"]["actions"].append({"id": "act-tool-resume", "kind": getattr(prepared.protocol, "value", prepared.protocol),
                                             "tool": label, "input_excerpt": str(prepared.payload.redacted_payload)[:120],
                                             "result_status": status, "timestamp": now_iso(), "x-tool_draft_id": draft_id})
    if status == "failed":
        _close(episode, started, label, "error", f"tool {label} failed ({result.reason_code})", ["tool_failed"], result.output)
    else:
        episode.result = result.output
        _close(episode, started, label, "ok", str(result.output)[:400], ["adapter_ok", "resumed"], result.output)


def _close(episode: Episode, started: tuple[str, float], label: str, status: str, message: str, reasons: list[str], result: Any) -> None:
    rec = episode.recorder
    adapter = str(rec.state["episode"].get("using", "adapter:unknown"))
    act = rec.emit("act", {"input_excerpt": rec.state["goal"]["task"][:120], "outcome": status, "result_status": status, "tool": adapter,
                           "kind": "adapter", "action_id": "act-1", "step_id": "step-1", "reasons": reasons,
                           "step_status": "done" if status == "ok" else "failed", "x-resumed_tool": label},
                   agent_id=adapter, started=started)
    reflect = rec.emit("reflect", {"success": status == "ok", "reasons": reasons}, caused_by=act["id"])
    rec.emit("learn", {"learn_path": "learn.jsonl", "learn_schema": "learn/1.0", "proposal_ids": [], "proposal_count": 0,
                       "applied": False}, caused_by=reflect["id"])
    if rec.state["plan"].get("steps"):
        rec.state["plan"]["steps"][0]["status"] = "done" if status == "ok" else "failed"
    episode._finish(status, message, reasons, result)
