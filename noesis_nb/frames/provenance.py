"""Whether a run's events were screened for secrets as they were written, judged once per run read.

noesis_nb screens every event before it writes it; a run Noēsis wrote, or one copied or crafted
into the runs directory, never was, and the frames redact it as they read it (``secrets.records``).
Reading is the hot path, so a run is taken as screened only from cheap facts: its source document
carries noesis_nb's ``x-noesis_nb`` marker (``rowsource`` read it already), and either it is being
written by this very process, or it is sealed: locally, ``events.jsonl`` was last modified no later
than ``final.json`` (one stat); remotely, the manifest records the size just read. A run edited after
it was sealed, one without the marker, or one a seal does not vouch for is screened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..runtime.registry import live_handles
from .fs import BadFile, LocalFS
from .rowsource import ENGINE, NOESIS
from .source import RunRef

__all__ = ["screened_when_written"]


def screened_when_written(ref: RunRef, source: str, size: int, stamp: Any) -> bool:
    """Whether the run's events.jsonl (``size`` bytes, with its ``stamp``) is as noesis_nb screened it."""
    if source == NOESIS or (source != ENGINE and not _marked(ref)):  # an integration's run: noesis_nb's if marked
        return False
    if isinstance(ref.fs, LocalFS):  # one stat: the log accepts no line once final.json exists
        sealed_at = ref.fs.stat(ref.file("final.json"))
        if sealed_at is None:
            return _live_here(ref)
        return _not_after(stamp, sealed_at)
    try:  # remote stamps carry no order: the manifest's recorded size decides
        got = ref.read("manifest.json")
    except BadFile:
        return False
    return got is not None and _listed_size(got[0]) == size


def _marked(ref: RunRef) -> bool:
    """Whether the run's summary (else state.json) carries noesis_nb's ``x-noesis_nb`` marker."""
    for name in ("summary.json", "state.json"):
        try:
            got = ref.read(name)
        except BadFile:
            return False
        if got is not None:
            return b'"x-noesis_nb"' in got[0]
    return False


def _listed_size(manifest: bytes) -> int | None:
    """The ``size_bytes`` the manifest records for ``events.jsonl``; None when it records none or is no manifest."""
    try:
        doc = orjson.loads(manifest)
    except orjson.JSONDecodeError:
        return None
    files = doc.get("files") if type(doc) is dict else None
    for entry in files if type(files) is list else ():
        if type(entry) is dict and entry.get("name") == "events.jsonl":
            size = entry.get("size_bytes")
            return size if type(size) is int else None
    return None


def _not_after(events: Any, final: Any) -> bool:
    """Local stamps (size, mtime, ctime): events.jsonl was last modified no later than final.json, which its
    writer creates after its last line and before which it refuses none (an edit after the seal moves the
    mtime; a copy that keeps times, ``cp -a`` or ``rsync -a``, keeps the order, so a copied corpus still
    reads at full speed)."""
    return type(events) is tuple and type(final) is tuple and len(events) == len(final) == 3 and events[1] <= final[1]


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
