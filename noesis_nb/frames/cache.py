"""In-memory cache of what was read from each run, keyed by path and the (size, mtime, ctime, inode, device) of its files.

A hit needs only a ``stat``; a run that changed (a live run appending events, a run being
sealed) has a different key and is read again. Entries are weighed in rows and the least
recently used are dropped past ``max_rows``. ``clear_cache()`` empties it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from ..store.scan import forget_folders

__all__ = ["RunCache", "FrameMemo", "CACHE", "MEMO", "clear_cache"]

Key = tuple[Hashable, ...]  # e.g. ("run", protocol, path, verify): what was read, and how
Parts = tuple[object, ...]  # the cached per-run values a frame was built from, compared by identity


class RunCache:
    def __init__(self, max_rows: int = 5_000_000):
        self.max_rows = max_rows
        self._items: OrderedDict[Key, tuple[Any, Any, int]] = OrderedDict()
        self._rows = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Key, stamp: Any) -> Any | None:
        """The value stored under ``key`` if it was stored with the same ``stamp``; else None."""
        with self._lock:
            item = self._items.get(key)
            if item is None or item[0] != stamp:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return item[1]

    def __contains__(self, key: object) -> bool:
        """Whether anything is stored under ``key`` (a run never read needs no ``stat`` to be looked up).

        One dict lookup, atomic on its own: no lock taken (a warm reload asks this of every run)."""
        return key in self._items

    def put(self, key: Key, stamp: Any, value: Any, rows: int = 1) -> None:
        rows = max(int(rows), 1)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._rows -= old[2]
            self._items[key] = (stamp, value, rows)
            self._rows += rows
            while self._rows > self.max_rows and len(self._items) > 1:
                _, (_, _, dropped) = self._items.popitem(last=False)
                self._rows -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._rows = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)


class FrameMemo:
    """The last few frames built, keyed by the exact cached per-run parts they were built from.

    When every run of a load came from the cache unchanged (same objects), the frame is the
    same too: a shallow copy is returned instead of assembling it again.
    """

    def __init__(self, size: int = 16):
        self.size = size
        self._items: list[tuple[Key, Parts, Any]] = []
        self._lock = threading.Lock()

    def get(self, key: Key, parts: Parts) -> Any | None:
        with self._lock:
            for k, p, value in self._items:
                if k == key and len(p) == len(parts) and all(a is b for a, b in zip(p, parts)):
                    return value
        return None

    def put(self, key: Key, parts: Parts, value: Any) -> None:
        with self._lock:
            self._items = [(key, parts, value)] + [item for item in self._items if item[0] != key][: self.size - 1]

    def clear(self) -> None:
        with self._lock:
            self._items = []


CACHE = RunCache()
MEMO = FrameMemo()
_ON_CLEAR: list[Callable[[], None]] = []  # other keepers of what was read (``runindex``), told by ``clear_cache``


def on_clear(forget: Callable[[], None]) -> None:
    """Have ``clear_cache`` call ``forget`` too."""
    _ON_CLEAR.append(forget)


def clear_cache() -> None:
    """Forget every cached run, in memory and in the runs index on disk, and the folders the scan found to be no run
    (the next load lists every folder and reads all files again)."""
    CACHE.clear()
    MEMO.clear()
    forget_folders()
    for forget in _ON_CLEAR:
        forget()
