"""A run's facts, derived in one place from whatever its directory holds (old or new Noēsis runs).

The listing (``list_runs``), the frames (``runs_df``) and the disk view (``show``) all read a run
through :func:`run_facts`, so task, adapter, source, status, times and usage mean the same
everywhere. Malformed fields are read as unknown; ``report(file, message)`` hears about each.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..secrets.quoted import quoted
from .status import run_status
from .vocab import BILLED_COUNTS, MODEL_CALL, TERMINAL_STATUSES, TOKEN_FIELDS

MAX_COUNT = 2**53  # counts above this are not exact as float64 (frames.values.MAX_COUNT)

__all__ = [
    "RunFacts",
    "run_facts",
    "run_source",
    "usage_from_events",
    "UsageTotals",
    "call_row",
    "is_model_call",
    "token_value",
    "undated",
    "shaped_events",
    "SYSTEMS",
    "ENGINE",
    "NOESIS",
]

#: the agent systems noesis_nb.integrations connects (their runs carry ``tags.source``)
SYSTEMS = frozenset({"agui", "noeta", "langgraph", "crewai", "noetic", "taisce"})
ENGINE = "noesis_nb"
NOESIS = "noesis"

Report = Callable[[str, str], None]


@dataclass(frozen=True)
class RunFacts:
    """What every reader of a run agrees on."""

    episode_id: str
    task: str | None
    using: str | None  # the adapter's display label (``adapter:`` prefix removed)
    source: str
    status: str
    started_at: str | None
    ended_at: str | None
    duration_s: float | None
    governance_mode: str | None
    usage: dict[str, Any] = field(default_factory=dict)
    usage_calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


def _doc(value: Any, file: str, what: str, report: Report | None) -> dict[str, Any]:
    if value is None or type(value) is dict:
        return value or {}
    if report is not None:
        report(file, f"{what} is a JSON {_kind(value)} ({quoted(str(value), 40)}), not an object; read as empty")
    return {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def run_source(doc: Any) -> str:
    """The system a run came from: its ``tags.source`` when that names an integration, else ``noesis_nb``
    when its document carries the ``x-noesis_nb`` extension, else ``noesis``. ``doc`` is the summary,
    or ``state.json`` while there is none."""
    if type(doc) is not dict:
        return NOESIS
    tags = doc.get("tags")
    if type(tags) is not dict:
        episode = doc.get("episode")
        tags = episode.get("tags") if type(episode) is dict else None
    tag = tags.get("source") if type(tags) is dict else None
    if type(tag) is str and tag in SYSTEMS:
        return tag
    return ENGINE if "x-noesis_nb" in doc else NOESIS


def is_model_call(event: Mapping[str, Any]) -> bool:
    """A ``model`` event that records a model call (``event_name`` ``model.call``), the only kind counted as one."""
    payload = event.get("payload")
    return event.get("phase") == "model" and isinstance(payload, Mapping) and payload.get("event_name") == MODEL_CALL


def token_value(value: Any) -> int | None:
    """A token count as every view reads it: a whole number from 0 to 2**53 (an int, or an integral float), else None."""
    if type(value) is int:
        return value if 0 <= value < MAX_COUNT else None
    if type(value) is float and value.is_integer() and 0 <= value < MAX_COUNT:
        return int(value)
    return None


#: a dated or versioned model name's tail: ``-2024-07-18``, ``-20250514``, ``-0613``, ``-002``
_VERSION_TAIL = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{3,4})$")


def undated(model: str) -> str:
    """``model`` without its date or version tail (``gpt-4o-mini`` of ``gpt-4o-mini-2024-07-18``, ``o3`` of
    ``o3-2025-04-16``), else as given. The one rule that makes a provider's dated name the model a person named:
    capture joins records by it (``capture.scope.same_models``) and a ``prices=`` table's key prices the dated calls."""
    tail = _VERSION_TAIL.search(model)
    return model[: tail.start()] if tail else model


