"""How fast a replay plays: the speed as a person types it, and the next frame (events to move, seconds to wait).

1× and 10× wait the run's own gaps (a gap longer than ``MAX_GAP_S``, a pause for a person, is shortened to it),
divided by the speed. "max" moves ``total // MAX_FRAMES`` events a frame (at least one) and waits no longer than
10× would over the same events, nor than ``FRAME_S``: it is never slower than 10× (it waited ``FRAME_S`` per event
on a run of fewer than 200 events, so a quick run played slower at "max" than at 1×).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidOptionError
from ..secrets.quoted import quoted

__all__ = ["SPEEDS", "MAX_GAP_S", "MAX_FRAMES", "FRAME_S", "speed_named", "next_frame"]

SPEEDS = {"1×": 1.0, "10×": 10.0, "max": 0.0}
MAX_GAP_S = 5.0
MAX_FRAMES = 100  # "max" shows a run in at most about this many redraws
FRAME_S = 0.05  # and waits at most this long between two of them
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
