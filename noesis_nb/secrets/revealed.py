"""What a run's documents reveal as secrets, hunted in every field shown from that run.

A run noesis_nb did not write may name a secret once, in one file (an event's ``{"password": …}``, a summary task's
``password=…``), and hold the same value in clear in another (the summary's task, a flag, a tag, an event's prose).
The values each document reveals, by name or by format (as the event screen finds them), are learned together and
redacted in every field a reader shows from the run, whichever of its files was read first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from .._safetext import MAX_FREE_TEXT, cut_free_text
from .guard import RunSecrets
from .records import shown_records, shown_value

__all__ = ["revealed", "revealed_in_log", "scrubbed"]

_GUARDS: dict[frozenset[str], RunSecrets] = {}  # one per set of values: a load scrubs many fields with the same


def revealed(docs: Iterable[Any]) -> frozenset[str]:
    """The secret values parsed JSON documents (a summary, state.json, final.json) hold, found as a view finds them."""
    found: set[str] = set()
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("reason"), str) and len(doc["reason"]) > MAX_FREE_TEXT:
            # a decision's reason, taken cut as every reader takes it (``cut_free_text``): a 10 MB one any program
            # wrote into a decision file was screened whole by every load (seconds of CPU)
            doc = {**doc, "reason": cut_free_text(doc["reason"])}
        if doc is not None:
            shown_value(doc, found)
    return frozenset(found)


def revealed_in_log(data: bytes) -> frozenset[str]:
    """The secret values an ``events.jsonl``'s events hold, found as ``shown_records`` finds them (a line that is no
    JSON object holds none a reader shows)."""
    records = []
    for line in data.splitlines():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if type(record) is dict:
            records.append(record)
    return frozenset(shown_records(records))


def scrubbed(value: Any, values: frozenset[str]) -> Any:
    """``value`` with ``values`` (and their written forms) redacted in every string; the same object when none is in it."""
    if not values:
        return value
    guard = _GUARDS.get(values)
    if guard is None:
        if len(_GUARDS) > 256:
            _GUARDS.clear()
        guard = _GUARDS[values] = RunSecrets()
        guard.learn(values)
    return guard.scrub(value)
