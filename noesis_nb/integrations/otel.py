"""OpenTelemetry out: runs as OTLP traces, for Phoenix, Jaeger, Langfuse or any collector.

    noesis_nb.export_otel("ep_01K…", endpoint="http://localhost:4318")   # OTLP/HTTP (protobuf)
    noesis_nb.export_otel(runs, path="traces.json")                        # OTLP/JSON file
    noesis_nb.export_otel(handle, path="episode.json")                    # a live episode, as far as it got

One trace per episode. The episode is the root span (``invoke_agent``); each timed step (an event
with ``metrics``: interpret, plan, act …) is a child span; each ``model.call`` is a ``chat`` span
with the GenAI attributes (``gen_ai.usage.*`` by the conventions' rule, which is the run's: input
and output are totals, cache reads / writes and reasoning are parts); each tool request is an
``execute_tool`` span with ``noesis.tool.effect``, ``.risk``, ``.decision`` and ``.status``; other
events are span events of the root. Trace and span ids derive from the episode and event ids, so
exporting a run twice gives the same ids (backends keep one copy). Needs ``pip install
'noesis_nb[otel]'``.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, overload

import orjson

from .._jsonio import atomic_write_bytes
from ..errors import EventLogCorruption
from ..store import find_run_dir, is_sealed
from ..store.eventlog import read_run_events
from ..store.runfiles import UnreadableRunFile, read_file
from ..store.vocab import TOOL_APPROVAL_PENDING, TOOL_APPROVED, TOOL_REJECTED_GOVERNANCE
from ._extras import require
from .otel_clean import clean_spec
from .otel_live import LiveExport

__all__ = ["export_otel", "run_spans", "SpanSpec", "OtlpSender", "TraceIncomplete"]


class TraceIncomplete(UserWarning):
    """Part of a run could not be read, so its exported trace lacks it; the message names the file and what is missing."""


SpanSpec = dict[str, Any]  # name, trace_id, span_id, parent_id, start_ns, end_ns, kind, attributes, error, events
_OPERATION = {"chat.completions": "chat", "messages": "chat", "responses": "chat", "completions": "text_completion"}
_USAGE_ATTRS = {
    "input_tokens": "gen_ai.usage.input_tokens",
    "output_tokens": "gen_ai.usage.output_tokens",
    "cached_input_tokens": "gen_ai.usage.cache_read.input_tokens",
    "cache_write_input_tokens": "gen_ai.usage.cache_creation.input_tokens",
    "reasoning_tokens": "gen_ai.usage.reasoning.output_tokens",
}


def _id(*parts: str, size: int) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:size], "big") or 1


def _ns(stamp: Any) -> int | None:
    if not isinstance(stamp, str):
        return None
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1e9)
    except ValueError:
        return None


def _attrs(values: dict[str, Any]) -> dict[str, Any]:
    """The attributes with a value (None is left out); ``clean_spec`` makes them safe to send."""
    return {key: value for key, value in values.items() if value is not None}


def _tool_records(run_dir: Path, problems: list[str]) -> dict[str, dict[str, Any]]:
    """draft id → {effect, risk, decision} from the run's prepared drafts and decisions (no link out of the run
    followed); a record that cannot be read (a FIFO, a folder, a link out of the run, no JSON) is named in ``problems``."""
    found: dict[str, dict[str, Any]] = {}
    lacking = {
        "draft": "its tool span is exported without effect and risk",
        "decision": "its tool span's decision is taken from the events",
    }
    for folder, kind in (("prepared", "draft"), ("x-python/prepared", "draft"), ("approvals", "decision")):
        base = run_dir / "tool_invocations" / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for path in base.glob("*.json"):
            record, why = _record(path, run_dir)
            if why is not None:
                problems.append(f"{path}: {why}; {lacking[kind]}")
            if record is None or not isinstance(record.get("draft_id"), str):
                continue
            entry = found.setdefault(record["draft_id"], {})
            if kind == "draft":
                governance = record["governance"] if isinstance(record.get("governance"), dict) else {}
                entry.update(effect=governance.get("effect_kind"), risk=governance.get("risk_tier"))
            else:
                entry.update(decision=record.get("status"), approver=record.get("approver_id"))
    return found


def _record(path: Path, run_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A tool record as a dict (None when absent or not an object), and why it could not be read (None when it could)."""
    try:
        got = read_file(str(path), str(run_dir))
        value = None if got is None else orjson.loads(got[0])
    except UnreadableRunFile as exc:
        return None, exc.reason
    except orjson.JSONDecodeError as exc:
        return None, f"not JSON ({exc})"
    if got is None or isinstance(value, dict):
        return value, None
    return None, "a JSON value that is not an object"


