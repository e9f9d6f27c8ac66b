"""The detectors' verdicts on the last long texts read, so a payload screened again is not read again.

A governed tool call's argument is screened several times before its draft is written and announced (its
evidence, the save's last guard, the candidate event's screen): read by the detectors each time, a 10 MB argument
held the notebook's loop 11-14 s. A text of ``LONG_TEXT``+ characters is read once; the verdict is kept with the
text itself (a ``str`` never changes) and given for that text or an equal one (a copy read back from the draft's
file: comparing is a ``memcmp``, reading it is the detectors' whole work), with the same ``entropy`` rule and the
detectors' gates on or off as then (``gates.unfiltered``). What a run has learned
plays no part: ``find_in_text`` finds by value alone, and each screen still applies the run's known values itself.
Only the last ``KEEP`` texts are held.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .gates import filtered

__all__ = ["LONG_TEXT", "KEEP", "judged"]

LONG_TEXT = 65_536  # characters: a text shorter is read each time (its read costs less than a millisecond or so)
KEEP = 2  # long texts held with their verdicts (a payload's forms share their strings)

_LOCK = threading.Lock()
_KEPT: list[tuple[str, bool, bool, frozenset[str]]] = []  # (text, entropy, filtered, found), the last one first


def judged(text: str, entropy: bool, judge: Callable[[str, bool], set[str]]) -> frozenset[str]:
    """``judge(text, entropy)``, or its verdict on this very text when it was read last with the same rules."""
    gated = filtered()
    with _LOCK:
        for kept, with_entropy, with_gates, found in _KEPT:
            if (kept is text or kept == text) and with_entropy == entropy and with_gates == gated:
                return found
    found = frozenset(judge(text, entropy))
    with _LOCK:
        _KEPT.insert(0, (text, entropy, gated, found))
        del _KEPT[KEEP:]
    return found
