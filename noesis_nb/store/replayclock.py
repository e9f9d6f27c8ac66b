"""The clock of an imported run: every event of it is stamped with the recorded time, not the time of the import.

A recorded trace (Noeta envelopes, an AG-UI stream, …) carries when each of its events happened. Its import
drives this clock: before each row is written the replay moves it to that row's recorded time, and the run's
own events around the rows (start, the minimal plan, act, terminate, the seal's events) read it too, so the
run starts at its first recorded time and ends at its last. A time going backwards, or a row without one,
leaves the clock where it was (the last known time carries on: no order is made up). Until the clock is
given a time, events get the time of writing, as every run does.

A recorded time is used only inside a plausible window, 2000-01-01T00:00Z to one day after the import
(:func:`plausible`): a time counted from the task's start or read off a monotonic clock (a few seconds "since
1970"), or a year-9999 stand-in, would date the whole run. One outside it is taken as missing, and counted
(``outside``). A time more than an hour ahead of the clock (:data:`JUMP_US`) moves it only once the next known
time agrees (is no more than an hour before it): a row the next one contradicts, or the last known one, is taken
as missing and counted (``jumps``), so one wrong row never stamps the rest of the run. The row itself keeps the
last known time, as a row without one does. The source's value stays in each row's ``recorded_at``.

Only the import path makes one (``EventWriter.clock``); an ordinary episode has none, and its writer stamps
events as it always does.
"""

from __future__ import annotations

import bisect
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from .instants import MAX_US, MIN_US, utc_micros

__all__ = ["ReplayClock", "recorded_micros", "iso_of", "plausible", "EARLIEST_US", "JUMP_US"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EARLIEST_US = 946_684_800_000_000  # 2000-01-01T00:00Z: no recorded agent trace is older
_AHEAD_US = 86_400_000_000  # a time up to a day after the import (a clock set a little ahead) is taken
JUMP_US = 3_600_000_000  # a step ahead larger than an hour waits for the next known time to agree


def plausible(micros: int | None, now: int | None = None) -> bool:
    """Whether ``micros`` (microseconds since the epoch) can be when a trace was recorded: from 2000-01-01T00:00Z
    to a day after ``now`` (default: the time of the call)."""
    if micros is None:
        return False
    now = time.time_ns() // 1000 if now is None else now
    return EARLIEST_US <= micros <= now + _AHEAD_US


def iso_of(micros: int) -> str:
    """``micros`` since the epoch as the writer's ISO 8601 form (microseconds, ``+00:00``)."""
    return (_EPOCH + timedelta(microseconds=micros)).isoformat(timespec="microseconds")


def recorded_micros(value: Any, unit: float = 1.0) -> int | None:
    """A recorded time given as a number of ``unit`` seconds since the epoch (Noeta's ``occurred_at`` in seconds,
    AG-UI's ``timestamp`` in milliseconds: ``unit=0.001``) as microseconds; None when it is no such time (a bool,
    text, NaN, a time outside years 1–9999)."""
    if type(value) not in (int, float):
        return None
    try:
        micros = round(value * unit * 1_000_000)
    except (OverflowError, ValueError):  # infinite or NaN
        return None
    return micros if MIN_US <= micros <= MAX_US else None


class ReplayClock:
    """The recorded time of a run being imported (see the module's docstring); safe to call from several threads.

    ``start``: the trace's first recorded time in microseconds (None: it has none known yet).
    """

    def __init__(self, start: int | None = None):
        self._lock = threading.Lock()
        self.at = start  # microseconds since the epoch; None: no recorded time known yet (the time of writing)
        # (time.time_ns() // 1000 when the clock moved, the recorded time it moved to): what recorded time it was
        # at a moment of the import (a runtime step's start, for its metrics)
        self._moves: list[tuple[int, int]] = [] if start is None else [(time.time_ns() // 1000, start)]
        self._duration: float | None = None
        self._pending: int | None = None  # a time more than JUMP_US ahead, waiting for the next known one to agree
        self.outside = 0  # rows whose time was outside the plausible window (taken as missing)
        self.jumps = 0  # rows whose jump ahead no later time confirmed (taken as missing)
        self.ignoring = False  # recorded times are not used at all (the run was already stamped as imported)
        self.unused = 0  # rows whose time was not used while ``ignoring``

    def advance(self, micros: int | None, duration_ms: float | None = None) -> None:
        """The next row's recorded time (None, outside the plausible window, or earlier than the clock: it stays
        where it is; far ahead: see the module's docstring) and what the source says it lasted (given to the next
        event written, as its ``metrics``)."""
        with self._lock:
            self._duration = duration_ms
            if micros is None:
                return
            if self.ignoring:
                self.unused += 1
                return
            if not plausible(micros):
                self.outside += 1
                return
            pending, self._pending = self._pending, None
            if pending is not None:
                if micros >= pending - JUMP_US:  # the jump holds: the clock follows
                    self._move(max(micros, pending))
                    return
                self.jumps += 1  # contradicted: that row's time was not used
            if self.at is None or micros <= self.at + JUMP_US:
                if self.at is None or micros > self.at:
                    self._move(micros)
            else:
                self._pending = micros

    def finish(self) -> None:
        """The trace ended: a jump ahead no later time confirmed is counted as not used."""
        with self._lock:
            if self._pending is not None:
                self._pending = None
                self.jumps += 1

    def _move(self, micros: int) -> None:
        self.at = micros
        self._moves.append((time.time_ns() // 1000, micros))

    def stamp(self, event: dict[str, Any]) -> str:
        """The timestamp of ``event`` (the writer clamps it to the log's last as for any event); its ``metrics``
        and an ``observe`` payload's ``timestamp`` are put on the same clock."""
        with self._lock:
            at, duration, self._duration = self.at, self._duration, None
            if at is None:
                ts = event.get("timestamp") or iso_of(time.time_ns() // 1000)
                now = utc_micros(ts)
            else:
                ts, now = iso_of(at), at
            metrics = event.get("metrics")
            if at is not None and isinstance(metrics, dict):  # a runtime step timed on the import's clock
                began = self._recorded_at(utc_micros(metrics.get("started_at")), at)
                metrics.update(started_at=iso_of(began), completed_at=ts, duration_ms=(at - began) / 1000)
            elif duration is not None and metrics is None and now is not None:
                began = max(MIN_US, now - round(duration * 1000))
                event["metrics"] = {"started_at": iso_of(began), "completed_at": ts, "duration_ms": duration}
            payload = event.get("payload")
            if at is not None and event.get("phase") == "observe" and isinstance(payload, dict) and "timestamp" in payload:
                payload["timestamp"] = ts
            return ts

    def _recorded_at(self, real: int | None, default: int) -> int:
        """The recorded time the clock read at the real moment ``real`` (microseconds; the clock's first time
        for a moment before it moved at all)."""
        moves = self._moves
        if real is None or not moves:
            return default
        index = bisect.bisect_right(moves, (real, MAX_US)) - 1
        return moves[max(index, 0)][1]
