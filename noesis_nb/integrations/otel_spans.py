"""A run as OpenTelemetry span specs (plain dicts): the episode's root span, its steps, model calls and tools.

``run_spans`` reads a run directory (or takes its events) and returns the ``SpanSpec`` list that
``export_otel`` encodes as OTLP. Trace and span ids derive from the episode and event ids, so the
same run always gives the same ids. What could not be read is named in ``problems`` (the exporter
warns ``TraceIncomplete``) and counted on the root span.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path
from typing import Any

import orjson

from .._genai_rates import find_model
from .._jsonkeys import is_repeated_reason, loads_checked
from ..capture.spans import BILLED_ATTRS
from ..capture.usage import count
from ..errors import EventLogCorruption
from ..frames.toolcalls import UNDECIDED, call_status, note_tool_event, tool_label
from ..frames.waits import PauseSpans, draft_wait, instant
from ..secrets.quoted import quoted
from ..store.artifacts import read_final, read_state, read_summary
from ..store.eventlog import read_run_events
from ..store.facts import run_facts
from ..store.lostend import episode_end_marks
from ..store.revealedrun import run_revealed
from ..store.runfiles import UnreadableRunFile, read_file
from ..store.sealing import SealState, seal_state
from ..store.shownnames import shown_id
from ..store.status import LOST_HINT, status_now
from ..store.vocab import TOOL_APPROVAL_PENDING
from .otel_clean import clean_spec
from .otel_seal import AFTER_EPISODE, EPISODE_EVENTS, with_seal_span
from .otel_times import in_range, placed_times

__all__ = ["run_spans", "SpanSpec", "TraceIncomplete"]


class TraceIncomplete(UserWarning):
    """Part of a run could not be read (or a collector rejected some of its spans), so its exported trace lacks it;
    the message names the file and what is missing (or the collector and what it said)."""


SpanSpec = dict[str, Any]  # name, trace_id, span_id, parent_id, start_ns, end_ns, kind, attributes, error, events
_OPERATION = {
    "chat.completions": "chat",
    "messages": "chat",
    "responses": "chat",
    "completions": "text_completion",
    "embeddings": "embeddings",
}
_USAGE_ATTRS = {
    "input_tokens": "gen_ai.usage.input_tokens",
    "output_tokens": "gen_ai.usage.output_tokens",
    "cached_input_tokens": "gen_ai.usage.cache_read.input_tokens",
    "cache_write_input_tokens": "gen_ai.usage.cache_creation.input_tokens",
    "reasoning_tokens": "gen_ai.usage.reasoning.output_tokens",
    **BILLED_ATTRS,  # billed apart, with no GenAI convention name (``capture.spans``)
}


def _id(*parts: str, size: int) -> int:
    # surrogatepass: a folder name that is no UTF-8 (read as lone surrogates) still gives its own stable id
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).digest()[:size], "big") or 1


def _attrs(values: dict[str, Any]) -> dict[str, Any]:
    """The attributes with a value (None is left out); ``clean_spec`` makes them safe to send."""
    return {key: value for key, value in values.items() if value is not None}


_RECORD_FOLDERS = (
    ("prepared", "prepared"),
    ("x-python/prepared", "prepared"),
    ("approvals", "approval"),
    ("executions", "execution"),
)


def _tool_records(run_dir: Path, problems: list[str]) -> dict[str, dict[str, Any]]:
    """draft id → {effect, risk, decision, approver, and the ``prepared``, ``approval`` and ``execution`` records the
    call's status is read from} from the run's tool records (no link out of the run followed); a record that cannot
    be read (a FIFO, a folder, a link out of the run, no JSON) is named in ``problems``."""
    found: dict[str, dict[str, Any]] = {}
    lacking = {
        "prepared": "its tool span is exported without effect and risk",
        "approval": "its tool span's decision is taken from the events",
        "execution": "its tool span's status is taken from the events",
    }
    for folder, kind in _RECORD_FOLDERS:
        base = run_dir / "tool_invocations" / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for path in base.glob("*.json"):
            record, why = _record(path, run_dir)
            if why is not None:  # a key written twice: read as unknown, the rest of the record used
                problems.append(f"{path}: {why}" if is_repeated_reason(why) else f"{path}: {why}; {lacking[kind]}")
            if record is None or not isinstance(record.get("draft_id"), str):
                continue
            entry = found.setdefault(record["draft_id"], {})
            entry[kind] = record
            if kind == "prepared":
                governance = record["governance"] if isinstance(record.get("governance"), dict) else {}
                entry.update(effect=governance.get("effect_kind"), risk=governance.get("risk_tier"))
            elif kind == "approval":
                entry.update(decision=record.get("status"), approver=record.get("approver_id"))
    return found


def _record(path: Path, run_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A tool record as a dict (None when absent or not an object), and why it could not be read (None when it could)."""
    try:
        got = read_file(str(path), str(run_dir))
        value, repeated = (None, None) if got is None else loads_checked(got[0])
    except UnreadableRunFile as exc:
        return None, exc.reason
    except orjson.JSONDecodeError as exc:
        return None, f"not JSON ({exc})"
    if got is None or isinstance(value, dict):
        return value, None if repeated is None else f"line {repeated.line}: {repeated.reason}"
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


def _no_events(log: Path) -> str:
    """One line for a run whose events file is missing or empty: the export has nothing of it (it said nothing)."""
    what = "holds no event" if log.exists() else "is missing"
    return f"{log} {what}; the run is left out of the trace (nothing of it is exported)"


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
        return with_seal_span(_spans(run_dir, events, found))  # what came after the episode: on a span of its own
    finally:
        if problems is not None:
            problems.extend(found)
        else:
            for problem in found:
                warnings.warn(problem, TraceIncomplete, stacklevel=2)


def _spans(run_dir: Path, events: list[dict[str, Any]] | None, problems: list[str]) -> list[SpanSpec]:
    unread: list[EventLogCorruption] = []
    looked: list[SealState] = []

    def seal() -> SealState:
        """The run's seal documents, looked at once (the log's reader, the tool status and the run's status)."""
        if not looked:
            looked.append(seal_state(run_dir))
        return looked[0]

    if events is None:
        # a cut last line is damage once a seal is written (final.json alone too: the log was closed before it)
        events = read_run_events(run_dir / "events.jsonl", sealed=lambda: seal().ended, errors=unread)
        if unread:
            problems.append(_events_problem(unread))
        elif not events and seal().ended:  # a run just made has no events yet: nothing is missing from it
            problems.append(_no_events(run_dir / "events.jsonl"))
    if not events:
        return []
    episode = run_dir.name  # the run's id is its folder's, as in the frames (a copied log may name another run)
    trace_id = _id(episode, size=16)
    root_id = _id(episode, "root", size=8)
    # times in log order and in OTLP's range (a year-1 event started the trace at 1970): what moved is reported
    placed, moved_said, moved = placed_times(events, str(run_dir / "events.jsonl"))
    if moved_said is not None:
        problems.append(moved_said)
    stamps = [t for t in placed if t is not None]
    start: dict[str, Any] = next((_payload(e) for e in events if e.get("phase") == "start"), {})
    end: dict[str, Any] = next((_payload(e) for e in reversed(events) if e.get("phase") == "terminate"), {})
    # the run's facts as every reader takes them (``store.facts.run_facts``: list_runs, runs_df, show), from its
    # summary, state and seal documents (a file that cannot be read is read as absent) and its events
    summary, state, final = read_summary(run_dir), read_state(run_dir), read_final(run_dir)
    facts = run_facts(run_dir.name, summary=summary, state=state, final=final, events=events)
    # the run's id as every view shows it: a folder named with a value the run's own files reveal as a secret (a run
    # copied in as ``ep_<password>``, its events saying ``password=<password>``) is hidden, as in the frames
    revealed = run_revealed(run_dir, summary, state, final, events)
    shown_episode = shown_id(episode, revealed)
    status = status_now(run_dir, facts.status, seal())  # the status runs_df, list_runs and show give (paused, lost too)
    # the episode's start and end as runs_df gives them (``store.facts``: the summary's start, and that plus its
    # duration), else from the log: its first event, and when the episode ended (``_episode_end``). The episode's
    # own events are the log's up to its end mark (its terminate; a lost run's last sign of life), and the root
    # holds them: it starts at the earlier of runs_df's started_at and its first event, and ends at the later of
    # ended_at and that mark (Noēsis' own runs record a duration that ends before their reflect, learn and
    # terminate); what comes after the mark goes on the seal span
    first = stamps[0] if stamps else 0
    begin = in_range(facts.started_at)
    begin = first if begin is None else min(begin, first) if stamps else begin
    mark, mark_ns = _episode_end(events, placed)
    finish = in_range(facts.ended_at)
    root: SpanSpec = {
        "name": f"invoke_agent {start.get('using') or 'agent'}",
        "trace_id": trace_id,
        "span_id": root_id,
        "parent_id": None,
        "start_ns": begin,
        "end_ns": mark_ns if finish is None else max(finish, mark_ns),
        "kind": "internal",
        "attributes": _attrs(
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": start.get("using"),
                "noesis.episode_id": shown_episode,
                "noesis.task": start.get("task"),
                "noesis.status": status,
                "noesis.events_left_out": len(unread) or None,
                "noesis.event_times_moved": moved or None,
            }
        ),
        "error": _episode_error(status, end, shown_episode),
        "ok": status == "ok",
        "events": [],
    }
    spans = [root]
    tools = _tool_records(run_dir, problems)
    ended = seal().ended  # a draft still waiting in a run whose seal began is never decided
    requests: dict[str, list[tuple[dict[str, Any], int]]] = {}
    late: dict[str, bool] = {}  # request id -> whether its first event comes after the episode's end mark
    bounds = (root["start_ns"], root["end_ns"])
    ids_seen: set[str] = set()
    repeated = 0
    pauses = PauseSpans()  # the run's pauses for a person, as tools_df reads a draft's wait from them
    for line, event in enumerate(events, 1):
        pauses.note(event)
        after = mark is not None and line - 1 > mark  # the seal's (``with_seal_span``): after the episode's end mark
        if after:
            root.setdefault(EPISODE_EVENTS, len(root["events"]))  # the root's events before it are the episode's
        payload = _payload(event)
        at = placed[line - 1]
        at = root["start_ns"] if at is None else at
        # a span's id is made from its event's: an event with no id, or one another event of the log has too, is
        # told apart by its line (the same run exported twice still gives the same spans)
        event_id = str(event.get("id") or f"line-{line}")
        if event_id in ids_seen:
            repeated += 1
            event_id = f"{event_id}#line-{line}"
        ids_seen.add(event_id)
        if event.get("phase") == "model":
            spans.append({**_model_span(payload, trace_id, root_id, event_id, at, bounds[0]), AFTER_EPISODE: after})
        elif event.get("phase") == "tool" and isinstance(payload.get("request_id"), str):
            requests.setdefault(payload["request_id"], []).append((event, at))
            late.setdefault(payload["request_id"], after)  # a tool request is the seal's when its first event is
        elif isinstance(event.get("metrics"), dict):
            started, completed = _step_times(event["metrics"], at, bounds)
            spans.append(
                {
                    "name": str(event.get("phase")),
                    "trace_id": trace_id,
                    "span_id": _id(episode, event_id, size=8),
                    "parent_id": root_id,
                    "start_ns": started,
                    "end_ns": completed,
                    "kind": "internal",
                    "attributes": _attrs({"noesis.phase": event.get("phase"), "noesis.event_id": event.get("id")}),
                    "error": False,
                    "events": [],
                    AFTER_EPISODE: after,
                }
            )
        else:
            root["events"].append((str(payload.get("event_name") or event.get("phase")), at, {"noesis.event_id": event_id}))
    for request_id, chain in requests.items():
        for tool in _tool_spans(chain, tools, trace_id, root_id, episode, request_id, ended, pauses.spans):
            if mark is not None and not late[request_id] and tool["end_ns"] > root["end_ns"]:
                tool = _ended_with_root(tool, root, request_id)
            spans.append({**tool, AFTER_EPISODE: late[request_id]})
    # the agent's provider (Required on ``invoke_agent`` spans too): the one its model calls were all made with
    providers = {s["attributes"].get("gen_ai.provider.name") for s in spans[1:] if s["kind"] == "client"}
    if len(providers) == 1 and None not in providers:
        root["attributes"]["gen_ai.provider.name"] = providers.pop()
    if repeated:
        problems.append(
            f"{repeated} event(s) of run {shown_episode} repeat the id of an earlier event of its log; their spans are told "
            "apart by their line"
        )
    if revealed:  # a draft id holds the run's id (``draft:<episode>:req_…``): shown as the frames' draft_id is
        for span in spans:
            draft = span["attributes"].get("noesis.draft_id")
            if isinstance(draft, str):
                span["attributes"]["noesis.draft_id"] = shown_id(draft, revealed)
    return [clean_spec(s) for s in spans]  # secrets redacted, numbers OTLP can carry: see otel_clean


