"""OpenTelemetry in: GenAI spans created inside an episode become that episode's ``model.call`` events.

Any instrumentation that follows the GenAI semantic conventions (``gen_ai.*``: the OpenTelemetry
OpenAI / Anthropic instrumentations, Logfire, hand-made spans) or OpenInference (``llm.*``,
``openinference.span.kind = LLM``) works. A span belongs to the episode current where it *starts*
(it may end anywhere). Token attributes follow the conventions' rule, which is ours: the input
and output counts are totals, cache reads / cache creation and reasoning are parts of them; a part
above its total is written unknown, the total kept, and ``usage_warning`` says so.

A span an SDK call began inside (the instrumentation's span around the captured call), and a
span started while a captured SDK call runs (the ``anthropic`` SDK's own call span), write
nothing; a span whose ``gen_ai.response.id`` a captured call recorded, of that call's model, writes nothing
either (``scope`` states the rule, and when counts must agree too).

The processor is attached to the global SDK ``TracerProvider`` when an episode starts (if the
program uses the OpenTelemetry SDK); ``span_processor()`` gives one for any other provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..secrets import shown_cut
from ..store.vocab import BILLED_COUNTS, MODEL_CALL
from .scope import IN_SDK_CALL, OPEN_SPANS, current, span_key, span_ref
from .usage import count, fitted_counts, text

__all__ = ["span_payload", "SpanCapture", "MODEL_OPERATIONS", "BILLED_ATTRS"]

#: ``gen_ai.operation.name`` values that are one model call (not an agent, a tool or a workflow)
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "embeddings", "responses"})

_FIRST = {  # canonical field → attribute names, first present wins (current conventions, older ones, OpenInference)
    "input_tokens": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"),
    "output_tokens": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"),
    "cached_input_tokens": (
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
        "llm.token_count.prompt_details.cache_read",
    ),
    "cache_write_input_tokens": (
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.cache_creation_input_tokens",
        "gen_ai.usage.cache_write.input_tokens",
        "llm.token_count.prompt_details.cache_write",
    ),
    "reasoning_tokens": ("gen_ai.usage.reasoning.output_tokens", "llm.token_count.completion_details.reasoning"),
}

#: a call's counts billed apart (``store.vocab.BILLED_COUNTS``: hour-long cache writes, web searches), which no GenAI
#: convention names: ``noesis.usage.<column>``, as ``export_otel`` writes them and a span read here gives them back
BILLED_ATTRS = {field: f"noesis.usage.{field}" for field in BILLED_COUNTS}


def _first(attrs: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        value = attrs.get(name)
        if value is not None:
            return value
    return None


def _first_text(attrs: Mapping[str, Any], *names: str) -> str | None:
    """The first of ``names`` whose value is text: a number or a list where a name belongs is not that name."""
    for name in names:
        value = text(attrs.get(name))
        if value is not None:
            return value
    return None


def is_model_span(attrs: Mapping[str, Any]) -> bool:
    """A span of one model call: a GenAI model operation, an OpenInference LLM span, or one with a model and usage."""
    operation = attrs.get("gen_ai.operation.name")
    if operation is not None:
        return isinstance(operation, str) and operation in MODEL_OPERATIONS
    if attrs.get("openinference.span.kind") is not None:
        return attrs.get("openinference.span.kind") == "LLM"
    has_model = _first(attrs, "gen_ai.request.model", "gen_ai.response.model") is not None
    return has_model and any(_first(attrs, *names) is not None for names in _FIRST.values())


def span_payload(
    attrs: Mapping[str, Any],
    *,
    start_ns: int | None,
    end_ns: int | None,
    failed: bool = False,
    status_message: str | None = None,
    trace_id: int | None = None,
    span_id: int | None = None,
) -> dict[str, Any] | None:
    """The ``model.call`` payload of a span's attributes, or None when the span is not a model call."""
    if not is_model_span(attrs):
        return None
    given = {field: count(_first(attrs, *names)) for field, names in _FIRST.items()}
    # a part above its total is left unknown, the total kept: the SDK capture's rule (``fitted_counts``)
    counts = fitted_counts(*given.values(), lone_write=True)
    reasons = attrs.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, (list, tuple)):
        reasons = reasons[0] if reasons else None
    requested = _first_text(attrs, "gen_ai.request.model", "llm.model_name")
    stream = attrs.get("gen_ai.request.stream")
    latency = (end_ns - start_ns) / 1e6 if isinstance(start_ns, int) and isinstance(end_ns, int) else None
    payload: dict[str, Any] = {
        "model": _first_text(attrs, "gen_ai.response.model") or requested,
        "provider": _first_text(attrs, "gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"),
        **counts,
        "latency_ms": round(latency, 3) if latency is not None and latency >= 0 else None,
        "cost_usd": None,
        "api": _first_text(attrs, "gen_ai.operation.name") or "llm",
        "capture": "otel",
        "requested_model": requested,
        "request_id": None,
        "response_id": _first_text(attrs, "gen_ai.response.id"),
        "stop_reason": text(reasons),
        "streamed": stream if isinstance(stream, bool) else None,  # "false" is text, not a yes
    }
    for field, attr in BILLED_ATTRS.items():  # kept only when reported, as the SDK capture keeps them
        if billed := count(attrs.get(attr)):
            payload[field] = billed
    hour = payload.get("cache_write_1h_input_tokens")
    if hour is not None and (counts["cache_write_input_tokens"] is None or hour > counts["cache_write_input_tokens"]):
        del payload["cache_write_1h_input_tokens"]  # a part of the cache writes, or nothing (``capture.usage``'s rule)
    if trace_id:
        payload["trace_id"] = format(trace_id, "032x")
    if span_id:
        payload["span_id"] = format(span_id, "016x")
    if failed:
        payload["error"] = {"type": _first_text(attrs, "error.type") or "error", "message": shown_cut(status_message or "", 500)}
    warnings = [
        f"{field} ({given[field]}) does not fit in {'output' if field == 'reasoning_tokens' else 'input'}_tokens "
        f"({given['output_tokens' if field == 'reasoning_tokens' else 'input_tokens']}): left unknown"
        for field in ("cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")
        if counts[field] is None and given[field] is not None
    ]
    if warnings:
        payload["usage_warning"] = "; ".join(warnings)
    return payload


class SpanCapture:
    """What a span processor does, without OpenTelemetry imported: note the episode at start, record at end."""

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        scope = current()
        if scope is not None and not scope.closed and not IN_SDK_CALL.get():
            scope.span_started(span_key(span.get_span_context()))

    def _on_ending(self, span: Any) -> None:
        pass

    def on_end(self, span: Any) -> None:
        context = span.get_span_context() if hasattr(span, "get_span_context") else span.context
        key = span_key(context)
        scope = OPEN_SPANS.pop(key, None)
        if scope is None:
            return
        scope.open_spans.discard(key)
        if scope.closed or key in scope.covered_spans:  # ended after the adapter returned: not written
            return
        try:
            status = span.status
            failed = getattr(status.status_code, "name", "") == "ERROR"
            payload = span_payload(
                dict(span.attributes or {}),
                start_ns=span.start_time,
                end_ns=span.end_time,
                failed=failed,
                status_message=status.description,
                trace_id=context.trace_id,
                span_id=context.span_id,
            )
        except Exception:
            return
        if payload is None:
            return
        keys = (("span", span_ref(key)), *((("response", payload["response_id"]),) if payload.get("response_id") else ()))
        scope.record({"event_name": MODEL_CALL, **payload}, keys)

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
