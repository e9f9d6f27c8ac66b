"""One status word per run, from whatever the run directory holds (old or new Noēsis runs)."""

from __future__ import annotations

from typing import Any

__all__ = ["run_status"]

_TERMINATE_MAP = {"completed": "ok", "success": "ok", "errored": "error", "failed": "error", "aborted": "cancelled"}


def run_status(
    summary: dict[str, Any] | None,
    state: dict[str, Any] | None,
    events: list[dict[str, Any]] | None,
) -> str:
    """``ok``, ``error``, ``vetoed``, ``cancelled``, ``paused`` or ``running``.

    Follows Noēsis' CLI rule (summary/state status, else the terminate event, else metrics),
    and adds what the CLI cannot see: a run without a summary is ``paused`` when its last
    lifecycle event is a checkpoint or interrupt, otherwise ``running``.
    """
    events = events or []
    last_runtime = None
    for event in reversed(events):
        phase = event.get("phase")
        if phase == "terminate" or _is_runtime_terminate(event):
            status = str((event.get("payload") or {}).get("status") or "").lower()
            return _TERMINATE_MAP.get(status, status or "ok")
        if last_runtime is None and phase == "runtime":
            last_runtime = (event.get("payload") or {}).get("status")
    for doc in (summary, state and state.get("outcomes")):
        status = (doc or {}).get("status") if isinstance(doc, dict) else None
        if status and status not in {"pending", "partial"}:
            return _TERMINATE_MAP.get(str(status).lower(), str(status).lower())
    if summary is None:
        outcome_status = ((state or {}).get("outcomes") or {}).get("status")
        if last_runtime in {"paused", "interrupted", "partial"} or outcome_status == "partial":
            return "paused"
        return "running"
    for event in reversed(events):
        if event.get("phase") == "error":
            return "error"
    metrics = summary.get("metrics") or {}
    flags = summary.get("flags") or {}
    if (metrics.get("veto_count") or 0) > 0 and flags.get("governance_mode") == "enforce":
        return "vetoed"
    success = metrics.get("success")
    if success is not None and not success:
        return "error"
    return "ok"


def _is_runtime_terminate(event: dict[str, Any]) -> bool:
    if event.get("phase") != "runtime":
        return False
    payload = event.get("payload") or {}
    return "terminate" in (payload.get("kind"), payload.get("type"), payload.get("event"))
