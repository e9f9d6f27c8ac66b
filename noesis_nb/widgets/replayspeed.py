"""How fast a replay plays: the speed as a person types it, and the next frame (events to move, seconds to wait).

1× and 10× play in the run's own time (a gap longer than ``MAX_GAP_S``, a pause for a person, is shortened to it),
divided by the speed: each frame shows every event due by the time played, at most one redraw per ``REDRAW_S`` (they
moved one event a frame, so 10,000 events half a second apart took a minute at 1×, each frame one redraw).
"max" moves ``total // MAX_FRAMES`` events a frame (at least one) and waits no longer than
10× would over the same events, nor than ``FRAME_S``: it is never slower than 10× (it waited ``FRAME_S`` per event
on a run of fewer than 200 events, so a quick run played slower at "max" than at 1×).
"""

from __future__ import annotations

import bisect
import numbers
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidOptionError
from ..secrets.quoted import quoted

__all__ = ["SPEEDS", "MAX_GAP_S", "MAX_FRAMES", "FRAME_S", "REDRAW_S", "speed_named", "next_frame", "run_clock", "paced_frame"]

SPEEDS = {"1×": 1.0, "10×": 10.0, "max": 0.0}
MAX_GAP_S = 5.0
MAX_FRAMES = 100  # "max" shows a run in at most about this many redraws
FRAME_S = 0.05  # and waits at most this long between two of them
REDRAW_S = 0.1  # 1× and 10× redraw at most ten times a second
_TYPED = {"1": "1×", "1x": "1×", "1×": "1×", "10": "10×", "10x": "10×", "10×": "10×", "max": "max"}


def speed_named(value: Any) -> str:
    """The ``SPEEDS`` key ``value`` names: '10x', '10X', 10, '10' and '10×' are 10×; 'MAX' and 'Max' are max."""
    if not isinstance(value, bool) and isinstance(value, numbers.Real) and value in (1, 10):
        return "1×" if value == 1 else "10×"
    if isinstance(value, str) and value.strip().lower() in _TYPED:
        return _TYPED[value.strip().lower()]
    raise InvalidOptionError(f"speed={quoted(value)}: use '1x', '10x' or 'max' (or the numbers 1 and 10)")


def _gap(times: Sequence[float | None], i: int) -> float:
    """Seconds between event ``i - 1`` and event ``i`` (none before the first, or when a time is unknown)."""
    a, b = (times[i - 1] if i else None), times[i]
    return min(MAX_GAP_S, max(0.0, b - a)) if a is not None and b is not None else 0.0


def next_frame(times: Sequence[float | None], k: int, speed: str) -> tuple[int, float]:
    """(events to move on, seconds to wait first) for the frame after the first ``k`` of ``times`` at ``speed``."""
    rate = SPEEDS[speed]
    if rate:
        return 1, _gap(times, k) / rate
    step = max(1, min(len(times) - k, len(times) // MAX_FRAMES))
    at_ten = sum(_gap(times, i) for i in range(k, k + step)) / SPEEDS["10×"]
    return step, min(FRAME_S, at_ten)


def run_clock(times: Sequence[float | None]) -> list[float]:
    """Seconds into the run at which each event of ``times`` happened, each gap over ``MAX_GAP_S`` shortened to it."""
    clock, at = [], 0.0
    for i in range(len(times)):
        at += _gap(times, i)
        clock.append(at)
    return clock


def paced_frame(clock: Sequence[float], start: int, speed: str, played_s: float) -> tuple[int, float]:
    """(events shown, seconds until the next is due) ``played_s`` seconds after playing from ``start`` events at 1× or 10×.

    ``clock`` is ``run_clock(times)``; every event due by then is shown at once, however many, so the play keeps
    the run's time whatever a redraw costs.
    """
    rate = SPEEDS[speed]
    at = (clock[start - 1] if start else 0.0) + max(0.0, played_s) * rate
    shown = max(start, bisect.bisect_right(clock, at))
    if shown >= len(clock):
        return len(clock), 0.0
    return shown, max(0.0, (clock[shown] - at) / rate)
