"""Texts read as the JSON writers read them: a ``str`` subclass copied to an exact ``str`` before it is screened.

orjson and json write a subclass's real characters, whatever its methods say; the detectors call those methods
(``isascii``, ``encode``, ``find``, slicing, iteration, ``==``), which a subclass may override to hide its own
secret. ``str.__str__`` called on the base class copies the characters without calling any method of the subclass
(its own ``__str__`` included); ``dict.items``, ``list.__iter__`` and ``tuple.__iter__`` read a container's real
items the same way. An exact ``str`` is returned as it is, and a value holding only exact types is the same object.
Two keys a subclass kept apart that copy to one text are both kept (``_keyed``): no field is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["exact", "exact_all"]

_COPY = str.__str__  # the base class's own: an exact ``str`` of a subclass's characters


def exact(text: str) -> str:
    """``text`` as an exact ``str`` of its real characters (itself when it is one)."""
    return text if type(text) is str else _COPY(text)


def exact_all(value: Any, depth: int = 0) -> Any:
    """``value`` with every ``str`` subclass in it (a dict key too) copied to an exact ``str``, and every ``dict``,
    ``list`` or ``tuple`` subclass to its base type, each read through its base class; the same object when it holds
    none. A container nested past ``MAX_DEPTH`` levels (which a scan redacts whole) is kept as it is."""
    kind = type(value)
    if kind is str:
        return value
    if isinstance(value, str):
        return _COPY(value)
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, dict):
        pairs = [(k, v, exact(k) if isinstance(k, str) else k, exact_all(v, depth + 1)) for k, v in dict.items(value)]
        if kind is dict and all(k is k2 and v is v2 for k, v, k2, v2 in pairs):
            return value
        return _keyed((k2, v2) for _, _, k2, v2 in pairs)
    if isinstance(value, list):
        items = list(list.__iter__(value))
        copied = [exact_all(v, depth + 1) for v in items]
        return value if kind is list and all(a is b for a, b in zip(items, copied)) else copied
    if isinstance(value, tuple):
        items = list(tuple.__iter__(value))
        copied = [exact_all(v, depth + 1) for v in items]
        return value if kind is tuple and all(a is b for a, b in zip(items, copied)) else tuple(copied)
    if isinstance(value, Mapping):  # no dict: read through its own ``items`` (as ``to_jsonable`` writes it)
        return _keyed((exact(k) if isinstance(k, str) else k, exact_all(v, depth + 1)) for k, v in value.items())
    return value


def _keyed(pairs: Iterable[tuple[Any, Any]]) -> dict[Any, Any]:
    """The copied pairs as a dict, every field kept: a text key equal to one before it once copied (a ``str``
    subclass's own ``__hash__``/``__eq__`` kept the two apart, and the JSON writers would write the key twice, which
    a reader takes for one, or for unknown) is written ``<key>#2`` (``#3``… past a key the dict has), in the dict's order."""
    pairs = list(pairs)
    out: dict[Any, Any] = {}
    given: set[Any] | None = None  # the keys as copied: a name given is never taken for another
    for key, value in pairs:
        if type(key) is str and key in out:
            given = {k for k, _ in pairs if type(k) is str} if given is None else given
            n = 2
            while f"{key}#{n}" in out or f"{key}#{n}" in given:
                n += 1
            key = f"{key}#{n}"
        out[key] = value
    return out


MAX_DEPTH = 256  # past ``scan.MAX_DEPTH``: what a scan reads is copied
