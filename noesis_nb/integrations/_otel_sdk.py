"""Span specs → the OpenTelemetry SDK's ``ReadableSpan`` objects an OTLP exporter sends (imports opentelemetry)."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from .otel_clean import clean_text
from .otel_spans import status_code

__all__ = ["readable_spans", "service_resource"]

_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}


def service_resource(service: str) -> Resource:
    """The resource naming ``service``. Made once per exporter: ``Resource.create`` runs its detectors on a thread
    pool, which refuses work once the interpreter exits, so a live export's last look at exit could send nothing."""
    return Resource.create({"service.name": clean_text(service, 512)})  # a name is text that leaves, as any other


def readable_spans(specs: list[dict[str, Any]], service: str | Resource) -> list[ReadableSpan]:
    """Finished spans with the specs' own ids and times (an export of what happened, not a live trace)."""
    resource = service if isinstance(service, Resource) else service_resource(service)
    scope = InstrumentationScope("noesis_nb")
    out = []
    for s in specs:
        context = SpanContext(s["trace_id"], s["span_id"], is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))
        parent = SpanContext(s["trace_id"], s["parent_id"], is_remote=False) if s["parent_id"] else None
        code, message = status_code(s)  # the code the OTLP/JSON file gives too
        status = Status(StatusCode(code), message)
        out.append(
            ReadableSpan(
                name=s["name"],
                context=context,
                parent=parent,
                resource=resource,
                attributes=s["attributes"],
                events=[Event(name, attrs, timestamp=at) for name, at, attrs in s["events"]],
                kind=_KINDS[s["kind"]],
                status=status,
                start_time=s["start_ns"],
                end_time=s["end_ns"],
                instrumentation_scope=scope,
            )
        )
    return out
