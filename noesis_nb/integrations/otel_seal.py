"""The seal's span: what a run's log holds after its episode ended, on a span of its own under the root span.

The root span ends when the episode ended (``summary.duration_sec``'s rule), but the log goes on: the seal's
state projection, insight and memory come after the terminate, and a run whose process died is closed by
``resume_run`` minutes or days later (its act, reflect, learn and terminate). As events of the root span they lay
outside it, which a trace viewer draws past the span's end or drops. They go on a child ``seal`` span instead,
from the first of them to the last, and so does every span that starts after the episode ended: each span event
lies within its span, and the root still lasts what the episode lasted.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .otel_clean import clean_spec

__all__ = ["SEAL_SPAN", "with_seal_span"]

SEAL_SPAN = "seal"

SpanSpec = dict[str, Any]


def with_seal_span(spans: list[SpanSpec]) -> list[SpanSpec]:
    """``spans`` (the root first, as ``run_spans`` gives them) with the root's events after its end, and the spans
    starting after it, moved under a ``seal`` span placed second; ``spans`` as they are when nothing is after it.
    The seal span waits for the episode's end in a live export (``awaits_end``): more of the seal may come."""
    if not spans or spans[0]["parent_id"] is not None:
        return spans
    root = spans[0]
    end = root["end_ns"]
    late = [e for e in root["events"] if e[1] > end]
    children = [s for s in spans[1:] if s["start_ns"] > end and s["parent_id"] == root["span_id"]]
    if not late and not children:
        return spans
    seal_id = _seal_id(root)
    times = [at for _, at, _ in late] + [t for s in children for t in (s["start_ns"], s["end_ns"])]
    seal = clean_spec(
        {
            "name": SEAL_SPAN,
            "trace_id": root["trace_id"],
            "span_id": seal_id,
            "parent_id": root["span_id"],
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
    return [{**root, "events": [e for e in root["events"] if e[1] <= end]}, seal, *rest]


def _seal_id(root: SpanSpec) -> int:
    """The seal span's id, from the root's: the same run always gives the same one."""
    digest = hashlib.sha256(f"{root['trace_id']:032x}\x1f{root['span_id']:016x}\x1fseal".encode()).digest()
    return int.from_bytes(digest[:8], "big") or 1
