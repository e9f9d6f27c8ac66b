"""String-path helpers for readers that touch thousands of runs (no ``Path`` objects, fewest syscalls).

``scan_run_dirs`` gives the same runs as ``roots.iter_run_dirs`` (a run directory holds one of
``events.jsonl``, ``summary.json``, ``state.json``; one label level is followed), sorted by name.
"""

from __future__ import annotations

import os

__all__ = ["scan_run_dirs", "is_run_dir_fast"]

_MARKERS = ("events.jsonl", "summary.json", "state.json")


def is_run_dir_fast(path: str) -> bool:
    """One ``stat`` for a typical run (``events.jsonl`` first)."""
    isfile = os.path.isfile
    return any(isfile(os.path.join(path, marker)) for marker in _MARKERS)


def _children(path: str) -> list[str]:
    try:
        with os.scandir(path) as it:
            names = [e.name for e in it if not e.name.startswith(".") and e.is_dir()]
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    names.sort()
    return [os.path.join(path, name) for name in names]


def scan_run_dirs(root: str) -> list[str]:
    """Run directories under ``root`` (or ``[root]`` when it is one), label folders expanded, sorted."""
    if is_run_dir_fast(root):
        return [root]
    out: list[str] = []
    for child in _children(root):
        if is_run_dir_fast(child):
            out.append(child)
        else:
            out.extend(grand for grand in _children(child) if is_run_dir_fast(grand))
    return out
