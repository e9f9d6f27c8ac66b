"""The one rule by which a stored time (ISO-8601 text in a run's files) becomes an instant, for every reader.

A run's times are ISO-8601 text: ``YYYY-MM-DD`` or ``YYYYMMDD``, optionally followed (after
``T``, ``t`` or a space) by ``HH``, ``HH:MM``, ``HH:MM:SS`` or their basic forms ``HHMM``,
``HHMMSS``, a fraction after ``.`` or ``,`` (digits beyond microseconds are dropped), and
``Z`` or an offset ``±HH``, ``±HHMM``, ``±HH:MM`` (none: UTC, whatever the machine's zone). Anything
else — a word ("now", "today"), a number, a leap second, 24:00, week or ordinal dates, an offset
with seconds, a day that does not exist, a time whose UTC instant falls outside years 1–9999 — is
unknown.

The rule is written out here rather than borrowed: ``datetime.fromisoformat`` accepts other
forms on each Python release, and ``.timestamp()`` of a time without an offset reads it in the
machine's local zone (a run paused 4 s ago showed nine hours of waiting in Tokyo). The frames
(``frames.timetext``), the views' clocks and the OTLP export all use ``utc_micros``, so one string
means the same instant everywhere, on every machine.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

__all__ = ["utc_micros", "by_rule", "epoch_seconds", "EPOCH", "MAX_LENGTH", "MIN_US", "MAX_US"]

MAX_LENGTH = 64  # longer text is not a time (and is not worth a regex)
EPOCH = datetime(1970, 1, 1)
MIN_US = (datetime(1, 1, 1) - EPOCH) // EPOCH.resolution
MAX_US = (datetime(9999, 12, 31, 23, 59, 59, 999999) - EPOCH) // EPOCH.resolution
_TIME = re.compile(
    r"(?P<y>[0-9]{4})(?P<ds>-?)(?P<mo>[0-9]{2})(?P=ds)(?P<d>[0-9]{2})"
    r"(?:[Tt ](?P<h>[0-9]{2})"
    r"(?:(?P<ts>:?)(?P<mi>[0-9]{2})(?:(?P=ts)(?P<s>[0-9]{2})(?:[.,](?P<f>[0-9]+))?)?)?"
    r"(?P<z>[Zz]|(?P<sign>[+-])(?P<oh>[0-9]{2})(?::?(?P<om>[0-9]{2}))?)?)?"
)


# The shape the writer uses (``2026-01-31T09:15:00.123456+00:00``): for it, the C parser gives the
# rule's answer ~5× faster; any value it refuses (a leap second, 24:00, year 0) goes to the rule. Offsets
# are held to the rule's range here, as the C parser also takes ``+05:60``.
_WRITTEN = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{6})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)
_EPOCH_UTC = EPOCH.replace(tzinfo=UTC)


def utc_micros(value: Any) -> int | None:
    """Microseconds since 1970-01-01 UTC of an ISO-8601 time (the module's rule); None when ``value`` is not one."""
    if type(value) is not str or len(value) > MAX_LENGTH:
        return None
    if _WRITTEN.fullmatch(value):
        try:
            micros = (datetime.fromisoformat(value) - _EPOCH_UTC) // EPOCH.resolution
        except ValueError:
            return by_rule(value)
        return micros if MIN_US <= micros <= MAX_US else None
    return by_rule(value)


def by_rule(value: str) -> int | None:
    """``utc_micros`` read by the module's rule alone (the reference the fast path is tested against)."""
    m = _TIME.fullmatch(value)
    if m is None:
        return None
    hour, minute, second = (int(m[k]) if m[k] else 0 for k in ("h", "mi", "s"))
    try:
        when = datetime(int(m["y"]), int(m["mo"]), int(m["d"]), hour, minute, second, int((m["f"] or "0")[:6].ljust(6, "0")))
    except ValueError:  # month 13, 30 February, hour 24, second 60, year 0
        return None
    offset = 0
    if m["sign"]:
        oh, om = int(m["oh"]), int(m["om"] or 0)
        if oh > 23 or om > 59:
            return None
        offset = (oh * 60 + om) * (-60 if m["sign"] == "-" else 60)
    micros = (when - EPOCH) // EPOCH.resolution - offset * 1_000_000
    return micros if MIN_US <= micros <= MAX_US else None


def epoch_seconds(value: Any) -> float | None:
    """Seconds since 1970-01-01 UTC of a stored time by ``utc_micros``'s rule (no offset: UTC); None when not a time."""
    micros = utc_micros(value)
    return None if micros is None else micros / 1_000_000
