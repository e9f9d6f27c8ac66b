"""The detectors' verdicts on long texts read before, so a payload screened again is not read again.

A governed tool call's argument is screened several times before its draft is written and announced (its
evidence, the save's last guard, the candidate event's screen): read by the detectors each time, a 10 MB argument
held the notebook's loop 11-14 s. A text of ``LONG_TEXT``+ characters is read once; its verdict is kept under the
text's length and BLAKE2b digest (hashing is ~1% of a read), never with the text itself: a long text is not held
past its screen (``gates.forget``), a secret in it least of all. A verdict is given for an equal text with the same
``entropy`` rule and the detectors' gates on or off as then (``gates.unfiltered``). Only an exact ``str`` is looked
up: a subclass could say it equals anything (its own ``__eq__``, its own ``encode``), so it is read each time.
What a run has learned plays no part: ``find_in_text`` finds by value alone, and each screen still applies the
run's known values itself. The last ``KEEP`` verdicts are held (a payload of many long fields keeps them all).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

from .gates import filtered

__all__ = ["LONG_TEXT", "KEEP", "judged"]

LONG_TEXT = 65_536  # characters: a text shorter is read each time (its read costs less than a millisecond or so)
KEEP = 1024  # verdicts held: a key and the few values found, whatever the texts' sizes

_LOCK = threading.Lock()
_KEPT: OrderedDict[tuple[int, bytes, bool, bool], frozenset[str]] = OrderedDict()  # the newest last


def _key(text: str, entropy: bool, gated: bool) -> tuple[int, bytes, bool, bool]:
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).digest()
    return len(text), digest, entropy, gated


def judged(text: str, entropy: bool, judge: Callable[[str, bool], set[str]]) -> frozenset[str]:
    """``judge(text, entropy)``, or its verdict on an equal text read before with the same rules."""
    if type(text) is not str:  # a subclass's own methods decide what it equals and how it encodes
        return frozenset(judge(text, entropy))
    key = _key(text, entropy, filtered())
    with _LOCK:
        found = _KEPT.get(key)
        if found is not None:
            _KEPT.move_to_end(key)
            return found
    found = frozenset(judge(text, entropy))
    with _LOCK:
        _KEPT[key] = found
        while len(_KEPT) > KEEP:
            _KEPT.popitem(last=False)
    return found
