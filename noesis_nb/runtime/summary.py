"""``summary.json`` for a finished episode: Noēsis' summary 1.3.0 fields computed from the events."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from datetime import datetime
from typing import Any

from .._jsonio import canonical_json, to_jsonable
from ..store.vocab import TOKEN_COLUMNS

__all__ = ["build_summary", "usage_summary", "governance_counts", "INSIGHT_KEYS"]

_TOKENS = TOKEN_COLUMNS
#: the keys of the insight event's ``metrics`` (Noēsis' artifact invariant: exactly these, from summary.metrics)
INSIGHT_KEYS = ("plan_adherence", "tool_coverage", "veto_count", "success", "act_count")


def _total(calls: list[dict[str, Any]], key: str) -> int | None:
    """Sum of a token field; None (unknown) when any call did not report it."""
    values = [c.get(key) for c in calls]
    known = [v for v in values if type(v) is int]
    return sum(known) if values and len(known) == len(values) else None


def usage_summary(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Token totals and a per-model split, so analysis can price runs from the summary alone."""
    groups: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        groups[(call.get("provider"), call.get("model"))].append(call)
    by_model = [
        {"provider": provider, "model": model, "model_calls": len(group), **{k: _total(group, k) for k in _TOKENS}}
        for (provider, model), group in groups.items()
    ]
    return {"model_calls": len(calls), **{k: _total(calls, k) for k in _TOKENS}, "by_model": by_model}


def governance_counts(events: list[dict[str, Any]]) -> dict[str, int]:
    """Enforced vetoes and vetoes that audit mode only recorded, counted from the governance events."""
    veto = would = 0
    for e in events:
        payload = e.get("payload")
        if e.get("phase") == "governance" and isinstance(payload, dict) and payload.get("decision") == "veto":
            if payload.get("enforced"):
                veto += 1
            else:
                would += 1
    return {"veto_count": veto, "would_veto_count": would}


def _calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    calls = []
    for e in events:
        payload = e.get("payload")
        if e.get("phase") == "model" and isinstance(payload, dict):
            calls.append(
                {
                    "provider": payload.get("provider"),
                    "model": payload.get("model"),
                    **{k: payload.get(k) if type(payload.get(k)) is int else None for k in _TOKENS},
                }
            )
    return calls


def _ts(value: Any) -> datetime | None:
    """An aware datetime from an ISO string; None for anything else (never raises on bad input)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def build_summary(
    episode_id: str,
    state: dict[str, Any],
    events: list[dict[str, Any]],
    *,
    status: str,
    reasons: list[str],
    result: Any,
    adapter_result: str,
) -> dict[str, Any]:
    """The summary of a run whose events (up to its terminate and state projection) are ``events``.

    A pure function of what is on disk, so a seal interrupted by a crash is completed identically.
    """
    episode = state["episode"]
    extension = state.get("x-noesis_nb") or {}
    governance = {
        "mode": extension.get("governance_mode", "off"),
        "failure_policy": extension.get("failure_policy"),
        **governance_counts(events),
    }
    phases = Counter(e.get("phase") for e in events)
    acts = [e for e in events if e.get("phase") == "act"]
    phase_ms: dict[str, float] = defaultdict(float)
    for e in events:
        metrics_ = e.get("metrics")
        duration = metrics_.get("duration_ms") if isinstance(metrics_, dict) else None
        if isinstance(duration, (int, float)) and not isinstance(duration, bool):
            phase_ms[str(e.get("phase"))] += duration
    times = [t for t in (_ts(e.get("timestamp")) for e in events) if t is not None]
    started = _ts(episode.get("started_at"))
    duration_sec = round(((times[-1] if times else started) - started).total_seconds(), 6) if started else 0.0
    first_act = next((_ts(e.get("timestamp")) for e in acts), None)
    steps = state["plan"].get("steps") or []
    done = sum(1 for s in steps if s.get("status") == "done")
    tools_used = {e["payload"].get("tool") for e in acts if isinstance(e.get("payload"), dict)}
    success = status == "ok"
    veto_count = governance.get("veto_count", 0)
    insight = {
        "schema_version": "1.0.0",
        "veto_count": veto_count,
        "would_veto_count": governance.get("would_veto_count", 0),
        "branching_factor": 0.0,
        "plan_adherence": round(done / max(len(steps), 1), 4),
        "success": success,
        "plan_revisions": 0,
        "tool_coverage": 1.0 if tools_used else 0.0,
        "phase_ms": {k: round(v, 3) for k, v in phase_ms.items()},
    }
    metrics = {
        **insight,
        "governance_vetoed": veto_count > 0,
        "governance_would_vetoed": governance.get("would_veto_count", 0) > 0,
        "plan_count": phases.get("plan", 0),
        "plan_total": len(steps),
        "steps": len(steps),
        "ideal_steps": len(steps),
        "act_count": len(acts),
        "reflect_count": phases.get("reflect", 0),
        "interpret_count": phases.get("interpret", 0),
        "intuition_events": phases.get("intuition", 0),
        "direction_events": 0,
        "direction_applied": 0,
        "direction_vetoed": 0,
        "direction_applied_rate": 0.0,
        "top_reasons": reasons[:5],
        "policy_confidence_histogram": [0] * 10,
        "alignment": 0.0,
        "learn_proposals": 0,
        "learn_applied": 0,
        "latencies": {
            "total_ms": round(duration_sec * 1000.0, 3),
            **({"first_action_ms": round((first_act - started).total_seconds() * 1000.0, 3)} if first_act and started else {}),
        },
    }
    label = str(episode.get("using", "")).removeprefix("adapter:")
    outcome = {"ok": "success_unverified", "error": "error"}.get(status, "goal_not_achieved")
    return {
        "schema_version": "1.3.0",
        "episode_id": episode_id,
        "task": state["goal"]["task"],
        "seed": episode.get("seed", 0),
        "started_at": episode.get("started_at"),
        "duration_sec": duration_sec,
        "status": status,
        "outcome": outcome,
        "adapter_result": adapter_result,
        "flags": {
            "intuition": False,
            "mode": "off",
            "using": label,
            "governance_mode": governance.get("mode", "off"),
            "governance_failure_policy": governance.get("failure_policy"),
            "direction": {"applied": 0, "vetoed": 0, "last_diff": [], "threshold": 0.5},
        },
        "agents_config_hash": "sha256:" + hashlib.sha256(canonical_json({"using": label, "intuition": "off"})).hexdigest(),
        "answer": {"result": to_jsonable(result)} if result is not None else {},
        "metrics": metrics,
        "insight": {"metrics": insight},
        "tags": episode.get("tags") or {},
        "ports": {},
        "process": state.get("process"),
        "verification": {
            "provided": False,
            "passed": None,
            "assertions": [],
            "workspace_diff": None,
            "snapshots": None,
            "policy": {"ignore": [".git", "__pycache__", ".venv", ".noesis"], "symlinks": "skip"},
        },
        "manifest": {"path": "manifest.json"},
        "x-noesis_nb": {"reasons": reasons, "usage": usage_summary(_calls(events))},
    }
