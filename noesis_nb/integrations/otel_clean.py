"""What may leave in an OTLP span: every text redacted, every number one OTLP can carry.

A run directory may come from another program, or hold a value learned as a secret after it was
written; a span goes to a collector other people read. So each span name, attribute, status
message and event name passes ``secrets.shown_start`` (every secret this process knows, and every one
found in the text), is cut to ``TEXT_LIMIT`` characters and made valid UTF-8; integers outside int64, NaN and
infinities are left out (the OTLP encoder rejects them, and one bad value would stop the whole
batch); times are clamped to what an unsigned 64-bit nanosecond count holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..secrets import shown_start

__all__ = ["clean_spec", "clean_attrs", "clean_text", "clean_ns", "utf8", "TEXT_LIMIT"]

TEXT_LIMIT = 4096
_INT64 = (-(2**63), 2**63 - 1)
_NS_MAX = 2**63 - 1  # fixed64 on the wire; the SDK and most backends read it as a signed count


def clean_text(value: Any, limit: int = TEXT_LIMIT) -> str:
    """``value`` as text a collector may receive: secrets redacted, at most ``limit`` characters, valid UTF-8."""
    text = shown_start(value if isinstance(value, str) else str(value), limit)
    return utf8(text if len(text) <= limit else text[: limit - 1] + "…")


def utf8(text: str) -> str:
    """``text`` with each lone surrogate (a name that was no UTF-8, text given by a program) as U+FFFD: protobuf
    refuses to encode it (the whole batch failed, said as an unreachable collector) and JSON readers reject it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def clean_ns(value: Any) -> int:
    """A time in nanoseconds an OTLP span can carry (0 for anything that is not an integer)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return 0
    return min(max(value, 0), _NS_MAX)


def _scalar(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if _INT64[0] <= value <= _INT64[1] else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return clean_text(value)
    return None


def clean_attrs(values: Mapping[Any, Any]) -> dict[str, Any]:
    """Attributes OpenTelemetry accepts (str, bool, int64, finite float, or a list of strings), texts redacted."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, (list, tuple)):
            if value and all(isinstance(v, str) for v in value):
                out[key] = [clean_text(v) for v in value]
            continue
        cleaned = _scalar(value)
        if cleaned is not None:
            out[key] = cleaned
    return out


def clean_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """One span spec with its name, attributes, status message and events made safe to send."""
    start, end = clean_ns(spec.get("start_ns")), clean_ns(spec.get("end_ns"))
    error = spec.get("error")
    return {
        **spec,
        "name": clean_text(spec.get("name"), 512),
        "start_ns": start,
        "end_ns": max(start, end),
        "attributes": clean_attrs(spec.get("attributes") or {}),
        "error": clean_text(error) if error else False,
        "events": [(clean_text(name, 512), clean_ns(at), clean_attrs(attrs)) for name, at, attrs in spec.get("events") or ()],
    }
