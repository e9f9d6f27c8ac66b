"""Every event line: Noēsis' write-time guard (``trace/events.py``) and the event schema ``noesis view`` applies.

Noēsis refuses to write a line that breaks the guard, and ``noesis view`` reports a line that breaks
the schema (events 1.3.0: ``id`` required, ``caused_by`` a string, ``evidence_ids`` strings).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .rundata import Run, Violation, parse_time, text

REQUIRED = ("timestamp", "episode_id", "phase", "payload", "evidence_ids")
FACULTIES = frozenset({"intuition", "direction", "governance", "insight"})
VERB_MINIMA = {
    "observe": ("task", "tags", "timestamp"),
    "interpret": ("signals",),
    "plan": ("steps",),
    "act": ("input_excerpt", "outcome"),
    "reflect": ("success",),
}
_LEARN_REFERENCE = ("learn_path", "learn_schema", "proposal_ids", "proposal_count")
_LEARN_LEGACY = ("policy_id", "basis", "proposal", "scope")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check(run: Run) -> Iterator[Violation]:
    for number, reason in run.broken_lines:
        yield Violation("event.line", "events.jsonl", reason, line=number)
    if run.unterminated:
        yield Violation(
            "event.line",
            "events.jsonl",
            "the last line has no newline: a torn write (Noēsis ends every line with \\n)",
            line=(run.lines[-1] if run.lines else None),
        )
    previous = None
    for i, event in enumerate(run.events):
        where = run.where(i)
        yield from _shape(run, event, where)
        stamp = parse_time(event.get("timestamp"))
        if stamp is not None and previous is not None and stamp < previous:
            yield Violation(
                "event.timestamps",
                message=f"timestamp {event['timestamp']} is earlier than the line before it; "
                "Noēsis keeps timestamps non-decreasing within a file",
                **where,
            )
        if stamp is not None:
            previous = stamp
        payload = event.get("payload")
        if isinstance(payload, dict):
            yield from _verb_minima(text(event.get("phase")), payload, where)


def _shape(run: Run, event: dict[str, Any], where: dict[str, Any]) -> Iterator[Violation]:
    missing = [key for key in REQUIRED if key not in event]
    if missing:
        yield Violation("event.required", message=f"missing required key(s) {missing}", **where)
    if "id" not in event:
        if not run.legacy:
            yield Violation(
                "event.id", message="no id: Noēsis' writer gives every line one and `noesis view` requires it", **where
            )
    elif not isinstance(event["id"], str) or not event["id"]:
        yield Violation("event.id", message=f"id must be a non-empty string, got {event['id']!r}", **where)
    problems = []
    if "timestamp" in event and parse_time(event["timestamp"]) is None:
        problems.append(f"timestamp {event['timestamp']!r} is not an ISO 8601 date-time with an offset")
    if "payload" in event and not isinstance(event["payload"], dict):
        problems.append(f"payload must be an object, got {type(event['payload']).__name__}")
    if "evidence_ids" in event and not (
        isinstance(event["evidence_ids"], list) and all(isinstance(x, str) for x in event["evidence_ids"])
    ):
        problems.append("evidence_ids must be a list of strings")
    for key in ("episode_id", "phase"):
        if key in event and (not isinstance(event[key], str) or not event[key]):
            problems.append(f"{key} must be a non-empty string, got {event[key]!r}")
    for key in ("agent_id", "event_type"):
        if key in event and not isinstance(event[key], str):
            problems.append(f"{key} must be a string when present, got {event[key]!r}")
    for problem in problems:
        yield Violation("event.types", message=problem, **where)
    if "caused_by" in event and (not isinstance(event["caused_by"], str) or not event["caused_by"]):
        yield Violation(
            "event.caused_by",
            message=f"caused_by, when present, must be an event id string, got {event['caused_by']!r} "
            "(leave the key out when there is no parent)",
            **where,
        )
    if "metrics" in event:
        yield from _metrics(event["metrics"], where)
    if "faculty" in event and text(event["faculty"]) not in FACULTIES:
        yield Violation("event.faculty", message=f"faculty {event['faculty']!r} is not one of {sorted(FACULTIES)}", **where)


def _metrics(metrics: Any, where: dict[str, Any]) -> Iterator[Violation]:
    if not isinstance(metrics, dict):
        yield Violation("event.metrics", message=f"metrics must be an object, got {type(metrics).__name__}", **where)
        return
    for key in ("started_at", "completed_at"):
        if key not in metrics:
            yield Violation("event.metrics", message=f"metrics is missing {key!r}", **where)
        elif parse_time(metrics[key]) is None:
            yield Violation("event.metrics", message=f"metrics.{key} {metrics[key]!r} is not an ISO 8601 date-time", **where)
    duration = metrics.get("duration_ms")
    if "duration_ms" not in metrics:
        yield Violation("event.metrics", message="metrics is missing 'duration_ms'", **where)
    elif not _is_number(duration) or duration < 0:
        yield Violation("event.metrics", message=f"metrics.duration_ms must be a number >= 0, got {duration!r}", **where)


def _verb_minima(phase: Any, payload: dict[str, Any], where: dict[str, Any]) -> Iterator[Violation]:
    def fail(message: str) -> Violation:
        return Violation("event.verb_minima", message=f"{phase} payload {message}", **where)

    if phase in VERB_MINIMA:
        missing = [key for key in VERB_MINIMA[phase] if key not in payload]
        if missing:
            yield fail(f"lacks {missing}; a verb phase needs its minimum (else use an extension phase)")
    if phase == "act":
        if not {"tool", "adapter"} & payload.keys():
            yield fail("needs 'tool' or 'adapter'")
        for key in ("input_excerpt", "outcome", "action_candidate_id"):
            if key in payload and not isinstance(payload[key], str):
                yield fail(f"{key} must be a string, got {payload[key]!r}")
    elif phase == "learn":
        if "learn_path" in payload or "learn_schema" in payload:
            missing = [key for key in _LEARN_REFERENCE if key not in payload]
            if missing:
                yield fail(f"(reference shape) lacks {missing}")
            if "proposal_ids" in payload and not (
                isinstance(payload["proposal_ids"], list) and all(isinstance(x, str) for x in payload["proposal_ids"])
            ):
                yield fail("proposal_ids must be a list of strings")
            for key in ("proposal_count", "applied_count"):
                if key in payload and not (_is_int(payload[key]) and payload[key] >= 0):
                    yield fail(f"{key} must be an int >= 0, got {payload[key]!r}")
            if "applied" in payload and not isinstance(payload["applied"], bool):
                yield fail(f"applied must be a bool, got {payload['applied']!r}")
        else:
            missing = [key for key in _LEARN_LEGACY if key not in payload]
            if missing:
                yield fail(f"has neither the reference shape {list(_LEARN_REFERENCE)} nor the legacy shape (lacks {missing})")
            elif not (
                isinstance(payload["policy_id"], str)
                and isinstance(payload["proposal"], list)
                and isinstance(payload["scope"], str)
                and isinstance(payload["basis"], (dict, list, str))
            ):
                yield fail("legacy shape needs policy_id: str, basis: object|array|string, proposal: array, scope: str")
