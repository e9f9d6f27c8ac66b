"""Whether a run's events were screened for secrets as they were written, judged once per run read.

noesis_nb screens every event before it writes it; a run Noēsis wrote, or one copied or crafted
into the runs directory, never was, and the frames redact it as they read it (``secrets.records``).
Reading is the hot path, so a run is taken as screened only from cheap facts: its source document
carries noesis_nb's ``x-noesis_nb`` marker (``rowsource`` read it already), and either it is being
written by this very process, or it is sealed by a manifest whose recorded size of ``events.jsonl``
is the size just read (locally also: the file was last modified no later than the manifest). A run
edited after it was sealed, one without the marker, or one a manifest does not vouch for is screened.
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
    try:
        got = ref.read("manifest.json")
    except BadFile:
        return False
    if got is None:
        return _live_here(ref)
    data, sealed_at = got
    return _listed_size(data) == size and _not_after(stamp, sealed_at)


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


def _not_after(events: Any, manifest: Any) -> bool:
    """Locally (stamps of size, mtime, ctime): events.jsonl was last modified no later than the manifest
    (mtime: an edit after the seal moves it; a copy that keeps times, ``cp -a`` or ``rsync -a``, keeps the
    order, so a copied corpus still reads at full speed). Remote stamps carry no such order: the size decides."""
    if type(events) is tuple and type(manifest) is tuple and len(events) == len(manifest) == 3:
        return bool(events[1] <= manifest[1])
    return True


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