def _ended_with_root(tool: SpanSpec, root: SpanSpec, request_id: str) -> SpanSpec:
    """A tool request begun in the episode and going on past its end mark: its span ends with the root (a child
    never outlasts its parent, as a step's times are kept in the root's), its events after that (all after the
    mark: times are in log order) go to the root's events past the mark, which are the seal span's."""
    end = root["end_ns"]
    kept = [e for e in tool["events"] if e[1] <= end]
    root["events"].extend((name, at, {"noesis.request_id": request_id}) for name, at, _ in tool["events"] if at > end)
    return {**tool, "end_ns": end, "events": kept}


def _step_times(metrics: dict[str, Any], at: int, bounds: tuple[int, int]) -> tuple[int, int]:
    """A timed step's start and end: its ``started_at`` / ``completed_at`` when they lie in the run's span and in
    order, else its event's time (a step dated elsewhere stretched the trace)."""
    got = [in_range(metrics.get(key)) for key in ("started_at", "completed_at")]
    start, end = (t if t is not None and bounds[0] <= t <= bounds[1] else at for t in got)
    return (start, end) if start <= end else (at, at)


def _text(value: Any) -> str | None:
    """``value`` when it is non-empty text, else None."""
    return value if isinstance(value, str) and value else None


def _provider(payload: dict[str, Any]) -> str | None:
    """A model call's ``gen_ai.provider.name`` (Required by the GenAI conventions): the provider it names, else the one
    genai-prices prices its model under (as ``usage_df`` prices it), else the integration that recorded it
    (``payload.source``: ``noeta``, ``agui``, …); None when none of them is known."""
    named = _text(payload.get("provider"))
    if named is not None:
        return named
    model = _text(payload.get("model"))
    rates = find_model(model, None) if model is not None else None
    return rates.key.partition("/")[0] if rates is not None else _text(payload.get("source"))


