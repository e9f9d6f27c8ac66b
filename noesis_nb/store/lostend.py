"""When a run whose process died last showed life: the end its running time is counted to.

``resume_run`` seals such a run (``process_lost``) whenever someone next asks, minutes or days after the death; the
time between lies with nobody. Each writer of a run numbers its events under its own random prefix (``Recorder``:
an event id's first 24 characters), so the sealer's own events (the act, reflect and learn it closes the run with,
and its ``terminate``) share one prefix: the newest event before the ``terminate`` with another prefix is the last
sign of life. ``summary.duration_sec`` (so ``runs_df``) and the view's running time both end there."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

__all__ = ["LOST_REASONS", "sealed_lost", "last_sign_of_life", "episode_end_marks"]

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


def episode_end_marks(events: Sequence[Mapping[str, Any]]) -> Iterator[int]:
    """Indexes of the events whose time may tell when the episode ended, best first (take the first whose time
    reads): its last ``terminate``'s, or for a run sealed after its process died its last sign of life, then each
    ``terminate`` (newest first), then every event (newest first). The events after a ``terminate`` (state
    projection, insight) are the seal's bookkeeping, which a recovery may write long after a crash: no part of the
    episode. One rule for ``summary.duration_sec`` (so ``runs_df``) and the exported trace's root span."""
    newest_first = range(len(events) - 1, -1, -1)
    last = next((i for i in newest_first if events[i].get("phase") == "terminate"), None)  # near the end: found at once
    if last is not None and sealed_lost(events[last]):
        before = range(last - 1, -1, -1)
        alive = last_sign_of_life(events[last], (events[i] for i in before))
        if alive is not None:
            yield next(i for i in before if events[i] is alive)
    yield from (i for i in newest_first if events[i].get("phase") == "terminate")
    yield from newest_first
