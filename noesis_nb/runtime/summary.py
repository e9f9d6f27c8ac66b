"""``summary.json`` for a finished episode: Noēsis' summary 1.3.0 fields computed from the events."""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from datetime import datetime
from typing import Any

from .._jsonio import canonical_json, to_jsonable
from ..store.facts import UsageTotals, call_row
from ..store.lostend import episode_end_marks
from ..store.phases import INTEGRATION_PHASE
from ..store.vocab import BILLED_COUNTS, MODEL_CALL, TOKEN_COLUMNS, TOOL_REQUESTED, UNDRAFTED_APPROVAL, UNDRAFTED_CALL
from .governance import effective_failure_policy

__all__ = ["build_summary", "usage_summary", "governance_counts", "EventTally", "TALLIED_IN_DETAIL", "INSIGHT_KEYS"]

_TOKENS = TOKEN_COLUMNS
#: the keys of the insight event's ``metrics`` (Noēsis' artifact invariant: exactly these, from summary.metrics)
INSIGHT_KEYS = ("plan_adherence", "tool_coverage", "veto_count", "success", "act_count")


def _totals(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """``model_calls`` and each token total (None, unknown, when any call did not report it): ``UsageTotals``' rule;
    and the sum of each count billed apart (``BILLED_COUNTS``) the calls reported, when they reported some: a run
    priced from these sums pays for its web searches and hour-long cache writes too."""
    totals = UsageTotals.of(calls).totals
    got = {"model_calls": totals["model_calls"], **{k: totals[k] for k in _TOKENS}}
    for k in BILLED_COUNTS:
        if billed := sum(call.get(k) or 0 for call in calls):
            got[k] = billed
    return got


def usage_summary(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Token totals and a per-model split, so analysis can price runs from the summary alone."""
    groups: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        groups[(call.get("provider"), call.get("model"))].append(call)
    by_model = [{"provider": provider, "model": model, **_totals(group)} for (provider, model), group in groups.items()]
    return {**_totals(calls), "by_model": by_model}


def governance_counts(events: list[dict[str, Any]]) -> dict[str, int]:
    """Enforced vetoes and vetoes that audit mode only recorded, counted from the governance events."""
    tally = EventTally.of(events)
    return {"veto_count": tally.veto, "would_veto_count": tally.would_veto}


class EventTally:
    """What the summary needs from a run's events, kept as they are recorded so sealing never re-reads them.

    ``add`` is on the recording hot path: one dict update per event, more only for the few phases
    the summary counts or times (act, governance, model; the verbs). ``of`` rebuilds it from events (a reopened run).
    """

    __slots__ = (
        "phases",
        "phase_total",
        "veto",
        "would_veto",
        "tools",
        "start_ts",
        "first_act_ts",
        "first_veto_ts",
        "calls",
        "usage",
        "tool_requests",
        "undrafted",
        "direction",
    )

    def __init__(self) -> None:
        self.phases: dict[Any, int] = {}
        self.phase_total: dict[str, float] = {}  # ms per verb phase, summed over its events
        self.veto = self.would_veto = 0
        self.tools: set[Any] = set()
        self.start_ts: Any = None  # the start, first act and first enforced veto events' times, as written
        self.first_act_ts: Any = None
        self.first_veto_ts: Any = None
        # one row per model call (``store.facts.call_row``): the summary's usage, and the live ``usage_calls`` and
        # ``usage`` totals (one row shared by all three, never changed once added)
        self.calls: list[dict[str, Any]] = []
        self.usage = UsageTotals()
        # tool calls asked for (``tool.requested``), those refused before a draft included: ``runs_df.tool_calls``
        # reads it from the summary without the log (a refused request leaves no tool record)
        self.tool_requests = 0
        # an integration's tool calls and approval requests that became no draft (``integrations._recorded_calls``);
        # None until a first integration event (a run with none writes no count of them)
        self.undrafted: list[int] | None = None
        self.direction = [0, 0]  # direction events applied, blocked (a veto): the summary's direction_applied, _vetoed

    @classmethod
    def of(cls, events: list[dict[str, Any]]) -> EventTally:
        tally = cls()
        for event in events:
            tally.add(event)
        return tally

    def add(self, e: dict[str, Any]) -> None:
        phase = e.get("phase")
        phases = self.phases
        phases[phase] = phases.get(phase, 0) + 1
        if phase in _TIMED:
            self._time(phase, e.get("metrics"))
        if phase in _COUNTED:
            self._count(phase, e)

    def _time(self, phase: str, metrics: Any) -> None:
        """Add an event's ``duration_ms`` to its verb phase's time (negative or unreadable durations are skipped)."""
        duration = metrics.get("duration_ms") if isinstance(metrics, dict) else None
        if isinstance(duration, (int, float)) and not isinstance(duration, bool) and 0 <= duration < math.inf:
            self.phase_total[phase] = self.phase_total.get(phase, 0.0) + duration

    @property
    def phase_ms(self) -> dict[str, int]:
        """Each verb phase's time as ``phase_ms`` holds it: its events' ``duration_ms`` summed (what Noēsis' readers
        fall back to), in whole milliseconds rounded up, at least 1 (Noēsis' runs: 0.001 ms reads 1)."""
        return {phase: max(1, math.ceil(round(total, 6))) for phase, total in self.phase_total.items()}

    def _count(self, phase: str, e: dict[str, Any]) -> None:
        payload = e.get("payload")
        if not isinstance(payload, dict):
            payload = None
        if phase == "start":
            if self.start_ts is None:
                self.start_ts = e.get("timestamp")
        elif phase == "act":
            if payload is not None and payload.get("synthetic") is True:
                # an act ``resume_run`` wrote to close a run its lost process left open: counted in act_count (every
                # act event is), but no action of the episode's own, so not its first action nor a tool it used
                return
            if self.first_act_ts is None:
                self.first_act_ts = e.get("timestamp")
            if payload is not None:
                tool = payload.get("tool")
                self.tools.add(tool if tool is None or type(tool) is str else repr(tool))  # a list or object: its text
        elif phase == "governance" and payload is not None and payload.get("decision") == "veto":
            if payload.get("enforced"):
                self.veto += 1
                if self.first_veto_ts is None:
                    self.first_veto_ts = e.get("timestamp")
            else:
                self.would_veto += 1
        elif phase == "model" and payload is not None and payload.get("event_name") == MODEL_CALL:
            # read as usage_df reads it (store.facts.call_row), so the summary, the live totals and the frames agree
            row = call_row(payload, e.get("timestamp"))
            self.calls.append(row)
            self.usage.add(row)
        elif phase == "tool" and payload is not None and payload.get("event_name") == TOOL_REQUESTED:
            self.tool_requests += 1
        elif phase == INTEGRATION_PHASE:
            undrafted = self.undrafted = self.undrafted or [0, 0]
            if payload is not None:
                undrafted[0] += payload.get(UNDRAFTED_CALL) is True
                undrafted[1] += payload.get(UNDRAFTED_APPROVAL) is True
        elif phase == "direction" and payload is not None:
            # Noēsis' direction payload: ``status`` applied | blocked (a governance veto) | skipped
            status = payload.get("status")
            if status == "applied" or (status is None and payload.get("applied") is True):
                self.direction[0] += 1
            elif status == "blocked":
                self.direction[1] += 1


#: the summary's counts (``x-noesis_nb``) of an integration run's tool calls and approval requests that became no
#: draft; absent in a run with no integration event, and in one an earlier release imported
UNDRAFTED_COUNTS = ("undrafted_tool_calls", "undrafted_approvals")
_COUNTED = frozenset({"act", "direction", "governance", "model", "start", "tool", INTEGRATION_PHASE})
_TIMED = frozenset({"observe", "interpret", "plan", "act", "reflect"})
#: the phases ``EventTally.add`` reads more of than the phase: an event of any other phase is only counted in ``phases``
TALLIED_IN_DETAIL = _COUNTED | _TIMED


def _latencies(tally: EventTally) -> dict[str, int]:
    """``first_action_ms`` and ``time_to_veto_ms`` as Noēsis' insight metrics compute them: from the start event to
    the first act / enforced veto, whole ms rounded up (0 when not later); left out when an event is missing."""
    start = _ts(tally.start_ts)
    found = {}
    for key, stamp in (("first_action_ms", tally.first_act_ts), ("time_to_veto_ms", tally.first_veto_ts)):
        end = _ts(stamp)
        if start is not None and end is not None:
            found[key] = max(0, math.ceil((end - start).total_seconds() * 1000.0))
    return found


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
    score: Any = None,
    score_error: Any = None,
    tally: EventTally | None = None,
) -> dict[str, Any]:
    """The summary of a run whose events (up to its terminate and state projection) are ``events``.

    A pure function of what is on disk, so a seal interrupted by a crash is completed identically.
    ``tally`` is those events' ``EventTally`` when the recorder kept it (then only the last few
    events are looked at: the summary takes constant time however long the run).
    """
    tally = EventTally.of(events) if tally is None else tally
    episode = state["episode"]
    extension = state.get("x-noesis_nb") or {}
    mode = extension.get("governance_mode", "off")
    governance = {
        "mode": mode,
        "failure_policy": effective_failure_policy(mode, extension.get("failure_policy")),
        "veto_count": tally.veto,
        "would_veto_count": tally.would_veto,
    }
    phases = tally.phases
    phase_ms = tally.phase_ms
    last = _episode_end(events)
    started = _ts(episode.get("started_at"))
    duration_sec = round(((last or started) - started).total_seconds(), 6) if started else 0.0
    steps = state["plan"].get("steps") or []
    done = sum(1 for s in steps if s.get("status") == "done")
    tools_used = tally.tools
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
        "phase_ms": dict(phase_ms),
    }
    metrics = {
        **insight,
        # counts of governance events, as Noēsis' metrics give them (never a yes/no)
        "governance_vetoed": veto_count,
        "governance_would_vetoed": governance.get("would_veto_count", 0),
        "plan_count": phases.get("plan", 0),
        "plan_total": len(steps),
        "steps": phases.get("act", 0),  # Noēsis keeps steps equal to act_count
        "ideal_steps": len(steps),
        # every act event, a synthetic one too (Noēsis' artifact invariant: act_count equals the act events; only its
        # pre-1.3 smoke runs left their planner's synthetic act out)
        "act_count": phases.get("act", 0),
        "reflect_count": phases.get("reflect", 0),
        "interpret_count": phases.get("interpret", 0),
        # every intuition and direction event, an adapter's (``ctx.emit``) too: one rule for the phase counts
        "intuition_events": phases.get("intuition", 0),
        "direction_events": phases.get("direction", 0),
        "direction_applied": tally.direction[0],
        "direction_vetoed": tally.direction[1],
        "direction_applied_rate": round(tally.direction[0] / phases["direction"], 4) if phases.get("direction") else 0.0,
        "top_reasons": reasons[:5],
        "policy_confidence_histogram": [0] * 10,
        "alignment": 0.0,
        "learn_proposals": 0,
        "learn_applied": 0,
        "latencies": {
            "total_ms": round(duration_sec * 1000.0),
            **_latencies(tally),
        },
    }
    if isinstance(score, (bool, int, float)):
        metrics["score"] = score  # a batch scorer's verdict; the insight event keeps its five keys
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
        "x-noesis_nb": {
            "reasons": reasons,
            "usage": usage_summary(tally.calls),
            "tool_requests": tally.tool_requests,
            **(dict(zip(UNDRAFTED_COUNTS, tally.undrafted)) if tally.undrafted is not None else {}),
            **({"batch": extension["batch"]} if isinstance(extension.get("batch"), dict) else {}),
            **({"score_error": score_error} if isinstance(score_error, str) else {}),
        },
    }


def _episode_end(events: list[dict[str, Any]]) -> Any:
    """When the episode ended (``store.lostend.episode_end_marks``): its ``terminate`` event's time, or for a run
    sealed after its process died its last sign of life; the seal's bookkeeping after it is not counted. Without a
    terminate, the last event's time."""
    marks = (_ts(events[i].get("timestamp")) for i in episode_end_marks(events))
    return next((t for t in marks if t is not None), None)
