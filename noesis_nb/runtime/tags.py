"""A run's ``tags``: the labels ``start``/``solve``/``batch`` write into its observe event, state and summary.

They are written as JSON and read back by ``runs_df``, ``resume_run`` and Noēsis, so only what comes back as it
went in is taken: string keys, and values that are a str, a whole number (within 64 bits), a finite float, a bool
or None. Anything else was written as something it is not (an object as its repr, a set as a list, NaN as null,
the key 1 as "1").
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .._safetext import type_name
from ..errors import InvalidOptionError
from ..secrets.quoted import quoted

__all__ = ["checked_tags"]

_KINDS = "a str, an int, a finite float, a bool or None"


def checked_tags(tags: Any) -> dict[str, Any]:
    """``tags`` as written (numpy's numbers as Python's); one ``InvalidOptionError`` naming the first key that would
    not round-trip."""
    if tags is None:
        return {}
    if not isinstance(tags, dict):
        raise InvalidOptionError(f"tags={quoted(tags)}: pass a dict such as {{'team': 'search'}}")
    checked: dict[str, Any] = {}
    for key, value in tags.items():
        if not isinstance(key, str):
            raise InvalidOptionError(
                f"tags: the key {quoted(key, 60)} is of type {type_name(key)}, not a str; tags are written as JSON, whose keys "
                "are text: pass it as a str, e.g. {'team': 'search'}"
            )
        if not key.strip():  # runs_df would show it as a column named only 'tags_'
            raise InvalidOptionError(f"tags: the key {quoted(key, 60)} is blank; name each tag, e.g. {{'team': 'search'}}")
        checked[key] = _value(key, value)
    return checked


def _value(key: str, value: Any) -> Any:
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, numbers.Integral):
        if not -(2**63) <= int(value) < 2**63:  # JSON writers and readers hold 64 bits: past them it is written as text
            raise InvalidOptionError(
                f"tags[{quoted(key, 60)}]={quoted(value, 60)} does not fit in 64 bits, so it would be written as text: "
                "pass str(value)"
            )
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidOptionError(
                f"tags[{quoted(key, 60)}]={value!r}: NaN and infinity have no JSON form (written as null); pass a "
                "finite number, or None for unknown"
            )
        return float(value)
    raise InvalidOptionError(
        f"tags[{quoted(key, 60)}]={quoted(value, 60)} is of type {type_name(value)}; a tag is {_KINDS} (written as JSON and "
        "read back as it was): pass str(value) for a label"
    )
