"""What a view shows, computed without widgets: a tally of events and the header fields.

``Tally`` is fed by the view's flusher (one thread); ``view_state`` reads a handle-like
source (a live ``EpisodeHandle`` or a run from disk) and is what both the live header and
the static snapshot render. Running time is defined once, here (:class:`RunClock`): from the
run's start to its terminate (or now, while running), minus the time spent paused waiting for a
person (``frames.waits``, the rule of ``runs_df.waiting_s``) — the same for a live view, a view of
the run read from disk and the frames' ``duration_s - waiting_s``.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from ..frames.waits import PauseSpans
from ..runtime.source import RunSource
from ..store.instants import epoch_seconds
from ..store.lostend import last_sign_of_life, sealed_lost
from ..store.shownnames import shown_id
from ..store.vocab import TERMINAL_STATUSES
from .meter import CostMeter, format_cost
from .render import UNKNOWN_SIGN, by_rejection, event_flag, shown_status

__all__ = [
    "Tally",
    "RunClock",
    "CostMeter",
    "view_state",
    "format_tokens",
    "format_cost",
    "no_calls",
    "format_elapsed",
    "format_seconds",
    "waited_words",
    "running_words",
    "TERMINAL",
]

TERMINAL = TERMINAL_STATUSES
# phases that stand out only through payload.error / payload.status (checked cheaply first)
_QUIET = frozenset(
    {
        "model",
        "reason",
        "start",
        "observe",
        "interpret",
        "plan",
        "direction",
        "action_candidate",
        "act",
        "reflect",
        "learn",
        "insight",
        "memory",
        "integration",
        "steer",
        "drain",
    }
)


class Tally:
    """Running counts by phase and flag, plus the newest ``keep`` events."""

    def __init__(self, keep: int = 50):
        self.clock = RunClock()
        self.total = 0
        self.counts: Counter[str] = Counter()
        self.flags: Counter[str] = Counter({"pause": 0, "veto": 0, "error": 0})
        self.recent: deque[Mapping[str, Any]] = deque(maxlen=keep)
        self.rejected = False  # the run ended vetoed because a tool call was rejected (its terminate says so)

    def extend(self, events: list[Mapping[str, Any]]) -> None:
        """Count a batch (the hot path of a redraw: ~0.3 µs an event)."""
        counts, flags, quiet = self.counts, self.flags, _QUIET
        for event in events:
            phase = event.get("phase") or "?"
            counts[phase] = counts.get(phase, 0) + 1
            if phase in quiet:
                payload = event.get("payload")
                if type(payload) is not dict and not isinstance(payload, Mapping):
                    continue
                if not (payload.get("error") or payload.get("status")):
                    continue
            elif phase == "runtime" and self.clock.note(event):
                flags["pause"] += 1  # a pause, once however many events it writes
            elif phase == "terminate":
                self.clock.end(event, partial(_before, event, events, self.recent))
                self.rejected = by_rejection(event)
            flag = event_flag(event)
            if flag == "veto" and (by_rejection(event) or (self.rejected and phase == "runtime")):
                flag = "rejection"  # a person's rejection (the state projection after its terminate too), no veto
            if flag and flag != "pause":  # an approval a policy answered at once asked, but never paused
                flags[flag] += 1
        if events:
            self.clock.span(events[0], events[-1])
        self.total += len(events)
        self.recent.extend(events[-(self.recent.maxlen or len(events)) :])


class RunClock:
    """Running time of a run from its events: from its start to its end (now while running) minus the time paused
    for a person. Start is the run's ``started_at`` when given (else its first event), end its ``terminate`` (else
    its last event), as ``summary.duration_sec`` counts them; the pauses are ``frames.waits.PauseSpans``, the rule
    of ``runs_df.waiting_s``. So the view's running time is ``duration_s - waiting_s`` of the frames.

    A run whose process died and that was sealed later (``process_lost``) ran until the last event its own writers
    left, not until the seal: the time between lies with nobody. Its end is that last sign of life (see ``lost_end``),
    and a pause its sealing closed counts as a wait only up to it. (``summary.duration_sec``, and so ``runs_df``'s
    ``duration_s``, still runs to the seal for such a run.)
    """

    def __init__(self) -> None:
        self.first: float | None = None
        self.last: float | None = None
        self.ended: float | None = None  # the terminate event's time: where the episode (and its duration) ends
        self.pauses = PauseSpans()
        self._closed: tuple[float, float] | None = None  # (paused at, resumed at) of the last pause closed
        self.spans: list[tuple[float, float]] = []  # every pause closed, in order: a tool step's wait is one of them

    @property
    def paused_since(self) -> float | None:
        return self.pauses.paused_since

    @property
    def waited(self) -> float:
        """Seconds of closed pauses; a pause closed after the run's end (a lost run's seal) counts up to its end."""
        waited = self.pauses.waited
        if self.ended is not None and self._closed is not None and self._closed[1] > self.ended:
            paused, resumed = self._closed
            waited -= resumed - max(paused, self.ended)
        return max(0.0, waited)

    def note(self, event: Mapping[str, Any]) -> bool:
        """Follow pauses and resumes; True when ``event`` starts a pause."""
        paused = self.pauses.paused_since
        starts = self.pauses.note(event)
        if paused is not None and self.pauses.paused_since is None:
            resumed = _epoch(event.get("timestamp"))
            self._closed = (paused, resumed) if resumed is not None else None
            if self._closed is not None:
                self.spans.append(self._closed)
        return starts

    def span(self, first: Mapping[str, Any], last: Mapping[str, Any]) -> None:
        if self.first is None:
            self.first = _epoch(first.get("timestamp"))
        self.last = _epoch(last.get("timestamp")) or self.last

    def end(self, event: Mapping[str, Any], before: Callable[[], Iterable[Mapping[str, Any]]] = tuple) -> None:
        """Note the episode's ``terminate`` event: the end its duration is counted to (not the seal's bookkeeping);
        for a lost run sealed later, its last sign of life among ``before()`` (the events before it, newest first)."""
        end = lost_end(event, before) if sealed_lost(event) else None
        self.ended = end or _epoch(event.get("timestamp")) or self.ended

    def running(self, status: str, now: float | None = None, started: Any = None) -> float | None:
        """Seconds the run has been running (not paused) since ``started`` (its first event when not given);
        None before its first event."""
        if self.first is None:
            return None
        start = _epoch(started) if started is not None else None
        start = self.first if start is None else start
        if self.paused_since is not None:
            end = self.paused_since
        elif status == "running":
            end = time.time() if now is None else now
        else:
            end = self.ended if self.ended is not None else self.last if self.last is not None else self.first
        return max(0.0, end - start - self.waited)

    def waiting(self, status: str, now: float | None = None) -> float:
        """Seconds spent paused for a person so far (counting an open pause up to now)."""
        open_pause = 0.0
        if self.paused_since is not None and status == "paused":
            open_pause = max(0.0, (time.time() if now is None else now) - self.paused_since)
        return self.waited + open_pause


def lost_end(terminate: Mapping[str, Any], before: Callable[[], Iterable[Mapping[str, Any]]]) -> float | None:
    """When a lost run last showed life (``store.lostend``): the time of the newest event before ``terminate`` (among
    ``before()``, newest first) that its sealer did not write; None when none is found."""
    event = last_sign_of_life(terminate, before())
    return None if event is None else _epoch(event.get("timestamp"))


def _before(
    event: Mapping[str, Any], batch: list[Mapping[str, Any]], recent: Iterable[Mapping[str, Any]]
) -> Iterator[Mapping[str, Any]]:
    """The events before ``event`` (of ``batch``), newest first, then those of earlier batches kept in ``recent``."""
    at = next(i for i, e in enumerate(batch) if e is event)
    yield from reversed(batch[:at])
    yield from reversed(list(recent))


def no_calls(usage: Mapping[str, Any] | None) -> bool:
    """Whether ``usage`` says the run made no model call (0 calls, totals 0), not that its calls are unknown."""
    return usage is not None and usage.get("model_calls") == 0 and usage.get("input_tokens") == 0


def format_tokens(usage: Mapping[str, Any] | None) -> str:
    """``"105 in · 7 out (2 calls)"`` (``"(1 call)"`` for one) from a run's ``usage``; a total that is
    unknown (None: some call did not report it) reads ``—``, never 0. A run known to have made no call
    reads ``0 in · 0 out (0 calls)``, as ``runs_df`` sums its ``usage_df`` rows (none)."""
    if not usage or not (usage.get("model_calls") or no_calls(usage)):
        return "—"

    def part(key: str) -> str:
        value = usage.get(key)
        return UNKNOWN_SIGN if value is None else f"{value:,}"

    calls_n = usage["model_calls"]
    return f"{part('input_tokens')} in · {part('output_tokens')} out ({calls_n:,} call{'' if calls_n == 1 else 's'})"


def _epoch(value: Any) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    return epoch_seconds(value)  # the frames' rule: a time with no offset is UTC, not the kernel's local time


def format_elapsed(started: Any, ended: Any, status: str, now: float | None = None) -> str:
    """Wall time between two moments (epoch seconds or ISO-8601); ``—`` when unknown."""
    start = _epoch(started)
    if start is None:
        return "—"
    end = _epoch(ended)
    if end is None:
        if status in TERMINAL:
            return "—"
        end = time.time() if now is None else now
    return format_seconds(max(0.0, end - start))


def format_seconds(seconds: float | None) -> str:
    """A duration as people read one: ``12.5 s``, ``2 min 03.0 s``, ``3 h 05 min``, ``702 d 7 h`` (``—``: unknown,
    not a number, or endless: an infinite duration is no reading of a clock)."""
    if seconds is None or not math.isfinite(seconds):
        return "—"
    seconds = round(seconds, 1) + 0.0  # rounded before it is split: 59.96 s reads 1 min 00.0 s, never 60.0 s (+ 0.0: no -0.0)
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    return f"{int(seconds // 86400):,} d {int(seconds % 86400 // 3600)} h"


WAIT_SHOWN_S = 0.05  # a wait for people shorter than this reads as none ("+ 0.0 s" would say nothing)


def waited_words(waited: float | None) -> str | None:
    """A wait for people as a header says it (``1.6 s``), None when there was none to speak of."""
    return format_seconds(waited) if waited is not None and waited >= WAIT_SHOWN_S else None


def running_words(running: float | None, waited: float | None) -> str:
    """Running time with the wait for people apart: ``0.3 s (+ 1.6 s waiting for people)``, as an episode view's
    header and the batch grid (its header and each episode's line) say it."""
    wait = waited_words(waited)
    return format_seconds(running) + (f" (+ {wait} waiting for people)" if wait else "")


def run_times(source: Any, tally: Tally, status: str, now: float | None = None) -> tuple[float | None, float]:
    """A run's running time and wait for people as its view's header counts them: ``tally``'s clock from the run's
    own start (``source.started_at``, as ``summary.duration_sec`` counts), so ``duration_s - waiting_s`` of the
    frames. The batch grid's time column says the same (not its entry's wall clock, scheduling and seal included)."""
    clock = tally.clock
    return clock.running(status, now, getattr(source, "started_at", None)), clock.waiting(status, now)


def view_state(
    source: RunSource, tally: Tally, now: float | None = None, meter: CostMeter | None = None, **extra: Any
) -> dict[str, Any]:
    """Everything the header and the snapshot need, read once from ``source`` (``extra`` is passed through).

    ``now``: defaults to the source's own clock when it has one (a replay's moment), else the wall clock."""
    if now is None:
        now = getattr(source, "now", None)
    status = source.status
    running, waited = run_times(source, tally, status, now)
    header = {
        # a folder named with a credential, as every view names it (``[REDACTED:<mark>]``: two such runs apart)
        # and what the run's own files reveal as secrets (a run copied in, named with the password its events say)
        "episode_id": shown_id(source.episode_id, getattr(source, "revealed", frozenset()))
        if isinstance(source.episode_id, str)
        else source.episode_id,
        "task": source.task,
        "using": source.using,
        "status": shown_status(status, tally.rejected),  # the word shown; ``status`` below stays the run's own
        "elapsed": format_seconds(running),
        "waited": waited_words(waited),
        "tokens": format_tokens(source.usage),
        "cost": format_cost(source.usage_calls, meter, none_known=no_calls(source.usage)),
    }
    return {
        "header": header,
        "status": status,
        "pending": [] if status in TERMINAL else list(source.pending),  # an ended run waits for nobody
        "decisions": list(source.decisions),
        "recent": list(tally.recent),
        "total": tally.total,
        "counts": dict(tally.counts),
        "flags": dict(tally.flags),
        "running_s": running,  # the running time and wait shown, unrounded: runs_df's duration_s - waiting_s, waiting_s
        "waiting_s": waited,
        "problems": list(source.problems),  # what of the run could not be read: the snapshot names it
        **extra,
    }
