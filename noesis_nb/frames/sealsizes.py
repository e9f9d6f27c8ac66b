"""Whether a sealed run's files are still the size its ``manifest.json`` lists.

A seal lists each file's size as it was sealed; a file found at another size since (a log emptied, reduced to
blank lines or cut at a line, a document rewritten, a tool record edited) was changed after the run ended.
Each frame compares the files it reads against that list, sizes it already has from its reads (a ``stat`` at
most), and reports each one changed: what it counts from it is unknown, never 0. ``runs_df(verify="hash")``
compares contents too.

The list is read whenever a frame reads the run (its cache key, which holds the stat of manifest.json, changed):
no file's time is trusted to tell, since an edit can set its time back and a manifest can be edited after its files.
"""

from __future__ import annotations

from typing import Any

import orjson

from .._jsonkeys import loads_checked
from .fs import UNREAD, BadFile
from .problems import SEAL_CHANGE, LoadProblem

__all__ = [
    "listed_sizes",
    "size_changes",
    "changed_reason",
    "changed_problem",
    "is_seal_change",
    "MISSING",
    "REPEATED",
    "UNKNOWN",
]

#: a listed file that is gone
MISSING = "listed in manifest.json but missing"
#: the size of a file whose ``size_bytes`` manifest.json writes twice or not as a whole number: matches no size, so the
#: file reads as changed
REPEATED = -1
#: what a file changed since the seal leaves unknown, by its name (a tool record: ``_RECORD``)
UNKNOWN = {
    "events.jsonl": "events may be missing or altered: the run's model calls, tokens and cost are unknown",
    "summary.json": "what it says of the run (counts, outcome, tags) may not be what the run recorded",
    "state.json": "what it says of the run may not be what the run recorded",
    "final.json": "the run's outcome and seal may not be its own",
}
_RECORD = "the draft's row may not be what the run recorded, and the run's tool_calls and pending_approvals are unknown"


def listed_sizes(ref: Any, manifest: Any = UNREAD) -> dict[str, int] | None:
    """The size ``manifest.json`` lists for each file, by its name under the run; None when the run has no manifest
    (not sealed) or none that can be read (``runs_df`` reports that one). ``manifest``: what
    ``ref.read_seal("manifest.json")`` gave the caller (its bytes and stat, None, or the ``BadFile`` it raised);
    read here when ``UNREAD``."""
    try:
        got = ref.read_seal("manifest.json") if manifest is UNREAD else manifest
    except BadFile:
        return None
    if got is None or isinstance(got, BadFile):
        return None
    try:
        doc = loads_checked(got[0])[0]  # a size written twice is no size (orjson would keep the last)
    except orjson.JSONDecodeError:
        return None
    files = doc.get("files") if type(doc) is dict else None
    if type(files) is not list:
        return None
    out: dict[str, int] = {}
    for entry in files:
        if type(entry) is not dict or type(name := entry.get("name")) is not str:
            continue
        size = entry.get("size_bytes")
        if type(size) is int:
            out[name] = size
        elif "size_bytes" in entry:  # written twice (read as unknown) or not a whole number: no size it could match
            out[name] = REPEATED
    return out


_RESTORE = '. Restore the file from a copy of the run (runs_df(verify="hash") checks every file the seal lists)'


def changed_reason(name: str, size: int | None, listed: int) -> str:
    """What to say of a sealed file ``name`` now ``size`` bytes (None: gone) that manifest.json lists at ``listed``
    (``REPEATED``: its size written twice there, so not known)."""
    if listed == REPEATED:
        now = "missing" if size is None else f"{size} bytes"
        now += ", but manifest.json gives it no size (written twice, or not a number)"
    else:
        now = MISSING if size is None else f"{size} bytes, but manifest.json lists {listed}"
    return f"{now}: changed after the run was sealed, so {UNKNOWN.get(name, _RECORD)}{_RESTORE}"


def is_seal_change(problem: LoadProblem) -> bool:
    """Whether ``problem`` is a file found changed since its run's seal (``changed_problem``)."""
    return problem.kind == SEAL_CHANGE


def changed_problem(url: str, name: str, size: int | None, listed: int) -> LoadProblem:
    """The problem of a sealed file at ``url`` changed since its seal (``changed_reason``), marked ``SEAL_CHANGE``."""
    return LoadProblem(url, None, changed_reason(name, size, listed), kind=SEAL_CHANGE)


def size_changes(ref: Any, listed: dict[str, int], sizes: dict[str, int | None]) -> list[LoadProblem]:
    """One problem for each of ``sizes`` (a file's name under the run → its size now, None: gone) that ``listed``
    gives another size; files the manifest does not list are not judged here."""
    out = []
    for name, size in sizes.items():
        want = listed.get(name)
        if want is None or size == want:
            continue
        # a size taken before the seal was written (a live run sealed while it was read) is no change: the file now says
        path = ref.file(*name.split("/"))
        now = ref.fs.stat(path)
        size = None if now is None else now[0]
        if size != want:
            out.append(changed_problem(ref.fs.url(path), name, size, want))
    return out