def _events_problem(unread: list[EventLogCorruption], shown: int = 3) -> str:
    """One line naming an events file that could not be read (line 0: the whole file) or the lines of it left out."""
    path = unread[0].path
    if unread[0].line_number == 0:
        return f"{path}: {unread[0].reason}; the run is left out of the trace"
    named = "; ".join(f"line {c.line_number}: {c.reason}" for c in unread[:shown])
    more = f"; {len(unread) - shown} more" if len(unread) > shown else ""
    lines = "line" if len(unread) == 1 else "lines"
    return f"{path}: {len(unread)} {lines} not read, left out of the trace ({named}{more})"


def _payload(event: dict[str, Any]) -> dict[str, Any]:
    payload = event.get("payload")
    return payload if isinstance(payload, dict) else {}


def run_spans(
    run_dir: str | os.PathLike[str], events: list[dict[str, Any]] | None = None, *, problems: list[str] | None = None
) -> list[SpanSpec]:
    """The spans of one run directory, parents first (plain dicts: the OTLP shape is made from these);
    ``events``: the run's events when already in memory (a live episode's), instead of its ``events.jsonl``.

    What of the run could not be read is one line per file in ``problems``; without that list, each
    line is a ``TraceIncomplete`` warning.
    """
    run_dir = Path(run_dir)
    found: list[str] = []
    try:
        return _spans(run_dir, events, found)
    finally:
        if problems is not None:
            problems.extend(found)
        else:
            for problem in found:
                warnings.warn(problem, TraceIncomplete, stacklevel=2)


def _spans(run_dir: Path, events: list[dict[str, Any]] | None, problems: list[str]) -> list[SpanSpec]:
    unread: list[EventLogCorruption] = []
    if events is None:
        events = read_run_events(run_dir / "events.jsonl", sealed=lambda: is_sealed(run_dir), errors=unread)
        if unread:
            problems.append(_events_problem(unread))
    if not events:
        return []
    episode = str(events[0].get("episode_id") or run_dir.name)
    trace_id = _id(episode, size=16)
    root_id = _id(episode, "root", size=8)
    stamps = [t for t in (_ns(e.get("timestamp")) for e in events) if t is not None]
    start: dict[str, Any] = next((_payload(e) for e in events if e.get("phase") == "start"), {})
    end: dict[str, Any] = next((_payload(e) for e in reversed(events) if e.get("phase") == "terminate"), {})
    status = end.get("status") or "running"
    root: SpanSpec = {
        "name": f"invoke_agent {start.get('using') or 'agent'}",
        "trace_id": trace_id,
        "span_id": root_id,
        "parent_id": None,
        "start_ns": min(stamps) if stamps else 0,
        "end_ns": max(stamps) if stamps else 0,
        "kind": "internal",
        "attributes": _attrs(
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": start.get("using"),
                "noesis.episode_id": episode,
                "noesis.task": start.get("task"),
                "noesis.status": status,
                "noesis.events_left_out": len(unread) or None,
            }
        ),
        "error": status not in ("ok", "running", "paused") and (end.get("message") or status),
        "events": [],
    }
    spans = [root]
    tools = _tool_records(run_dir, problems)
    requests: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        payload = _payload(event)
        at = _ns(event.get("timestamp")) or root["start_ns"]
        event_id = str(event.get("id") or at)
        if event.get("phase") == "model":
            spans.append(_model_span(payload, trace_id, root_id, event_id, at))
        elif event.get("phase") == "tool" and isinstance(payload.get("request_id"), str):
            requests.setdefault(payload["request_id"], []).append(event)
        elif isinstance(event.get("metrics"), dict):
            metrics = event["metrics"]
            spans.append(
                {
                    "name": str(event.get("phase")),
                    "trace_id": trace_id,
                    "span_id": _id(episode, event_id, size=8),
                    "parent_id": root_id,
                    "start_ns": _ns(metrics.get("started_at")) or at,
                    "end_ns": _ns(metrics.get("completed_at")) or at,
                    "kind": "internal",
                    "attributes": _attrs({"noesis.phase": event.get("phase"), "noesis.event_id": event.get("id")}),
                    "error": False,
                    "events": [],
                }
            )
        else:
            root["events"].append((str(payload.get("event_name") or event.get("phase")), at, {"noesis.event_id": event_id}))
    for request_id, chain in requests.items():
        spans.append(_tool_span(chain, tools, trace_id, root_id, episode, request_id))
    return [clean_spec(s) for s in spans]  # secrets redacted, numbers OTLP can carry: see otel_clean


