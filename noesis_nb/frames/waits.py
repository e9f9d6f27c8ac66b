"""Time a run spent waiting for people, from its events: one rule for the live view and the frames.

A pause starts at ``run.interrupt`` (or a ``run.checkpoint`` without one before it) and ends at ``run.resume``;
the wait is the sum of those spans. A pause an approver policy decided (``store.vocab.POLICY_PAUSE_KEY`` on its
events) waited for nobody: it is no span, and no pause a person is counted for. ``runs_df.waiting_s`` and the
view's ``(+ … waiting for people)`` both come from ``PauseSpans``, so a run's running time (``duration_s -
waiting_s``) reads the same everywhere. Plain Python (no pandas): the view imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..store.instants import epoch_seconds
from ..store.vocab import POLICY_PAUSE_KEY, RUN_CHECKPOINT, RUN_INTERRUPT, RUN_RESUME

__all__ = [
    "PauseSpans",
    "pause_kind",
    "line_pause_kind",
    "pauses_for_a_person",
    "waiting_seconds",
    "instant",
    "policy_paused",
    "draft_wait",
    "POLICY_APPROVER",
    "PAUSE_NAMES",
]

POLICY_APPROVER = "policy:"  # how an approver policy's decision names its approver (``policy:<name>``)

_PAUSE_KINDS = (RUN_INTERRUPT, RUN_CHECKPOINT)
PAUSE_NAMES = (*_PAUSE_KINDS, RUN_RESUME)  # the events a pause is read from (``PauseSpans.note`` reads only these)


def instant(value: Any) -> float | None:
    """Epoch seconds of a stored time (ISO-8601 text by ``store.instants``' rule) or of a number; None when unknown."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return epoch_seconds(value)


def _name(event: Mapping[str, Any]) -> Any:
    """A line's name as ``events_df.event_name`` gives a runtime line: ``event_type``, else ``payload.event_name``
    (text, not empty; anything else is unknown, as the frames read it)."""
    name = event.get("event_type")
    if type(name) is str and name:
        return name
    payload = event.get("payload")
    name = payload.get("event_name") if isinstance(payload, Mapping) else None
    return name if type(name) is str else None


def pause_kind(phase: Any, name: Any, payload: Any) -> Any:
    """What a line is to a pause (``run.interrupt``, ``run.checkpoint``, ``run.resume`` or anything else): the one
    rule of ``PauseSpans``, so of ``runs_df.waiting_s``, the view's clock and ``tools_df.wait_s``.

    Only the episode's own lines count (phase ``runtime``, which an adapter cannot write): a note an adapter names
    ``run.checkpoint`` or ``run.resume`` is no pause. ``name`` is the line's name as ``events_df.event_name`` has it
    (``event_type``, else ``payload.event_name``); a line without one is read by ``payload.kind`` (older lines and
    crafted runs carry only the payload's)."""
    if phase != "runtime":
        return None
    if type(name) is str and name:
        return name
    return payload.get("kind") if isinstance(payload, Mapping) else None


def line_pause_kind(event: Mapping[str, Any]) -> Any:
    """``pause_kind`` of one line as written (a mapping with ``phase``, ``event_type`` and ``payload``)."""
    return pause_kind(event.get("phase"), _name(event), event.get("payload"))


def pauses_for_a_person(kind: Any, payload: Any) -> bool:
    """Whether a line ``pause_kind`` read as ``kind`` starts or holds a pause for a person: a ``run.interrupt`` or
    ``run.checkpoint`` no approver policy decided. The view's pause badge and the timeline's pause marks."""
    return kind in _PAUSE_KINDS and not (isinstance(payload, Mapping) and isinstance(payload.get(POLICY_PAUSE_KEY), str))


def policy_paused(event: Mapping[str, Any]) -> bool:
    """Whether ``event`` is the ``run.interrupt``, ``run.checkpoint`` or ``run.resume`` of a pause a policy decided."""
    payload = event.get("payload")
    return isinstance(payload, Mapping) and isinstance(payload.get(POLICY_PAUSE_KEY), str)


class PauseSpans:
    """Follows a run's events one at a time: ``waited`` seconds of closed pauses, ``paused_since`` an open one."""

    __slots__ = ("paused_since", "pausing", "waited", "spans")

    def __init__(self) -> None:
        self.paused_since: float | None = None
        self.pausing = False  # inside a pause (also when its time could not be read)
        self.waited = 0.0
        self.spans: list[tuple[float, float]] = []  # each closed pause (paused at, resumed at), in order

    def note(self, event: Mapping[str, Any]) -> bool:
        """Follow pauses and resumes; True when ``event`` starts a pause."""
        phase = event.get("phase")
        if phase != "runtime":
            return False
        payload = event.get("payload")
        return self.follow(pause_kind(phase, _name(event), payload), event.get("timestamp"), payload)

    def follow(self, kind: Any, timestamp: Any, payload: Any) -> bool:
        """Follow one line that ``pause_kind`` read as ``kind`` (the frames' columns give it); True when it starts a pause."""
        if kind in _PAUSE_KINDS:
            if not self.pausing and pauses_for_a_person(kind, payload):
                self.pausing, self.paused_since = True, instant(timestamp)
                return True
        elif kind == RUN_RESUME and self.pausing:
            resumed = instant(timestamp)
            if resumed is not None and self.paused_since is not None:
                self.waited += max(0.0, resumed - self.paused_since)
                self.spans.append((self.paused_since, resumed))
            self.pausing, self.paused_since = False, None
        return False


def draft_wait(
    asked: float | None,
    decided: float | None,
    pauses: Iterable[tuple[float, float]],
    approver: Any = None,
    *,
    undecided: bool = False,
) -> float | None:
    """How long a person kept one draft waiting: ``tools_df.wait_s`` and a tool step's ``(waited …)``.

    The run's pause for a person that held the draft (interrupt or checkpoint to resume, as ``waiting_s`` counts it):
    the last of ``pauses`` (closed, policy pauses left out) that began between the draft's ask and its decision.
    Drafts asked for at once pause one at a time, so a held draft's wait is its own turn, not the pause before it,
    and a run's drafts' waits add up to its ``waiting_s``. A draft no such pause held (its run still paused, a run
    written without pause events) waited from its ask to its decision. None when a policy decided it (``approver``
    ``policy:…``: nobody waited) or a time is unknown.

    ``undecided``: the run ended without deciding it (``tools_df``'s ``undecided``; ``decided`` None). It waited
    through the last pause that began after ``asked``, its ``tool.approval.pending`` (the pause the run's end closed,
    counted in ``waiting_s``); None when none did (a draft held behind another's pause was never asked)."""
    if undecided:
        last = max(((start, end) for start, end in pauses if asked is not None and asked <= start), default=None)
        return None if last is None else max(0.0, last[1] - last[0])
    if asked is None or decided is None or (isinstance(approver, str) and approver.startswith(POLICY_APPROVER)):
        return None
    held = [(start, end) for start, end in pauses if asked <= start <= decided]
    if held:
        start, end = max(held)
        return max(0.0, end - start)
    return max(0.0, decided - asked)


def waiting_seconds(events: Iterable[Mapping[str, Any]]) -> float:
    """Seconds of the run's closed pauses (interrupt or checkpoint to resume); 0.0 for a run never paused."""
    spans = PauseSpans()
    for event in events:
        if type(event) is dict or isinstance(event, Mapping):
            spans.note(event)
    return spans.waited
