"""Finding run directories under a root: the one scan (``roots.iter_run_dirs`` wraps it).

A run directory holds one of ``events.jsonl``, ``summary.json``, ``state.json``; one label level
is followed; results are sorted by name. String paths and the fewest system calls, for roots of
many thousands of runs.
"""

from __future__ import annotations

import os

__all__ = ["MARKERS", "scan_run_dirs_with_stats"]

MARKERS = ("events.jsonl", "summary.json", "state.json")
_EVENTS = os.sep + "events.jsonl"


def _children(path: str) -> list[str]:
    try:
        with os.scandir(path) as it:
            names = [e.name for e in it if not e.name.startswith(".") and e.is_dir()]
    except OSError:  # absent, not a folder, no permission, a name too long…
        return []
    names.sort()
    prefix = path if path.endswith(os.sep) else path + os.sep
    return [prefix + name for name in names]


def _events_stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path + _EVENTS)
    except OSError:
        return None


def _probe(path: str) -> tuple[bool, os.stat_result | None]:
    """(is a run dir, stat of its events.jsonl): one ``stat`` for a typical run."""
    st = _events_stat(path)
    if st is not None:
        return True, st
    isfile = os.path.isfile  # returns False (never raises) for odd paths
    return any(isfile(os.path.join(path, m)) for m in MARKERS[1:]), None


def scan_run_dirs_with_stats(root: str) -> list[tuple[str, os.stat_result | None]]:
    """Run directories under ``root`` (or ``root`` itself), label folders expanded, sorted, each with the
    stat of its ``events.jsonl`` (None when absent) taken on the way."""
    is_run, st = _probe(root)
    if is_run:
        return [(root, st)]
    out: list[tuple[str, os.stat_result | None]] = []
    for child in _children(root):
        is_run, st = _probe(child)
        if is_run:
            out.append((child, st))
            continue
        for grand in _children(child):
            is_run, st = _probe(grand)
            if is_run:
                out.append((grand, st))
    return out