def _model_span(payload: dict[str, Any], trace_id: int, parent: int, event_id: str, at: int) -> SpanSpec:
    latency = payload.get("latency_ms")
    if isinstance(latency, (int, float)) and not isinstance(latency, bool) and 0 <= latency <= 1e12:  # NaN fails too
        start = at - int(latency * 1e6)
    else:
        start = at
    operation = _OPERATION.get(str(payload.get("api")), "chat")
    model = payload.get("requested_model") or payload.get("model")
    error = payload.get("error") if isinstance(payload.get("error"), dict) else None
    values = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": payload.get("provider"),
        "gen_ai.request.model": model,
        "gen_ai.response.model": payload.get("model"),
        "gen_ai.response.id": payload.get("response_id"),
        "gen_ai.response.finish_reasons": [payload["stop_reason"]] if isinstance(payload.get("stop_reason"), str) else None,
        "gen_ai.request.stream": payload.get("streamed"),
        "noesis.request_id": payload.get("request_id"),
        "noesis.capture": payload.get("capture"),
        "error.type": error.get("type") if error else None,
        **{attr: payload.get(field) for field, attr in _USAGE_ATTRS.items()},
    }
    return {
        "name": f"{operation} {model or 'model'}",
        "trace_id": trace_id,
        "span_id": _id(str(trace_id), event_id, size=8),
        "parent_id": parent,
        "start_ns": start,
        "end_ns": at,
        "kind": "client",
        "attributes": _attrs(values),
        "error": (error.get("message") or error.get("type") or "error") if error else False,
        "events": [],
    }


def _tool_span(
    chain: list[dict[str, Any]], tools: dict[str, Any], trace_id: int, parent: int, episode: str, request_id: str
) -> SpanSpec:
    names = [str(e["payload"].get("event_name")) for e in chain]
    first = chain[0]["payload"]
    draft = next((e["payload"]["draft_id"] for e in chain if isinstance(e["payload"].get("draft_id"), str)), None)
    record = tools.get(draft or "", {})
    decision = record.get("decision") or (
        "rejected" if TOOL_REJECTED_GOVERNANCE in names else "approved" if TOOL_APPROVED in names else None
    )
    outcome = next((n.rsplit(".", 1)[1] for n in reversed(names) if n.startswith("tool.execution.")), None)
    stamps = [t for t in (_ns(e.get("timestamp")) for e in chain) if t is not None]
    tool = first.get("tool")
    return {
        "name": f"execute_tool {tool}",
        "trace_id": trace_id,
        "span_id": _id(episode, request_id, size=8),
        "parent_id": parent,
        "start_ns": min(stamps) if stamps else 0,
        "end_ns": max(stamps) if stamps else 0,
        "kind": "internal",
        "attributes": _attrs(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "noesis.tool.protocol": first.get("protocol"),
                "noesis.tool.effect": record.get("effect"),
                "noesis.tool.risk": record.get("risk"),
                "noesis.tool.decision": decision or ("not_required" if TOOL_APPROVAL_PENDING not in names else "pending"),
                "noesis.tool.approver": record.get("approver"),
                "noesis.tool.status": outcome or "not_executed",
                "noesis.request_id": request_id,
                "noesis.draft_id": draft,
            }
        ),
        "error": "tool execution failed" if outcome == "failed" else False,
        "events": [(n, t, {}) for n, t in zip(names, (_ns(e.get("timestamp")) or 0 for e in chain))],
    }


