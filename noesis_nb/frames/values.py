"""What a value read from a run must be to count as known: one rule per kind, shared by every reader.

A value that breaks its rule is read as unknown (None/NaN) and reported; it never becomes a
plausible value (``"12"`` is not 12 tokens, ``true`` is not 1, ``5`` is not a timestamp).
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable
from typing import Any, TypeGuard

from ..secrets import SCAN_MARGIN, shown_cut, shown_start
from ..store.vocab import TOKEN_FIELDS
from .timetext import utc_micros

__all__ = ["Rule", "RULES", "is_count", "is_time", "safe_name", "usage_conflicts", "describe", "TOKEN_KEYS", "MAX_COUNT"]

MAX_COUNT = 2**53  # counts above this are not exact as float64; no real call comes near
TOKEN_KEYS = TOKEN_FIELDS


def is_count(value: object) -> TypeGuard[int | float]:
    """A whole number of things: an int (or integral float) from 0 to 2**53; never a bool or a string."""
    if type(value) is int:
        return 0 <= value < MAX_COUNT
    return type(value) is float and value.is_integer() and 0 <= value < MAX_COUNT


def is_time(value: Any) -> bool:
    """An ISO-8601 time as every frame reads one (``timetext``); numbers and free text are not times."""
    return utc_micros(value) is not None


def _number(value: Any) -> bool:
    return (type(value) is int or type(value) is float) and math.isfinite(value)


def _nonneg(value: Any) -> bool:
    """A duration, latency or cost: from 0 to 2**53 (beyond that no measured quantity is meant)."""
    return _number(value) and 0 <= value < MAX_COUNT


def _success(value: Any) -> bool:
    """``metrics.success``: a bool in current runs, 1/0 or a 0..1 score in older ones."""
    return type(value) is bool or (_number(value) and 0 <= value <= 1)


def _tool(value: Any) -> bool:
    """A tool reference: ``"fs.write@1"`` or ``{"name": ..., "namespace"?: ..., "version"?: ...}`` with text parts."""
    if type(value) is str:
        return True
    return (
        type(value) is dict
        and type(value.get("name")) is str
        and all(value.get(k) is None or type(value.get(k)) in (str, int) for k in ("namespace", "version"))
    )


def safe_name(value: Any) -> bool:
    """A file name listed in a manifest: a relative POSIX path inside the run (no ``..``, root, backslash, NUL or drive)."""
    if type(value) is not str or not value or value.startswith("/") or "\\" in value or "\x00" in value:
        return False
    parts = value.split("/")
    return all(part not in ("", ".", "..") for part in parts) and not (len(parts[0]) >= 2 and parts[0][1] == ":")


class Rule:
    """A named check: ``ok(value)`` and what a good value looks like (for the report)."""

    __slots__ = ("name", "ok", "want")

    def __init__(self, name: str, ok: Callable[[Any], bool], want: str):
        self.name, self.ok, self.want = name, ok, want


RULES: dict[str, Rule] = {
    r.name: r
    for r in (
        Rule("text", lambda v: type(v) is str, "text"),
        Rule("time", is_time, "an ISO-8601 time"),
        Rule("count", is_count, "a whole number from 0 to 2**53"),
        Rule("number", _number, "a finite number"),
        Rule("nonneg", _nonneg, "a number from 0 to 2**53"),
        Rule("bool", lambda v: type(v) is bool, "true or false"),
        Rule("success", _success, "true/false or a score from 0 to 1"),
        Rule("object", lambda v: type(v) is dict, "an object"),
        Rule("list", lambda v: type(v) is list, "an array"),
        Rule("tool", _tool, "a tool name or {name, namespace, version}"),
        Rule("relpath", safe_name, "a relative path inside the run"),
        Rule("any", lambda v: True, "a value"),
    )
}


def usage_conflicts(usage: dict[str, Any]) -> list[str]:
    """Token counts that contradict each other (parts above their total); they cannot all be right."""
    out = []
    total, cached, written = (usage.get(k) for k in ("input_tokens", "cached_input_tokens", "cache_write_input_tokens"))
    parts = sum(v for v in (cached, written) if is_count(v))
    if is_count(total) and parts > total:
        out.append(f"cached_input_tokens + cache_write_input_tokens = {parts:g} exceeds input_tokens = {total:g}")
    output, reasoning = usage.get("output_tokens"), usage.get("reasoning_tokens")
    if is_count(output) and is_count(reasoning) and reasoning > output:
        out.append(f"reasoning_tokens = {reasoning:g} exceeds output_tokens = {output:g}")
    return out


def describe(value: Any, limit: int = 40) -> str:
    """``'abc' (a JSON string)``: a short repr and the JSON kind, for reports."""
    kind = {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
    # redacted before it is shortened: reprlib keeps a long string's head and tail, which no detector
    # recognises once the middle is gone (a key read from a crafted run was quoted all but 4 characters)
    text = shown_start(_REPR.repr(value), limit)
    return f"{text if len(text) <= limit else shown_cut(text, limit - 1) + '…'} (a JSON {kind})"


_REPR = reprlib.Repr()  # bounded: a value nested 1,000 deep must not exhaust the stack
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 3, SCAN_MARGIN, 40, 4, 4
