"""``phases=`` names that are no phase: an event name (``model.call``), an empty name or a pattern (``*``).

Each read as an empty frame with nothing said; a phase groups event names (``model.call`` is written under
``model``), and ``phases=`` matches names exactly, so each is refused with the phases to pass instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import InvalidOptionError
from ..secrets.quoted import quoted
from ..store.phases import KNOWN_PHASES

__all__ = ["check_phase_names", "check_event_names"]

_PATTERN = frozenset("*?[]")
_PHASES = ", ".join(repr(p) for p in sorted(KNOWN_PHASES))


def check_phase_names(keep: list[str]) -> None:
    """Refuse, before anything is read, a name that cannot be a phase: blank, a pattern, or a known phase's event
    name (``model.call``, ``tool.requested``, ``steer.sent``)."""
    for name in keep:
        if not name.strip():
            _refuse(name, "an empty name", "pass None (the default) for every phase")
        if _PATTERN & set(name):
            _refuse(name, "a pattern", "phases= matches names exactly; pass None (the default) for every phase")
        head = name.split(".", 1)[0]
        if "." in name and head in KNOWN_PHASES:
            _event_name(name, head)


def check_event_names(keep: list[str], phases: Iterable[object], names: Iterable[object], by_name: dict[str, str]) -> None:
    """Refuse a name that no event has as its phase but some event has as its ``event_name``."""
    present = set(phases)
    seen = set(names)
    for name in keep:
        if name not in present and name in seen:
            _event_name(name, by_name.get(name))


def _event_name(name: str, phase: str | None) -> None:
    under = f" (written under phase {quoted(phase)})" if phase else ""
    _refuse(
        name,
        f"an event name{under}",
        f"events_df filters phases only, not event names: read the phase and keep rows by name, "
        f"e.g. df = events_df(..., phases={quoted(phase or 'tool')}); df[df['event_name'] == {quoted(name)}]",
    )


def _refuse(name: str, what: str, fix: str) -> None:
    raise InvalidOptionError(f"phases={quoted(name, 80)} is {what}, not a phase; {fix}. Phases: {_PHASES} (or a run's own)")