def _run_dirs(target: Any, runs_dir: Any) -> list[Path]:
    items = target if isinstance(target, (list, tuple)) else [target]
    out = []
    for item in items:
        run_dir = getattr(item, "run_dir", None)  # an EpisodeHandle or DiskRun
        out.append(Path(run_dir) if run_dir is not None else find_run_dir(item, runs_dir))
    return out


@overload
def export_otel(
    run_or_runs: Any,
    *,
    endpoint: str | None = None,
    path: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    service_name: str = "noesis_nb",
    runs_dir: Any = None,
    timeout: float = 10.0,
    live: Literal[False] = False,
    interval: float = 1.0,
) -> int: ...


@overload
def export_otel(
    run_or_runs: Any,
    *,
    endpoint: str | None = None,
    path: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    service_name: str = "noesis_nb",
    runs_dir: Any = None,
    timeout: float = 10.0,
    live: Literal[True],
    interval: float = 1.0,
) -> LiveExport: ...


def export_otel(
    run_or_runs: Any,
    *,
    endpoint: str | None = None,
    path: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    service_name: str = "noesis_nb",
    runs_dir: Any = None,
    timeout: float = 10.0,
    live: bool = False,
    interval: float = 1.0,
) -> int | LiveExport:
    """Export runs (ids, run directories, handles, or a list of them) as OTLP spans; returns how many were sent.

    ``endpoint``: an OTLP/HTTP collector (``http://host:4318`` or its full ``…/v1/traces`` URL);
    ``path``: an OTLP/JSON file (one ``resourceSpans`` document). Give one or both.
    ``live=True`` (one running episode's handle, and an ``endpoint``): spans are sent while the
    episode runs, each once, when it is finished (checked every ``interval`` seconds, in a thread of
    its own), the root span when the episode ends; returns the ``LiveExport`` (``wait``, ``stop``,
    ``sent``, ``errors``).

    A part of a run that cannot be read is a ``TraceIncomplete`` warning naming the file (and
    lines) left out; a live export notes it in ``errors``.
    """
    if endpoint is None and path is None:
        raise ValueError("export_otel needs endpoint='http://host:4318' (OTLP/HTTP) or path='traces.json' (OTLP/JSON)")
    _check_target(endpoint, path, headers)
    if live:
        return _start_live(run_or_runs, endpoint, path, headers, service_name, timeout, interval)
    if path is not None:
        path = check_out_path(path)
    problems: list[str] = []
    specs = [s for run_dir in _run_dirs(run_or_runs, runs_dir) for s in run_spans(run_dir, problems=problems)]
    for problem in problems:
        warnings.warn(problem, TraceIncomplete, stacklevel=2)
    if path is not None:
        atomic_write_bytes(path, json.dumps(otlp_json(specs, service_name), allow_nan=False).encode())
    if endpoint is not None:
        _send(specs, endpoint, headers, service_name, timeout)
    return len(specs)


