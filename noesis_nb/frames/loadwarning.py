"""One warning per load that met problems: how many, in how many runs, and where to look (``df.attrs["errors"]``).

A problem left in ``df.attrs["errors"]`` alone is one nobody sees. The load still returns what it could read;
the warning says that some of it could not be. The same problems of the same frame are said once: a warm reload
of an unchanged folder is silent, a new problem (or ``clear_cache()``) warns again.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from types import FrameType
from typing import Any

from .cache import on_clear
from .source import RunRef

__all__ = ["LoadProblemsWarning", "warn_of_problems"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # noesis_nb/
_DEPTH = 5  # a problem's file is at most this deep in its run (tool_invocations/x-python/prepared/<draft>.json)
_KEPT = 256  # the problem sets already said, per frame; the oldest forgotten first


class LoadProblemsWarning(UserWarning):
    """A frame was loaded, but some runs or files had problems; each is in ``df.attrs["errors"]``.

    Silence it with ``warnings.filterwarnings("ignore", category=noesis_nb.frames.LoadProblemsWarning)``."""


_said: OrderedDict[tuple[str, int], None] = OrderedDict()
_lock = threading.Lock()


def _forget() -> None:
    with _lock:
        _said.clear()


on_clear(_forget)


def warn_of_problems(frame: str, errors: list[dict[str, Any]], refs: Sequence[RunRef]) -> None:
    """Warn once about ``errors`` (``df.attrs["errors"]`` of a ``frame`` load of the runs ``refs``)."""
    if not errors:
        return
    key = (frame, hash(tuple((e.get("path"), e.get("line"), e.get("reason")) for e in errors)))
    with _lock:
        if key in _said:
            _said.move_to_end(key)
            return
        _said[key] = None
        while len(_said) > _KEPT:
            _said.popitem(last=False)
    warnings.warn(LoadProblemsWarning(_message(frame, errors, {ref.url for ref in refs})), stacklevel=_user_level())


def _message(frame: str, errors: list[dict[str, Any]], runs: set[str]) -> str:
    files = {str(e.get("path")) for e in errors}
    of = [_run_of(path, runs) for path in files]
    hit = {run for run in of if run is not None}
    other = of.count(None)
    n = len(errors)
    where = [f"{len(hit)} run{'s' if len(hit) != 1 else ''}"] if hit else []
    if other:
        where.append(f"{other} other place{'s' if other != 1 else ''} (a root, a folder left out, an option)")
    return (
        f"{frame}: {n} problem{'s' if n != 1 else ''} in {' and '.join(where)} ({len(files)} "
        f"file{'s' if len(files) != 1 else ''} or folder{'s' if len(files) != 1 else ''}); what could be read is "
        "loaded, the rest is left out or unknown. Each problem's path, line and reason is in df.attrs['errors'] "
        "(strict=True raises on the first instead)"
    )


def _run_of(path: str, runs: set[str]) -> str | None:
    """The run folder of ``runs`` that ``path`` is (or is in), None for a path outside every run."""
    for _ in range(_DEPTH + 1):
        if path in runs:
            return path
        parent = path.rsplit("/", 1)[0]
        if parent == path:
            return None
        path = parent
    return None


def _user_level() -> int:
    """The ``stacklevel`` of the first caller outside noesis_nb, so the warning points at the user's line."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 2
