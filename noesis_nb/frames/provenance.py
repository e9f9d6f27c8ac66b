"""Whether a run's events were screened for secrets as they were written, judged once per run read.

noesis_nb screens every event before it writes it; a run Noēsis wrote, or one copied or crafted
into the runs directory, never was, and the frames redact it as they read it (``secrets.records``).
A run is taken as screened only when noesis_nb is writing it in this very process, or when its
``final.json`` holds this user's seal (``store.seal``) and its ``events.jsonl`` and ``summary.json``
are as sealed (its tool records: each one the seal lists, as sealed, ``store.seal.vouched_records``): a keyed
tag no one without the user's key can make, checked in microseconds. The ``x-noesis_nb`` marker alone
proves nothing (anyone can write it). Everything else is screened. The seal binds sizes and times,
not contents (``store.seal``): a same-size edit with its time set back is read as written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from .._jsonkeys import screened
from ..runtime.registry import live_handles
from ..store.seal import SEAL_KEY, vouched
from .fs import UNREAD, BadFile, LocalFS
from .rowsource import NOESIS
from .source import RunRef

__all__ = ["written_as", "sealed_here"]


def written_as(
    ref: RunRef, source: str, size: int, stamp: Any, summary: Any, final: Any = UNREAD
) -> tuple[bool, list[Any] | None]:
    """Whether the run's events.jsonl (``size`` bytes read, with its ``stamp``) is as noesis_nb screened it, and
    the tool records the run's seal vouches for (``store.seal.vouched_records``). ``summary``: the stat of the run's
    summary.json (None when it has none). ``final``: what ``ref.read_seal("final.json")`` gave when the caller read
    it already (its bytes and stat, None, or the ``BadFile`` it raised); read here when ``UNREAD``.

    None when no seal vouches for the run: a run live here has none yet, so its tool records are screened.
    """
    if source == NOESIS or type(stamp) is not tuple or not stamp or stamp[0] != size:  # no marker: never ours
        return False, None
    try:
        # as ``seal_state`` counts it: a link in its place is no seal, nor vouches
        got = ref.read_seal("final.json") if final is UNREAD else final
    except BadFile:
        return False, None
    if isinstance(got, BadFile):
        return False, None
    if got is None:
        return _live_here(ref), None
    try:
        final = orjson.loads(got[0])
    except orjson.JSONDecodeError:
        return False, None
    if screened(got[0], final)[1]:  # a key written twice: the seal vouches for nothing (runs_df reports it)
        return False, None
    seal = _vouched_seal(final, ref.name, stamp, summary)
    return (True, seal["tools"]) if seal is not None else (False, None)


def sealed_here(final: Any, episode_id: str, events: Any, summary: Any) -> bool:
    """Whether ``final`` (final.json's object) holds this user's seal of the run, its files unchanged since."""
    return _vouched_seal(final, episode_id, events, summary) is not None


def _vouched_seal(final: Any, episode_id: str, events: Any, summary: Any) -> dict[str, Any] | None:
    ext = final.get("x-noesis_nb") if type(final) is dict else None
    seal = ext.get(SEAL_KEY) if type(ext) is dict else None
    return seal if vouched(seal, episode_id, events, summary) else None


def _live_here(ref: RunRef) -> bool:
    """A run this process is writing now (screened as each event was written)."""
    if not isinstance(ref.fs, LocalFS):
        return False
    handles = live_handles()
    if not handles:
        return False
    here = Path(ref.path).resolve()
    for handle in handles.values():
        try:
            if Path(handle.run_dir).resolve() == here:
                return True
        except (AttributeError, OSError):  # an episode still starting has no run directory yet
            continue
    return False