def call_row(payload: Mapping[str, Any], timestamp: Any = None) -> dict[str, Any]:
    """One model call as the views sum and price it: model and provider as text or None, each token
    count a whole number or None (unknown) — whatever a crafted or damaged ``model`` event holds —
    and ``timestamp``, its event's time as written (text or None: a price in effect then prices it).

    Counts that contradict each other (cached + cache-write above input, reasoning above output) are
    unknown, as ``usage_df`` reads them: the summary, the live totals and the frames agree. A count billed apart
    (``BILLED_COUNTS``: web searches, hour-long cache writes) is kept only when the call reported some."""
    model, provider = payload.get("model"), payload.get("provider")
    row: dict[str, Any] = {
        "model": model if type(model) is str else None,
        "provider": provider if type(provider) is str else None,
        "timestamp": timestamp if type(timestamp) is str else None,
    }
    for k in TOKEN_FIELDS:
        row[k] = token_value(payload.get(k))
    total = row["input_tokens"]
    if total is not None and (row["cached_input_tokens"] or 0) + (row["cache_write_input_tokens"] or 0) > total:
        row["input_tokens"] = row["cached_input_tokens"] = row["cache_write_input_tokens"] = None
    if (
        row["output_tokens"] is not None
        and row["reasoning_tokens"] is not None
        and row["reasoning_tokens"] > row["output_tokens"]
    ):
        row["output_tokens"] = row["reasoning_tokens"] = None
    for k in BILLED_COUNTS:
        if payload.get(k) and (value := token_value(payload[k])):  # (most calls report none: no call made)
            row[k] = value
    return row


class UsageTotals:
    """A run's token totals, kept call by call: the one place the rule "unknown is None, never 0" is applied.

    ``model_calls`` counts the calls; each token field is the sum when every call so far reported it,
    and None (unknown) when any did not; with no call every total is 0, as ``usage_df`` sums no rows (the
    summary's ``x-noesis_nb.usage`` says the same). ``add`` is O(1): a sum and a count of the calls that
    reported it, per field. ``totals`` is replaced whole on each ``add``, so a reader on another
    thread always sees one consistent dict (never to be changed in place).
    """

    __slots__ = ("_calls", "_sums", "_reported", "totals")

    def __init__(self) -> None:
        self._calls = 0
        self._sums = dict.fromkeys(TOKEN_FIELDS, 0)
        self._reported = dict.fromkeys(TOKEN_FIELDS, 0)
        self.totals: dict[str, Any] = self._totals()

    @classmethod
    def of(cls, rows: Sequence[Mapping[str, Any]]) -> UsageTotals:
        """The totals of these calls (rows as :func:`call_row` makes them)."""
        totals = cls()
        for row in rows:
            totals.add(row)
        return totals

    def add(self, row: Mapping[str, Any]) -> None:
        """Count one call (a row as :func:`call_row` makes it: each count an int, or None when unknown)."""
        n = self._calls = self._calls + 1
        sums, reported = self._sums, self._reported
        totals: dict[str, Any] = {"model_calls": n}  # built whole, then swapped in (one pass: ``add`` is per call)
        for k in TOKEN_FIELDS:
            value = row.get(k)
            if type(value) is int:
                sums[k] += value
                reported[k] += 1
            totals[k] = sums[k] if reported[k] == n else None
        self.totals = totals

    def _totals(self) -> dict[str, Any]:
        n = self._calls
        return {"model_calls": n, **{k: self._sums[k] if self._reported[k] == n else None for k in TOKEN_FIELDS}}


