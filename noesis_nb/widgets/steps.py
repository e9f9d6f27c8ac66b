"""Events grouped into steps: the story of an episode rather than its log (pure; no widgets).

One tool call is one step (its ``tool`` contract events, its action candidate, and the pause
and resume around its approval, in order); one model call is one step; a governance decision is
one step (with the pause, the override and the new candidate that follow it); a steer is one step
(sent, then applied); a graceful stop is one step (started, refusals, report); the lifecycle's
opening (start … plan) and closing (act … memory) are one step each; anything else an adapter
emits is a step of its own. :class:`StepBook` takes events as they arrive and says which steps
changed, keeping only the newest ``keep`` steps (the view's DOM and traffic stay bounded).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from ..frames.waits import PAUSE_NAMES, line_pause_kind, policy_paused
from ..store.phases import DRAIN_PHASE, STEER_PHASE
from ..store.vocab import (
    RUN_CHECKPOINT,
    RUN_INTERRUPT,
    RUN_RESUME,
    RUN_STATE_PROJECTION,
    STEER_APPLIED,
    STEER_UNHEARD,
    TERMINAL_EXECUTION_EVENTS,
    TOOL_APPROVAL_ABANDONED,
    TOOL_APPROVAL_PENDING,
    TOOL_APPROVED,
    TOOL_EXECUTION_FAILED,
    TOOL_EXECUTION_OUTCOME_UNKNOWN,
    TOOL_EXECUTION_STARTED,
    TOOL_REJECTED_GOVERNANCE,
    TOOL_REQUESTED,
)

__all__ = ["Step", "StepBook", "group_steps", "OPENING", "CLOSING"]

OPENING = frozenset({"start", "observe", "interpret", "plan"})
CLOSING = frozenset({"act", "reflect", "learn", "terminate", "insight", "memory"})
_PAUSE_TYPES = frozenset({RUN_INTERRUPT, RUN_CHECKPOINT})
_TOOL_FAILED = frozenset({TOOL_EXECUTION_FAILED, TOOL_EXECUTION_OUTCOME_UNKNOWN})


def _payload(event: Mapping[str, Any]) -> Mapping[str, Any]:
    payload = event.get("payload")
    return payload if isinstance(payload, Mapping) else {}


class Step:
    """Consecutive or related events told as one line; ``version`` grows with every change."""

    __slots__ = ("index", "kind", "key", "events", "version", "tool", "draft_id", "state", "paused", "pause_events")

    def __init__(self, index: int, kind: str, key: str = ""):  # plain: a burst of events makes thousands of these
        self.index, self.kind, self.key = (
            index,
            kind,
            key,
        )  # kind: opening | closing | tool | model | governance | runtime | steer | drain | event
        self.events: list[Mapping[str, Any]] = []
        self.version = 0
        self.tool: str | None = None
        self.draft_id: str | None = None
        # tool: requested | pending | approved | rejected | abandoned | running | succeeded | failed; steer: sent | applied
        self.state = ""
        self.paused = False  # a pause is open inside this step (waiting for a human)
        self.pause_events = 0

    @property
    def first(self) -> Mapping[str, Any]:
        return self.events[0]

    @property
    def last(self) -> Mapping[str, Any]:
        return self.events[-1]

    def flag(self) -> str | None:
        """``pause`` while it waits for a human, ``veto`` when rejected or vetoed, ``error`` when it failed,
        ``abandoned`` when the adapter gave its call up while it waited for approval (it never ran)."""
        if self.kind == "tool":
            return {"pending": "pause", "rejected": "veto", "abandoned": "abandoned", "failed": "error"}.get(self.state)
        if self.paused:
            return "pause"
        if self.kind == "governance":
            payload = _payload(self.first)
            if payload.get("decision") == "veto":
                return "veto" if payload.get("enforced") else None
        if self.kind == "closing":
            status = next((_payload(e).get("status") for e in self.events if e.get("phase") == "terminate"), None)
            return {"error": "error", "vetoed": "veto"}.get(str(status))
        if self.kind == "event" and (self.first.get("phase") == "error" or _payload(self.first).get("error")):
            return "error"
        return None

    def add(self, event: Mapping[str, Any]) -> None:
        self.events.append(event)
        self.version += 1


class StepBook:
    """Groups events into steps as they arrive; keeps the newest ``keep`` steps."""

    def __init__(self, keep: int = 40):
        self.steps: deque[Step] = deque(maxlen=keep)
        self.total = 0  # steps made so far (also those no longer kept)
        self._tools: dict[str, Step] = {}  # open tool calls by request id
        self._pausing: Step | None = None  # the step a pause belongs to (the tool or veto that paused)
        self._resumed: Step | None = None  # a governance step just resumed: the override that follows joins it
        self._last: Step | None = None
        self._steers: dict[str, Step] = {}  # steers not applied yet, by steer id
        self._drain: Step | None = None
        # the lifecycle's opening while only steers came after it: a steer sent as the run starts (between ``start``
        # and ``observe``) is a step of its own, and the opening goes on after it, one step, not two called "start"
        self._opening: Step | None = None

    def _new(self, kind: str, key: str = "") -> Step:
        step = Step(self.total, kind, key)
        self.total += 1
        self.steps.append(step)
        self._last = step
        if kind == "opening":
            self._opening = step
        elif kind != "steer":
            self._opening = None
        return step

    def add(self, events: Iterable[Mapping[str, Any]]) -> list[Step]:
        """Group ``events`` (in order); return the steps that changed, each once, oldest first (some may be dropped already)."""
        changed: list[Step] = []
        last: Step | None = None
        seen: set[int] = set()
        for event in events:
            step = self._place(event)
            step.events.append(event)
            step.version += 1
            if step is not last:  # most events start or extend the newest step: no set lookup then
                if step.index not in seen:
                    seen.add(step.index)
                    changed.append(step)
                last = step
        changed.sort(key=_index)  # nearly always in order already: linear
        return changed

    def _place(self, event: Mapping[str, Any]) -> Step:
        phase = event.get("phase")
        if phase == "model":
            self._resumed = None
            return self._new("model")
        if phase == "tool":
            return self._tool(event)
        if phase == STEER_PHASE:
            return self._steer(event)
        if phase == DRAIN_PHASE:
            if self._drain is None:
                self._drain = self._new("drain")
            return self._drain
        if phase == "runtime":
            paused = line_pause_kind(event)  # the rule of runs_df.waiting_s: a pause named only by payload.kind too
            if paused in PAUSE_NAMES:
                return self._runtime(event, paused)
            kind = event.get("event_type")
            if kind is not None:
                return self._runtime(event, str(kind))
        if phase == "action_candidate":
            provenance = _payload(event).get("provenance")
            request = provenance.get("request_id") if isinstance(provenance, Mapping) else None
            if request:
                return self._tool_step(str(request))
            if self._resumed is not None:
                return self._resumed
            if self._opening is not None:
                return self._opening
            return self._new("opening")
        if phase == "governance":
            if self._resumed is not None:  # the human's allow after an override
                step, self._resumed = self._resumed, None
                return step
            return self._new("governance")
        self._resumed = None
        if phase in OPENING:
            if self._opening is not None and phase != "start":
                return self._opening
            return self._new("opening")
        if phase in CLOSING:
            if self._last is not None and self._last.kind == "closing":
                return self._last
            return self._new("closing")
        return self._new("event")

    def _tool_step(self, request: str) -> Step:
        step = self._tools.get(request)
        if step is None:
            step = self._tools[request] = self._new("tool", request)
            step.state = "requested"
        return step

    def _tool(self, event: Mapping[str, Any]) -> Step:
        payload = _payload(event)
        step = self._tool_step(str(payload.get("request_id") or "?"))
        name = payload.get("event_name")
        if not isinstance(name, str):  # a damaged line's list or object names no tool event
            name = None
        if name == TOOL_REQUESTED:
            step.tool = str(payload.get("tool") or "?")
        if payload.get("draft_id"):
            step.draft_id = str(payload["draft_id"])
        if name == TOOL_APPROVAL_PENDING:
            step.state, self._pausing = "pending", step
        elif name == TOOL_APPROVED:
            step.state = "approved"
        elif name == TOOL_REJECTED_GOVERNANCE or (isinstance(name, str) and name.startswith("tool.rejected")):
            step.state = "rejected"
            self._tools.pop(step.key, None)
        elif name == TOOL_APPROVAL_ABANDONED:  # the adapter went on without it: never run, decided or not
            step.state = "abandoned"
            self._tools.pop(step.key, None)
        elif name == TOOL_EXECUTION_STARTED:
            step.state = "running"
        elif name in TERMINAL_EXECUTION_EVENTS or name in _TOOL_FAILED:
            step.state = "failed" if name in _TOOL_FAILED else "succeeded"
            self._tools.pop(step.key, None)
        elif isinstance(name, str) and (name.endswith(".failed") or name.endswith(".denied") or name.endswith(".mismatch")):
            step.state = "failed"
            self._tools.pop(step.key, None)
        if step.state != "pending":
            step.paused = False
        self._resumed = None
        return step

    def _steer(self, event: Mapping[str, Any]) -> Step:
        payload = _payload(event)
        steer_id = str(payload.get("steer_id") or "?")
        if payload.get("event_name") in (STEER_APPLIED, STEER_UNHEARD) and steer_id in self._steers:
            step = self._steers.pop(steer_id)
            step.state = "applied" if payload.get("event_name") == STEER_APPLIED else "unheard"
            return step
        step = self._steers[steer_id] = self._new("steer", steer_id)
        step.state = "sent"
        return step

    def _runtime(self, event: Mapping[str, Any], kind: str) -> Step:
        pausing = self._pausing
        if kind in _PAUSE_TYPES:
            if pausing is None and self._last is not None and self._last.kind == "governance":
                pausing = self._pausing = self._last  # a veto pause
            if pausing is not None:
                if not policy_paused(event):  # a policy's pause, decided in the same breath, waits for nobody
                    pausing.paused = True
                    pausing.pause_events += 1
                return pausing
            return self._new("runtime")
        if kind == RUN_RESUME:
            if pausing is not None:
                pausing.paused = False
                self._pausing = None
                if pausing.kind == "governance":
                    self._resumed = pausing
                return pausing
            return self._new("runtime")
        if kind == RUN_STATE_PROJECTION:
            status = _payload(event).get("status")
            if status == "paused" and pausing is not None:
                return pausing
            if self._last is not None and self._last.kind == "closing":
                return self._last
        return self._new("runtime")


def _index(step: Step) -> int:
    return step.index


def group_steps(events: Iterable[Mapping[str, Any]], keep: int = 1_000_000) -> list[Step]:
    """Every step of ``events`` (or the newest ``keep``), oldest first."""
    book = StepBook(keep=keep)
    book.add(events)
    return list(book.steps)
