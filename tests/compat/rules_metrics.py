"""Summary metrics recomputed from the events, as Noēsis computes them (its insight metrics ``compute_metrics``,
``build_insight_metrics`` and ``_finalize_metrics``): governance counts are whole numbers of events, ``steps``
equals ``act_count``, and ``phase_ms`` holds each verb phase's summed durations in whole ms, rounded up, at least 1
(``metrics.phase_ms`` may also be left ``{}``, as ``compute_metrics`` leaves it; the insight block's never is);
``latencies.first_action_ms`` / ``time_to_veto_ms`` run from the start event to the first act / enforced veto.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from .rules_summary import act_count
from .rundata import Run, Violation, parse_time, payload_of

TIMED_PHASES = ("observe", "interpret", "plan", "act", "reflect")
VETO_KEYS = ("veto_count", "governance_vetoed")
WOULD_VETO_KEYS = ("would_veto_count", "governance_would_vetoed")


def is_enforced_veto(payload: Mapping[str, Any]) -> bool:
    """A veto that blocked: decided ``veto`` without an error, enforced (enforce mode enforces unless it says not)."""
    if payload.get("decision") != "veto" or payload.get("error"):
        return False
    mode, enforced = payload.get("mode"), payload.get("enforced")
    if isinstance(mode, str) and mode.lower() == "enforce":
        return bool(enforced) if enforced is not None else True
    return enforced is True


def is_audit_veto(payload: Mapping[str, Any]) -> bool:
    """A veto audit mode only recorded (a "would veto")."""
    mode = payload.get("mode")
    return payload.get("decision") == "veto" and isinstance(mode, str) and mode.lower() == "audit"


def check(run: Run) -> Iterator[Violation]:
    summary = run.docs.get("summary.json")
    metrics = summary.get("metrics") if isinstance(summary, dict) else None
    if not isinstance(metrics, dict):
        return  # rules_summary reports a missing or malformed metrics block
    governance = [payload_of(e) for e in run.events if e.get("phase") == "governance"]
    expected = {
        **dict.fromkeys(VETO_KEYS, sum(map(is_enforced_veto, governance))),
        **dict.fromkeys(WOULD_VETO_KEYS, sum(map(is_audit_veto, governance))),
    }
    for key, count in expected.items():
        if key not in metrics:
            continue
        value = metrics[key]
        if not isinstance(value, int) or isinstance(value, bool) or value != count:
            yield Violation(
                "summary.counts",
                "summary.json",
                f"metrics.{key} is {value!r}; Noēsis writes the number of such governance events, here {count}",
            )
    if "steps" in metrics and metrics["steps"] != act_count(run):
        yield Violation(
            "summary.counts",
            "summary.json",
            f"metrics.steps is {metrics['steps']!r}; Noēsis keeps it equal to the act count, here {act_count(run)}",
        )
    yield from _phase_ms(run, summary, metrics)
    yield from _latencies(run, metrics)


def phase_ms(run: Run) -> dict[str, int]:
    """Per verb phase, its events' ``metrics.duration_ms`` summed (the per-phase latency Noēsis' readers fall back
    to), rounded up to whole ms, at least 1."""
    totals: dict[str, float] = {}
    for event in run.events:
        metrics = event.get("metrics")
        duration = metrics.get("duration_ms") if isinstance(metrics, dict) else None
        if event.get("phase") not in TIMED_PHASES or isinstance(duration, bool) or not isinstance(duration, (int, float)):
            continue
        if 0 <= duration < math.inf:
            totals[str(event["phase"])] = totals.get(str(event["phase"]), 0.0) + duration
    return {phase: max(1, math.ceil(round(total, 6))) for phase, total in totals.items()}


def _phase_ms(run: Run, summary: dict[str, Any], metrics: dict[str, Any]) -> Iterator[Violation]:
    insight = summary.get("insight")
    blocks = {"metrics": metrics, "insight.metrics": insight.get("metrics") if isinstance(insight, dict) else None}
    expected = phase_ms(run)
    for where, block in blocks.items():
        if not isinstance(block, dict) or "phase_ms" not in block:
            continue
        if block["phase_ms"] != expected and not (where == "metrics" and block["phase_ms"] == {}):  # {}: not filled in
            yield Violation(
                "summary.phase_ms",
                "summary.json",
                f"{where}.phase_ms is {block['phase_ms']!r}; from the events Noēsis computes {expected!r}",
            )


def _first_time(run: Run, phase: str, accept: Any = None) -> Any:
    event = next((e for e in run.events if e.get("phase") == phase and (accept is None or accept(e))), None)
    return parse_time(event.get("timestamp")) if event is not None else None


def _latencies(run: Run, metrics: dict[str, Any]) -> Iterator[Violation]:
    latencies = metrics.get("latencies")
    start = _first_time(run, "start")
    if not isinstance(latencies, dict) or start is None:
        return
    ends = {
        "first_action_ms": _first_time(run, "act", lambda e: not payload_of(e).get("synthetic")),
        "time_to_veto_ms": _first_time(run, "governance", lambda e: is_enforced_veto(payload_of(e))),
    }
    for key, end in ends.items():
        if end is None:
            continue
        expected = max(0, math.ceil((end - start).total_seconds() * 1000.0))
        value = latencies.get(key)
        if isinstance(value, bool) or value != expected:
            yield Violation(
                "summary.latencies",
                "summary.json",
                f"metrics.latencies.{key} is {value!r}; from the start event Noēsis computes {expected} (whole ms, rounded up)",
            )
