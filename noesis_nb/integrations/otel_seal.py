"""The seal's span: what a run's log holds after its episode ended, on a span of its own under the root span.

The episode ends at its end mark (``store.lostend.episode_end_marks``, ``summary.duration_sec``'s rule): its
terminate, or for a run whose process died its last sign of life. The log goes on after it: the seal's state
projection, insight and memory come after the terminate, and a run whose process died is closed by ``resume_run``
minutes or days later (its act, reflect, learn and terminate). As events of the root span they lay outside it,
which a trace viewer draws past the span's end or drops. They go on a child ``seal`` span instead, from the first
of them to the last, and so does every span whose first event comes after the mark: each span event lies within
its span, and the root lasts what the episode lasted. Which events are after the mark is told by their place in
the log, not by their time: a run whose recorded duration ends before its terminate (Noēsis' own runs) keeps its
reflect, learn and terminate on the root, which ``run_spans`` makes end at that terminate.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .otel_clean import clean_spec

__all__ = ["SEAL_SPAN", "AFTER_EPISODE", "EPISODE_EVENTS", "with_seal_span"]

SEAL_SPAN = "seal"
AFTER_EPISODE = "after_episode"  # a span's key: made from an event after the episode's end mark
EPISODE_EVENTS = "episode_events"  # the root's key: how many of its events (the first) are the episode's; all without it

SpanSpec = dict[str, Any]


def with_seal_span(spans: list[SpanSpec]) -> list[SpanSpec]:
    """``spans`` (the root first, as ``run_spans`` gives them, its events after the episode's end mark past its
    ``EPISODE_EVENTS`` and the spans made after it marked ``AFTER_EPISODE``) with those events and spans moved under a
    ``seal`` span placed second; ``spans`` as they are when nothing is after it (the marks taken off either way).
    The seal span waits for the episode's end in a live export (``awaits_end``): more of the seal may come."""
    marks = (AFTER_EPISODE, EPISODE_EVENTS)
    after = [bool(s.get(AFTER_EPISODE)) for s in spans]
    mine = spans[0].get(EPISODE_EVENTS) if spans else None
    spans = [{k: v for k, v in s.items() if k not in marks} if any(k in s for k in marks) else s for s in spans]
    if not spans or spans[0]["parent_id"] is not None:
        return spans
    root = spans[0]
    mine = mine if isinstance(mine, int) else len(root["events"])
    late = root["events"][mine:]
    root_id = root["span_id"]
    children = [s for s, moved in zip(spans[1:], after[1:]) if moved and s["parent_id"] == root_id]
    if not late and not children:
        return spans
    seal_id = _seal_id(root)
    times = [at for _, at, _ in late] + [t for s in children for t in (s["start_ns"], s["end_ns"])]
    seal = clean_spec(
        {
            "name": SEAL_SPAN,
            "trace_id": root["trace_id"],
            "span_id": seal_id,
            "parent_id": root_id,
            "start_ns": min(times),
            "end_ns": max(times),
            "kind": "internal",
            "attributes": {
                "noesis.episode_id": root["attributes"].get("noesis.episode_id"),
                "noesis.phase": SEAL_SPAN,
            },
            "error": False,
            "events": late,
        }
    )
    seal["awaits_end"] = True
    moved = {id(s) for s in children}
    rest = [{**s, "parent_id": seal_id} if id(s) in moved else s for s in spans[1:]]
    return [{**root, "events": root["events"][:mine]}, seal, *rest]


def _seal_id(root: SpanSpec) -> int:
    """The seal span's id, from the root's: the same run always gives the same one."""
    digest = hashlib.sha256(f"{root['trace_id']:032x}\x1f{root['span_id']:016x}\x1fseal".encode()).digest()
    return int.from_bytes(digest[:8], "big") or 1
