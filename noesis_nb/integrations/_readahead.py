"""Where a recorded trace's run starts: its rows read ahead for their first recorded time.

The run's own first events (start, plan) are written before any row, so a replay's clock must know the trace's
first time before the run begins; otherwise they are stamped at import and every recorded time after them would be
clamped to that, mixing two clocks in one run. ``import_rows`` and a :class:`~.replay.RecordedReplay` given to
``start`` or ``solve`` read ahead the same way (:func:`read_ahead`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from ..store.instants import utc_micros
from ..store.replayclock import JUMP_US, ReplayClock, plausible
from ._emit import DURATION_MS, RECORDED_AT, Row, recorded_duration

__all__ = [
    "LOOK_AHEAD",
    "ON_LOOP_S",
    "read_ahead",
    "read_ahead_on_loop",
    "clock_for",
    "first_time",
    "recorded",
    "replayed",
]

LOOK_AHEAD = 1000  # rows a stream is read ahead for its first recorded time
ON_LOOP_S = 0.5  # the longest a running loop (a notebook's: start, a batch) waits for that read


def recorded(item: Any) -> tuple[int | None, float | None]:
    """A row's recorded time (microseconds) and duration (ms), each None when it carries none."""
    payload = item[1] if isinstance(item, tuple) and len(item) == 2 else None
    if not isinstance(payload, dict):
        return None, None
    return utc_micros(payload.get(RECORDED_AT)), recorded_duration(payload.get(DURATION_MS))


def first_time(read: list[Row]) -> int | None:
    """The time a run of ``read`` starts at: its first plausible recorded time, or the next one when that is more
    than an hour earlier (the first a lone jump ahead); None when it has none."""
    known = (t for t in (recorded(item)[0] for item in read) if plausible(t))
    first = next(known, None)
    second = next(known, None)
    if first is not None and second is not None and second < first - JUMP_US:
        return second
    return first


def read_ahead(items: Iterator[Row], ahead: list[Row], timed: bool) -> tuple[int | None, Exception | None]:
    """Read ``items`` into ``ahead`` until a row with a recorded time (at most :data:`LOOK_AHEAD` rows; none when not
    ``timed``): (the run's start, or None; the error that stopped the reading, replayed after the rows before it)."""
    start = first_time(ahead)
    try:
        while timed and start is None and len(ahead) < LOOK_AHEAD:
            item = next(items, _END)
            if item is _END:
                break
            ahead.append(item)
            start = first_time([item])
    except Exception as exc:  # the run ends ``error`` with it, after the rows read
        return start, exc
    return start, None


def read_ahead_on_loop(items: Iterator[Row], ahead: list[Row], timed: bool) -> tuple[int | None, Iterator[Row], bool]:
    """:func:`read_ahead` where a loop runs on this thread (``start`` or a batch in a notebook): on a thread of its own,
    waited for at most :data:`ON_LOOP_S`, so a live stream whose next row is minutes away never freezes the kernel
    (nor holds its interrupt back). Returns the run's start (None when none was found in time), the rows read ahead
    (then the error that stopped the reading, as :func:`replayed` gives them), and whether the reading is still going
    on (those rows then wait for it: read on the episode's own thread, never the loop's)."""
    outcome: list[tuple[int | None, Exception | None]] = []
    reading = threading.Thread(
        target=lambda: outcome.append(read_ahead(items, ahead, timed)), name="noesis_nb:read-ahead", daemon=True
    )
    reading.start()
    reading.join(ON_LOOP_S)
    if not reading.is_alive():
        start, failure = outcome[0]
        return start, replayed(ahead, failure), False
    return None, _after(reading, outcome, ahead), True


def _after(reading: threading.Thread, outcome: list[tuple[int | None, Exception | None]], ahead: list[Row]) -> Iterator[Row]:
    reading.join()  # on the episode's own thread (a replay is a sync adapter): the loop goes on meanwhile
    yield from replayed(ahead, outcome[0][1] if outcome else None)


def clock_for(start: int | None, read: int, timed: bool) -> ReplayClock:
    """The run's clock once ``read`` rows were read ahead for ``start``: with no time found in the first
    :data:`LOOK_AHEAD` rows (or a source without times) its first events are stamped as imported, so later times are
    not used (a later time would be clamped to those: two clocks in one run)."""
    clock = ReplayClock(start)
    if start is None and (read >= LOOK_AHEAD or not timed):
        clock.ignoring = True
    return clock


def replayed(read: list[Row], failure: Exception | None) -> Iterator[Row]:
    """The rows read, then the error that stopped the reading (the run ends ``error`` with it)."""
    yield from read
    if failure is not None:
        raise failure


_END: Any = object()
