"""Summary metrics recomputed from the events, as Noēsis computes them (its insight metrics ``compute_metrics``
and ``_finalize_metrics``): governance counts are whole numbers of events, and ``steps`` equals ``act_count``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .rules_summary import act_count
from .rundata import Run, Violation, payload_of

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