def _check_target(endpoint: Any, path: Any, headers: Any) -> None:
    """Where the spans go, checked before a run is read: an http(s) URL, a file path, headers as a dict of text."""
    if endpoint is not None and (not isinstance(endpoint, str) or not endpoint.lower().startswith(("http://", "https://"))):
        fix = f"'http://{endpoint}'" if isinstance(endpoint, str) and "://" not in endpoint else "'http://localhost:4318'"
        raise ValueError(f"export_otel(endpoint={endpoint!r:.80}): give the collector's OTLP/HTTP URL, e.g. {fix}")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"export_otel(path={path!r:.80}): give a file path (a str or pathlib.Path), e.g. 'traces.json'")
    if headers is not None and (
        not isinstance(headers, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
    ):
        kind = type(headers).__name__ if not isinstance(headers, Mapping) else "a dict with values that are not text"
        # the value itself is not shown: headers carry credentials
        raise TypeError(f"export_otel(headers=…) got {kind}; give a dict of header name -> text, e.g. {{'x-api-key': '…'}}")


def _send(specs: Iterable[SpanSpec], endpoint: str, headers: dict[str, str] | None, service: str, timeout: float) -> None:
    sender = OtlpSender(endpoint, headers, service, timeout)
    try:
        sender.send(list(specs))
    finally:
        sender.close()


class OtlpSender:
    """One OTLP/HTTP exporter for span specs (needs the ``otel`` extra); ``send`` raises ConnectionError on refusal."""

    def __init__(self, endpoint: str, headers: dict[str, str] | None, service: str, timeout: float):
        require("opentelemetry.sdk.trace", "otel", "export_otel")
        exporter_module = require("opentelemetry.exporter.otlp.proto.http.trace_exporter", "otel", "export_otel")
        self.url = endpoint if endpoint.rstrip("/").endswith("/v1/traces") else endpoint.rstrip("/") + "/v1/traces"
        self.service = service
        self._exporter = exporter_module.OTLPSpanExporter(endpoint=self.url, headers=headers, timeout=timeout)

    def send(self, specs: list[SpanSpec]) -> None:
        from ._otel_sdk import readable_spans  # imports opentelemetry

        result = self._exporter.export(readable_spans(specs, self.service))
        if getattr(result, "name", "") != "SUCCESS":
            raise ConnectionError(
                f"the OTLP endpoint {self.url!r} did not accept the spans ({result}); is a collector listening there?"
            )

    def close(self) -> None:
        self._exporter.shutdown()


def _start_live(
    target: Any, endpoint: str | None, path: Any, headers: dict[str, str] | None, service: str, timeout: float, interval: float
) -> LiveExport:
    if endpoint is None:
        raise ValueError("export_otel(live=True) sends spans as they finish: give endpoint='http://host:4318'")
    if not hasattr(target, "subscribe") or not hasattr(target, "done"):
        raise TypeError(
            f"export_otel(live=True) follows one running episode: pass the handle of noesis_nb.start(...), not {target!r:.80}"
        )
    if not isinstance(interval, (int, float)) or isinstance(interval, bool) or not interval > 0:
        raise ValueError(f"interval={interval!r}: give the seconds between checks for finished spans, e.g. 1.0")
    if path is not None:
        path = check_out_path(path)
    sender = OtlpSender(endpoint, headers, service, timeout)
    return LiveExport(target, sender, float(interval), path, spans=run_spans, to_json=otlp_json)


def check_out_path(path: str | os.PathLike[str]) -> Path:
    """``path`` when a trace file may be written there: not a directory, not a symbolic link (whose target
    a rename would silently replace by a plain file)."""
    out = Path(path)
    if out.is_symlink():
        raise ValueError(
            f"export_otel(path={str(out)!r}): that is a symbolic link (to {os.readlink(out)!r}); "
            "give the path of a plain file, e.g. the link's target"
        )
    if out.is_dir():
        raise ValueError(
            f"export_otel(path={str(out)!r}) is a directory; give a file name in it, e.g. {str(out / 'traces.json')!r}"
        )
    return out


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def otlp_json(specs: list[SpanSpec], service: str) -> dict[str, Any]:
    """The OTLP/JSON document of ``specs`` (ids in hex, times as strings of nanoseconds, as the spec says)."""
    kinds = {"internal": 1, "client": 3}

    def keyvalues(values: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"key": k, "value": _value(v)} for k, v in values.items()]

    spans = [
        {
            "traceId": format(s["trace_id"], "032x"),
            "spanId": format(s["span_id"], "016x"),
            **({"parentSpanId": format(s["parent_id"], "016x")} if s["parent_id"] else {}),
            "name": s["name"],
            "kind": kinds[s["kind"]],
            "startTimeUnixNano": str(s["start_ns"]),
            "endTimeUnixNano": str(s["end_ns"]),
            "attributes": keyvalues(s["attributes"]),
            "events": [{"name": n, "timeUnixNano": str(t), "attributes": keyvalues(a)} for n, t, a in s["events"]],
            "status": {"code": 2, "message": str(s["error"])} if s["error"] else {"code": 0},
        }
        for s in specs
    ]
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": keyvalues({"service.name": service})},
                "scopeSpans": [{"scope": {"name": "noesis_nb"}, "spans": spans}],
            }
        ]
    }