def _model_span(payload: dict[str, Any], trace_id: int, parent: int, event_id: str, at: int, first: int) -> SpanSpec:
    latency = payload.get("latency_ms")
    if isinstance(latency, (int, float)) and not isinstance(latency, bool) and 0 <= latency <= 1e12:  # NaN fails too
        start = max(at - int(latency * 1e6), min(first, at))  # not before the run's first event
    else:
        start = at
    operation = _OPERATION.get(str(payload.get("api")), "chat")
    model = _text(payload.get("requested_model")) or _text(payload.get("model"))
    error = payload.get("error") if isinstance(payload.get("error"), dict) else None
    stream = payload.get("streamed")
    # each attribute of the type its convention gives it: a list or a number where a name belongs is left out
    values = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": _provider(payload),
        "gen_ai.request.model": model,
        "gen_ai.response.model": _text(payload.get("model")),
        "gen_ai.response.id": _text(payload.get("response_id")),
        "gen_ai.response.finish_reasons": [payload["stop_reason"]] if _text(payload.get("stop_reason")) else None,
        "gen_ai.request.stream": stream if isinstance(stream, bool) else None,
        "noesis.request_id": _text(payload.get("request_id")),
        "noesis.capture": _text(payload.get("capture")),
        "error.type": _text(error.get("type")) if error else None,
        # a count as the run's readers take one: text, a bool, a negative or huge number is none (never a token)
        **{attr: count(payload.get(field)) for field, attr in _USAGE_ATTRS.items()},
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


