"""When a run whose process died last showed life: the end its running time is counted to.

``resume_run`` seals such a run (``process_lost``) whenever someone next asks, minutes or days after the death; the
time between lies with nobody. Each writer of a run numbers its events under its own random prefix (``Recorder``:
an event id's first 24 characters), so the sealer's own events (the act, reflect and learn it closes the run with,
and its ``terminate``) share one prefix: the newest event before the ``terminate`` with another prefix is the last
sign of life. ``summary.duration_sec`` (so ``runs_df``) and the view's running time both end there."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["LOST_REASONS", "sealed_lost", "last_sign_of_life"]

LOST_REASONS = frozenset({"process_lost", "sealed_after_process_lost"})  # resume_run's seal of a run whose process died


def sealed_lost(terminate: Mapping[str, Any]) -> bool:
    """Whether ``terminate`` is the seal ``resume_run`` wrote for a run whose process had died."""
    payload = terminate.get("payload")
    extra = payload.get("x-noesis_nb") if isinstance(payload, Mapping) else None
    reasons = extra.get("reasons") if isinstance(extra, Mapping) else None
    return isinstance(reasons, list) and any(isinstance(r, str) and r in LOST_REASONS for r in reasons)


def last_sign_of_life(terminate: Mapping[str, Any], before: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The newest of ``before`` (the events before ``terminate``, newest first) its sealer did not write; None when
    none is found or the ids are not the recorder's (then the ``terminate``'s time stands)."""
    ident = terminate.get("id")
    if not isinstance(ident, str) or len(ident) != 36:
        return None
    sealer = ident[:24]
    for event in before:
        other = event.get("id")
        if isinstance(other, str) and not other.startswith(sealer):
            return event
    return None
