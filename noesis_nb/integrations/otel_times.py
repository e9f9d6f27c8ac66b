"""The time each event of a run takes in its OTLP trace: the stored time, kept in log order and in OTLP's range.

A log's times go forward (Noēsis and noesis_nb write them so); one edited, merged or written by a clock
set back may not. ``min`` of its times made a trace's root span: one event dated year 1 started it at
the Unix epoch (a trace of 56 years), said nowhere. Here a time before the one of the event above it is
reported as the frames report it (``events_df``: "the log's times go backwards"), a time OTLP cannot
carry (before 1970, after 2262) or no time at all is unknown and reported, and each event is placed no earlier than the
latest time above it (an unknown time: at that latest time), so the spans keep the log's order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ..secrets.quoted import quoted
from ..store.instants import utc_micros

__all__ = ["placed_times", "in_range", "NS_MAX"]

NS_MAX = 2**63 - 1  # the latest time a span carries (fixed64, read as signed by the SDK and most backends)
_SHOWN = 3


def _ns(stamp: Any) -> int | None:
    """Nanoseconds since 1970 UTC of a stored time, by the frames' rule (no offset: UTC); None when not a time."""
    micros = utc_micros(stamp)
    return None if micros is None else micros * 1000


def _shown(stamp: Any) -> str:
    """A stored timestamp as a problem quotes it (redacted and cut: the file may hold anything)."""
    return quoted(stamp, 60)


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns // 1000 / 1e6, UTC).isoformat().replace("+00:00", "Z")


def in_range(stamp: Any) -> int | None:
    """``stamp`` in nanoseconds when it is a time OTLP can carry, else None."""
    ns = _ns(stamp)
    return ns if ns is not None and 0 <= ns <= NS_MAX else None


def placed_times(events: list[dict[str, Any]], log: str) -> tuple[list[int | None], str | None, int]:
    """Each event's time in the trace (None: no time known above or at it), one line naming the times moved or
    left out (None when none was), and how many were."""
    placed: list[int | None] = []
    said: list[str] = []
    latest = previous = None  # the latest time placed; the stored time of the event above (the frames' check)
    for line, event in enumerate(events, 1):
        stamp = event.get("timestamp")
        ns = _ns(stamp)
        if ns is None:
            what = "no timestamp" if stamp is None else f"timestamp {_shown(stamp)} is no ISO-8601 time"
            said.append(f"line {line}: {what}")
        elif not 0 <= ns <= NS_MAX:
            said.append(f"line {line}: timestamp {_shown(stamp)} is outside the times OTLP carries (1970 to 2262)")
            ns = None
        elif previous is not None and ns < previous:
            said.append(
                f"line {line}: timestamp {_shown(stamp)} is before the event above's ({_iso(previous)}): the log's times go "
                "backwards (edited, merged, or a clock set back)"
            )
        if ns is not None:
            previous = ns
            latest = ns if latest is None else max(latest, ns)
        placed.append(latest)
    if not said:
        return placed, None, 0
    more = f"; {len(said) - _SHOWN} more" if len(said) > _SHOWN else ""
    summary = (
        f"{log}: {len(said)} event time(s) unknown, out of order or out of range, each placed at the latest time above "
        f"it in the trace, or the first known after it ({'; '.join(said[:_SHOWN])}{more})"
    )
    if latest is None:
        summary += "; no event has a time OTLP carries, so the run's spans are dated 1970-01-01"
    return placed, summary, len(said)