def _episode_error(status: str, end: dict[str, Any], episode: str) -> str | bool:
    """The root span's error message (False: none): a run that ended otherwise than ok, or whose process is gone
    before it sealed the run (``lost``: its ``terminate``, if any, was no part of an end)."""
    if status in ("ok", "running", "paused"):
        return False
    if status == "lost":
        return "lost: " + LOST_HINT.format(run=quoted(episode))
    return str(end.get("message") or status)


def status_code(spec: SpanSpec) -> tuple[int, str | None]:
    """A span's OTLP status, the same for every way out (the OTLP/JSON file, a collector, a live export):
    ``(2, message)`` ERROR for a failure; ``(1, None)`` OK where the run records a success (an episode whose status
    is ``ok``, a tool call that ran and succeeded: a known success, which OpenTelemetry lets its recorder say);
    else ``(0, None)`` UNSET, as OpenTelemetry asks of instrumentation that knows no outcome."""
    if spec.get("error"):
        return 2, str(spec["error"])
    return (1, None) if spec.get("ok") else (0, None)


def _episode_end(events: list[dict[str, Any]], placed: list[int | None]) -> tuple[int | None, int]:
    """The episode's end mark, by the rule of ``summary.duration_sec`` and so ``runs_df``
    (``store.lostend.episode_end_marks``: its terminate, or a lost run's last sign of life): its line's index and
    time; not its log's last event (the seal's bookkeeping may come long after: a recovery, a later insight).
    ``(None, 0)`` when no event's time is known. The events up to it are the episode's, the ones after the seal's."""
    for i in episode_end_marks(events):
        if (at := placed[i]) is not None:
            return i, at
    return None, 0