def usage_from_events(events: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Token totals (:class:`UsageTotals`: None where any call's count is unknown) and one row per model call."""
    calls = [call_row(event["payload"], event.get("timestamp")) for event in events if is_model_call(event)]
    return UsageTotals.of(calls).totals, calls


#: the top-level fields of an event that hold text (ids, names, the timestamp)
_TEXT_FIELDS = ("id", "episode_id", "agent_id", "phase", "event_type", "faculty", "caused_by", "timestamp")


def shaped_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as a run's views read them: each text field text (or absent), each payload an object.

    A run directory may be crafted or damaged; an event whose fields have other types is copied with
    them made text (``phase: 5`` → ``"5"``) and a payload that is not an object kept under
    ``{"value": …}``, so the view shows it instead of failing. Well-formed events are returned as they are.
    """
    out = events
    for i, event in enumerate(events):
        payload = event.get("payload")
        bad = [k for k in _TEXT_FIELDS if k in event and event[k] is not None and type(event[k]) is not str]
        if not bad and type(payload) is dict:
            continue
        if out is events:
            out = list(events)
        fixed = dict(event)
        for k in bad:
            fixed[k] = str(fixed[k])
        if type(payload) is not dict:
            fixed["payload"] = {} if payload is None else {"value": payload}
        out[i] = fixed
    return out


def run_facts(
    name: str,
    *,
    summary: Any,
    state: Any,
    events: list[dict[str, Any]] | None = None,
    start: Any = None,
    final: Any = None,
    status: str | None = None,
    report: Report | None = None,
    with_usage: bool = False,
    last_timestamp: str | None = None,
) -> RunFacts:
    """The facts of the run in folder ``name``. ``events`` may be all of them or only the last few
    (a listing); ``start`` is the ``start`` event when the caller has it without the whole log, and
    ``last_timestamp`` the timestamp of the run's last event when known. A field of the wrong kind
    is read as unknown and reported (``report(file, message)``)."""
    events = events or []
    summary_d = _doc(summary, "summary.json", "summary.json", report)
    state_d = _doc(state, "state.json", "state.json", report)
    final_d = _doc(final, "final.json", "final.json", report)
    episode = _doc(state_d.get("episode"), "state.json", "episode", report)
    goal = _doc(state_d.get("goal"), "state.json", "goal", report)
    flags = _doc(summary_d.get("flags"), "summary.json", "flags", report)
    extension = _doc(state_d.get("x-noesis_nb"), "state.json", "x-noesis_nb", report)
    if start is None:
        start = next((e for e in events if isinstance(e, dict) and e.get("phase") == "start"), None)
    start_d = start if type(start) is dict else {}
    start_payload = _doc(start_d.get("payload"), "events.jsonl", "the start event's payload", report)

    def text(doc: dict[str, Any], key: str, file: str, where: str) -> str | None:
        value = doc.get(key)
        if value is None or (isinstance(value, str) and value):
            return value or None
        if report is not None and not isinstance(value, str):
            report(file, f"{where}{key} is a JSON {_kind(value)} ({quoted(str(value), 40)}), not a string; read as unknown")
        return None

    if status is None:
        status = run_status(summary if type(summary) is dict else None, state if type(state) is dict else None, events)
    started = (
        text(summary_d, "started_at", "summary.json", "")
        or text(episode, "started_at", "state.json", "episode.")
        or _text(start_d.get("timestamp"))
    )
    duration = summary_d.get("duration_sec")
    if duration is not None and (
        isinstance(duration, bool) or not isinstance(duration, (int, float)) or not math.isfinite(duration)
    ):
        if report is not None:
            report("summary.json", f"duration_sec is {quoted(str(duration), 40)}, not a number of seconds; read as unknown")
        duration = None
    ended = None
    if status in TERMINAL_STATUSES:
        terminate = next((e for e in reversed(events) if isinstance(e, dict) and e.get("phase") == "terminate"), None)
        ended = (
            _plus(started, duration)
            or _text((terminate or {}).get("timestamp"))
            or text(final_d, "finalized_at", "final.json", "")
            or last_timestamp
        )
    using = (
        text(flags, "using", "summary.json", "flags.")
        or _text(start_payload.get("using"))
        or (text(episode, "using", "state.json", "episode.") or "").removeprefix("adapter:")
        or None
    )
    usage, calls = usage_from_events(events) if with_usage else ({}, [])
    return RunFacts(
        episode_id=text(summary_d, "episode_id", "summary.json", "") or text(episode, "id", "state.json", "episode.") or name,
        task=(
            text(summary_d, "task", "summary.json", "")
            or text(goal, "task", "state.json", "goal.")
            or _text(start_payload.get("task"))
        ),
        using=using,
        source=run_source(summary if type(summary) is dict else state),
        status=status,
        started_at=started,
        ended_at=ended,
        duration_s=float(duration) if duration is not None else None,
        governance_mode=(
            text(flags, "governance_mode", "summary.json", "flags.")
            or text(extension, "governance_mode", "state.json", "x-noesis_nb.")
        ),
        usage=usage,
        usage_calls=calls,
    )


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def _plus(started: str | None, duration: float | None) -> str | None:
    """``started + duration`` as ISO text; None when either is unknown or unreadable."""
    if started is None or duration is None:
        return None
    try:
        return (datetime.fromisoformat(started.replace("Z", "+00:00")) + timedelta(seconds=float(duration))).isoformat()
    except (ValueError, OverflowError):
        return None
