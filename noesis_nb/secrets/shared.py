"""The values this process has learned are secret, whichever run learned them: a run started later, or one
running beside it (another task on the loop, a worker thread), hides them too.

Kept in memory only, for the process's life, and never written. Bounded: once the values kept reach
``KEEP_CHARS`` characters (a process learning that much is scripted, not a notebook's), a value learned
after is hidden only by the run that learned it and by views while that run is among the process's
recent ones (``guard._KEEP``); one warning says so. The oldest are kept: a run already adopted them,
and dropping one would let the next run write it bare.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterable

from .known import Known

__all__ = ["KEEP_CHARS", "count", "learned_version", "dropped", "share", "unshare", "shared_since", "shared_known"]

KEEP_CHARS = 1_000_000  # characters of values kept (their written forms too): ~10,000 keys of a provider's length
_LOCK = threading.Lock()
_VALUES: list[str] = []  # in the order learned: a run adopts those past the count it has seen
_SEEN: set[str] = set()
_chars = 0
_full = False
_BUILD_LOCK = threading.Lock()
_KNOWN = Known()  # the first ``_BUILT`` values compiled, made when a new run asks (``shared_known``)
_BUILT = 0
count = 0  # places of values kept: a run that took as many has them all (read without the lock, on the event path)
_base = 0  # the place of ``_VALUES[0]``: places only grow, so a run's count stays true once ``_forget`` empties the list
_version = 0  # bumped whenever a value is kept or dropped
_dropped = 0  # bumped whenever values are dropped (``unshare``)


def share(values: Iterable[str]) -> None:
    """Keep ``values`` (a run learned them) for every run of this process."""
    global _chars, _full, count, _version
    with _LOCK:
        for value in values:
            if value in _SEEN:
                continue
            if _chars + len(value) > KEEP_CHARS:
                if not _full:
                    _full = True
                    warnings.warn(
                        f"noesis_nb: this process has learned {len(_VALUES)} secret values ({_chars} characters);"
                        " values learned from now on are hidden only by the run that learns them (and by views of"
                        " it). Restart the kernel to share them across runs again.",
                        RuntimeWarning,
                        stacklevel=2,
                    )
                continue
            _SEEN.add(value)
            _VALUES.append(value)
            _chars += len(value)
        if count != _base + len(_VALUES):
            count, _version = _base + len(_VALUES), _version + 1


def unshare(values: Iterable[str]) -> None:
    """Stop keeping ``values``: a run found them in a tool's name it shows (``RunSecrets.name_shown``), an identifier
    the approver must read, so they are no longer hunted (a run that took one keeps it until it shows that name)."""
    global _KNOWN, _BUILT, _chars, _version, _dropped
    with _BUILD_LOCK, _LOCK:
        dropped = _SEEN.intersection(values)
        if not dropped:
            return
        for i, value in enumerate(_VALUES):
            if value in dropped:
                _VALUES[i] = ""  # (the places stay: each run counts what it took by them)
        _SEEN.difference_update(dropped)
        _chars -= sum(map(len, dropped))
        _KNOWN, _BUILT = Known(), _base  # made again, without them, when a new run asks
        _version, _dropped = _version + 1, _dropped + 1


def shared_since(count: int) -> tuple[list[str], int]:
    """The values kept after the first ``count``, and how many places there are now."""
    with _LOCK:
        return [v for v in _VALUES[max(count - _base, 0) :] if v], _base + len(_VALUES)


def learned_version() -> int:
    """A number that changes whenever the values kept change: a frame made under another hid others (a part of its
    cache key)."""
    return _version


def dropped() -> int:
    """A number that changes whenever values are dropped: a scrubber that took them all is made again."""
    return _dropped


def shared_known() -> tuple[Known, int]:
    """The values kept, compiled, and how many: a new run takes the compiled levels as they are (each value is
    compiled a few times in the process's life, as ``Known`` merges levels, not once per run started)."""
    global _KNOWN, _BUILT
    with _BUILD_LOCK:  # (one compiles; ``share`` goes on meanwhile)
        with _LOCK:
            known, built, values = _KNOWN, _BUILT, _VALUES[max(_BUILT - _base, 0) :]
        if values:
            known = known.plus(v for v in values if v)
            with _LOCK:
                _KNOWN, _BUILT = known, built + len(values)
        return known, built + len(values)


def _forget() -> None:
    """Drop every value kept (tests: each starts as a fresh process would). The places stay, as in ``unshare``: a run
    made before counts what it took by them."""
    global _chars, _full, _KNOWN, _BUILT, _version, _dropped, _base
    with _BUILD_LOCK, _LOCK:
        _base += len(_VALUES)
        _VALUES.clear()
        _SEEN.clear()
        _chars, _full, _KNOWN, _BUILT = 0, False, Known(), _base
        _version, _dropped = _version + 1, _dropped + 1