def _tool_spans(
    timed: list[tuple[dict[str, Any], int]],
    tools: dict[str, Any],
    trace_id: int,
    parent: int,
    episode: str,
    request_id: str,
    ended: bool,
    pauses: list[tuple[float, float]],
) -> list[SpanSpec]:
    """A tool request's spans: ``execute_tool``, and before it ``await_approval`` when the call waited for a person's
    decision and then ran (the wait is no tool time: a collector's tool latency is the execution's alone, from
    ``tool.execution.started``). Both carry the wait as ``noesis.tool.wait_s``, ``tools_df.wait_s`` by its rule
    (``waits.draft_wait``: none when a policy decided)."""
    chain = [event for event, _ in timed]
    names = [str(e["payload"].get("event_name")) for e in chain]
    first = chain[0]["payload"]
    draft = next((e["payload"]["draft_id"] for e in chain if isinstance(e["payload"].get("draft_id"), str)), None)
    record = tools.get(draft or "", {})
    facts: dict[str, Any] = {}
    seconds: dict[str, Any] = {}  # the same facts at the events' own times, as tools_df reads them
    for name, (event, at) in zip(names, timed):
        note_tool_event(facts, name, at, event["payload"])
        note_tool_event(seconds, name, instant(event.get("timestamp")), event["payload"])
    # tools_df's status of the call, by the one rule (``frames.toolcalls``) from the same records and events
    prepared, approval, execution = (record.get(kind, {}) for kind in ("prepared", "approval", "execution"))
    status = call_status(draft or None, prepared, approval, execution, facts, ended)
    decision = record.get("decision") or facts.get("decision")
    if decision is None:  # asked for no decision, or still waiting for one (or never to get one: its run ended)
        decision = "not_required" if TOOL_APPROVAL_PENDING not in names else UNDECIDED if status == UNDECIDED else "pending"
    stamps = [at for _, at in timed]  # in log order, placed (``otel_times``)
    # the tool's name as tools_df gives it (its namespace too: ``fs.write_file``), else as its events name it
    tool = tool_label(prepared.get("tool")) or tool_label(first.get("tool"))
    asked = seconds.get("pending_at")  # from its ask (else its request), as tools_df counts it
    asked = asked if asked is not None or status == UNDECIDED else seconds.get("requested_at")
    decided = seconds.get("decided_at")
    if decided is None and isinstance(approval.get("decided_at"), str):
        decided = instant(approval["decided_at"])
    wait = draft_wait(asked, decided, pauses, approval.get("approver_id"), undecided=status == UNDECIDED)
    common = {
        "noesis.tool.decision": decision,
        "noesis.tool.approver": record.get("approver"),
        "noesis.tool.wait_s": wait,
        "noesis.request_id": request_id,
        "noesis.draft_id": draft,
    }
    events: list[tuple[str, int, dict[str, Any]]] = [(name, at, {}) for name, at in zip(names, stamps)]
    began: int | None = facts.get("executed_at")
    # a person's wait (a policy's is none) before the tool began
    start = began if began is not None and wait is not None and stamps[0] < began else stamps[0]
    waited = start != stamps[0]
    spans: list[SpanSpec] = []
    if waited:
        spans.append(
            {
                "name": f"await_approval {tool}",
                "trace_id": trace_id,
                "span_id": _id(episode, request_id, "approval", size=8),
                "parent_id": parent,
                "start_ns": stamps[0],
                "end_ns": start,
                "kind": "internal",
                "attributes": _attrs({"gen_ai.tool.name": tool, **common}),
                "error": False,
                "events": [e for e in events if e[1] < start],
            }
        )
    spans.append(
        {
            "name": f"execute_tool {tool}",
            "trace_id": trace_id,
            "span_id": _id(episode, request_id, size=8),
            "parent_id": parent,
            "start_ns": start,
            "end_ns": max(stamps[-1], start),
            "kind": "internal",
            "attributes": _attrs(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": tool,
                    "noesis.tool.protocol": first.get("protocol"),
                    "noesis.tool.effect": record.get("effect"),
                    "noesis.tool.risk": record.get("risk"),
                    "noesis.tool.status": status,
                    **common,
                }
            ),
            "error": "tool execution failed" if status == "failed" else False,
            "ok": status == "succeeded",
            "events": [e for e in events if e[1] >= start],
        }
    )
    return spans
