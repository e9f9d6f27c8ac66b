"""Events read back from a run's files, redacted on their way into a frame.

A run noesis_nb wrote was screened as it was written; one Noēsis wrote, or one copied or crafted
into the runs directory, never was (``frames.provenance`` tells them apart; only the latter come
here). Reading is the hot path, so each record pays the event
prefilter (``payload_might_contain``, value by value for flat payloads) and only what it flags is
scanned; an id of a known shape (UUID, ULID) is kept without a scan, and a text repeated across
events (a phase, an agent) is judged once per load.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import orjson

from .display import shown, shown_known
from .guard import RunSecrets
from .scan import redact, shaped
from .streamed import redact_streams, streamed_piece
from .text import find_in_text, flat_might_contain, payload_might_contain

__all__ = ["shown_records", "shown_streams", "shown_value"]

# an event's own text fields that a frame shows (the payload is screened whole; the episode is named by its folder)
_FIELDS = ("id", "caused_by", "agent_id", "phase", "faculty", "event_type")
_ID_FIELDS = frozenset({"id", "caused_by"})
_JUDGED = frozenset({*_FIELDS, "payload", "timestamp"})  # a timestamp no time is reported, redacted (``describe``)
# what runtimes write as event ids: a UUID (8-4-4-4-12 hex digits; a bare hex string may be a key), or a
# ULID with or without a short prefix; ids are searched for token shapes only (``scan``: no randomness test),
# which neither shape can hold
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_ID = re.compile(_UUID + r"|(?:[a-z]{1,8}_)?[0-7](?:[0-9A-HJKMNP-TV-Z]{25}|[0-9a-hjkmnp-tv-z]{25})")
_PLAIN = (int, float, bool, type(None))
_TEXTS: dict[str, str] = {}  # agents, phases and faculties repeat on every event of every run: judged once each


def shown_records(records: list[Any], revealed: Iterable[str] = ()) -> set[str]:
    """Redact, in place, the secrets of freshly parsed event records (dicts the caller owns): one run's events.
    Returns the secret values found in them.

    A secret found in one event is redacted in every event of the run, before it as after it (``psql connected
    as bob (<password>)`` beside the ``export PGPASSWORD=…`` that names it), as a live run does with what it learns;
    so are ``revealed``, the values the run's other documents show as secrets (``revealed.revealed``)."""
    records = [r for r in records if type(r) is dict]
    found = _redact_streams(records)
    _shown_each(records, found)
    hunted = found.union(revealed)
    if hunted:
        learned = RunSecrets()
        if learned.learn(hunted):
            for record in records:
                for key, value in record.items():
                    record[key] = learned.scrub(value)
    return found


def _redact_streams(records: list[dict[str, Any]]) -> set[str]:
    """A key streamed one delta per event, read whole as the frames read it (``redact_streams``), in place; a value
    this process knows too (``known_shown``). The secrets found."""
    known = shown_known()
    hunt = known.found_in if known.levels else None
    return redact_streams(records, shaped if hunt is None else lambda text: shaped(text) | hunt(text))


def shown_streams(events: list[Any]) -> tuple[list[Any], set[str]]:
    """``events`` with the parts of a secret that only a stream's pieces read joined show redacted, as the frames
    redact them (``shown_records``), and the secrets found: for a view of a run read from disk, whose events are
    otherwise screened one by one. The events changed are copies (the list is new then); ``events`` is left as is."""
    streamed = [i for i, e in enumerate(events) if type(e) is dict and streamed_piece(e.get("payload")) is not None]
    if len(streamed) < 2:  # most runs: no stream to join, nothing copied
        return events, set()
    copies = [dict(events[i]) for i in streamed]
    found = _redact_streams(copies)
    if not found:
        return events, found
    out = list(events)
    for i, copy in zip(streamed, copies):
        out[i] = copy
    return out, found


def _shown_each(records: list[dict[str, Any]], found: set[str]) -> None:
    """``shown_records``' first pass: each record redacted on its own, what was found added to ``found``."""
    for key in _FIELDS:  # field by field: the distinct texts are judged, not every event's
        values = [r.get(key) for r in records]
        changed = _shown_texts({v for v in values if type(v) is str}, ids=key in _ID_FIELDS)
        for text in changed:  # what an agent id or a phase held is hunted in the other events too
            found.update(find_in_text(text))
        if changed:
            for record, value in zip(records, values):
                if type(value) is str and value in changed:
                    record[key] = changed[value]
    for record in records:
        payload = record.get("payload")
        if payload is not None:
            record["payload"] = shown_value(payload, found)
        for key in record.keys() - _JUDGED:  # any other field (metrics, a runtime's own): a Column may read it
            record[key] = shown_value(record[key], found)


def _shown_texts(values: set[str], *, ids: bool) -> dict[str, str]:
    """The texts among ``values`` that hold a secret, each with what is shown instead."""
    texts = _TEXTS
    if len(texts) > 8192:
        texts.clear()
    changed = {}
    for value in values:
        out = texts.get(value)
        if out is None:
            if ids and _ID.fullmatch(value):  # unique per event: not remembered
                continue
            out = texts[value] = shown(value)
        if out != value:
            changed[value] = out
    return changed


def shown_value(value: Any, found: set[str] | None = None) -> Any:
    """``value`` (parsed JSON) with its secrets redacted; the same object when it holds none. ``found`` gets the
    secret values found in it."""
    kind = type(value)
    if kind is str:
        out = shown(value)
        if found is not None and out != value:
            found.update(find_in_text(value))
        return out
    if kind in _PLAIN:
        return value
    if kind is dict:
        verdict = flat_might_contain(value)
        if verdict is False:
            return value
        if verdict is None:
            try:
                blob = orjson.dumps(value)
            except orjson.JSONEncodeError:  # an integer beyond 64 bits: judged by the scan
                blob = None
            if blob is not None and not payload_might_contain(value, blob):
                return value
    elif kind is list and not value:
        return value
    redacted, hits = redact(value)
    if found is not None:
        found.update(v for hit in hits for v in hit.values)
    return redacted
