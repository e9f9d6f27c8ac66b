"""Model calls recorded automatically inside episodes: the ``openai`` and ``anthropic`` SDKs, and GenAI spans.

An episode turns capture on around its adapter call (``episode_capture``); every Chat Completions,
Responses or Messages call the adapter makes through the official SDKs (sync or async, streamed
or not) becomes one ``model.call`` event of that episode, and so does every OpenTelemetry GenAI
span started inside it. Capture is off with ``start(..., capture=False)``, ``solve(...,
capture=False)`` or ``NOESIS_NB_CAPTURE=0``. The SDKs and OpenTelemetry are never imported here:
capture hooks into them when the program imports them. ``scope`` states the rule that writes each
call once (retries, an OpenTelemetry span around a captured call, a ``ctx.model_call`` repeating one).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from .billing import bill_endpoint
from .hooks import ensure_installed, installed, uninstall
from .scope import ENV, CallIdShared, CaptureScope, Emit, claim_manual, current, resolve_option, scoped

__all__ = [
    "episode_capture",
    "span_processor",
    "bill_endpoint",
    "ensure_installed",
    "installed",
    "uninstall",
    "current",
    "claim_manual",
    "resolve_option",
    "CaptureScope",
    "CallIdShared",
    "ENV",
]


@contextlib.contextmanager
def episode_capture(episode_id: str, emit: Emit, enabled: bool) -> Iterator[CaptureScope | None]:
    """The block in which an episode's adapter runs: its model calls are recorded through ``emit`` when ``enabled``.

    Disabled, the block is explicitly outside any episode, so an enclosing episode does not get its calls either.
    """
    scope = None
    if enabled:
        ensure_installed()
        if "opentelemetry.sdk.trace" in sys.modules:  # the program uses the OpenTelemetry SDK: listen to its spans
            from . import otel  # imports opentelemetry, already loaded

            otel.attach_global()
        scope = CaptureScope(episode_id, emit)
    with scoped(scope):
        yield scope


def span_processor() -> Any:
    """A ``SpanProcessor`` for a ``TracerProvider`` that is not the global one (needs ``opentelemetry-sdk``)."""
    from .otel import GenAISpanProcessor

    return GenAISpanProcessor()
