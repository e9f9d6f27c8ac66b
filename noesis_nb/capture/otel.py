"""The OpenTelemetry SDK side of capture: a real ``SpanProcessor``, attached to the global provider once.

Imported only when the program already uses the OpenTelemetry SDK (``noesis_nb.capture`` checks
``sys.modules``), so nothing here costs a program that does not.
"""

from __future__ import annotations

import threading
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

from .spans import SpanCapture

__all__ = ["GenAISpanProcessor", "attach_global"]

_lock = threading.Lock()
_attached: set[int] = set()


class GenAISpanProcessor(SpanCapture, SpanProcessor):
    """Turns GenAI spans started inside an episode into that episode's ``model.call`` events."""


def attach_global() -> bool:
    """Add one processor to the global SDK ``TracerProvider`` (once per provider); False when there is none."""
    provider: Any = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        return False
    with _lock:
        if id(provider) in _attached:
            return True
        provider.add_span_processor(GenAISpanProcessor())
        _attached.add(id(provider))
    return True
