"""HTML of one step (pure): a summary line that tells what happened, and its raw events on demand.

A tool call reads ``tool  fs.write_file · write · high · approved by ana (waited 12.3 s) · ran 0.21 s · ok: exit 0``;
a model call ``model  gpt-4o-mini (openai) · 1,850 in · 240 out · $0.0004 · 812 ms``. What the events
alone do not hold (a draft's effect and risk, who decided, a tool's output) comes from a
:class:`StepFacts` the view fills from its source.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..frames.waits import draft_wait
from ..store.facts import call_row
from ..store.instants import epoch_seconds
from ..store.vocab import (
    ABANDONED_BY,
    TOOL_APPROVAL_ABANDONED,
    TOOL_APPROVAL_PENDING,
    TOOL_APPROVED,
    TOOL_EXECUTION_STARTED,
    TOOL_REJECTED_GOVERNANCE,
)
from .money import money
from .render import (
    FLAG_MARKS,
    UNKNOWN_SIGN,
    approver_words,
    by_rejection,
    dot_join,
    esc,
    event_name,
    event_time,
    label,
    phase_class,
    row_html,
    short,
    short_payload,
    shown_status,
)
from .state import format_seconds as header_seconds
from .steps import Step

__all__ = [
    "StepFacts",
    "ToolFacts",
    "summary_html",
    "step_title",
    "body_html",
    "step_class",
    "seconds_between",
    "format_seconds",
    "plan_words",
]

_KIND_LABELS = {
    "opening": "start",
    "closing": "end",
    "tool": "tool",
    "model": "model",
    "governance": "governance",
    "steer": "steer",
    "drain": "stop",
}
_KIND_HUES = {
    "opening": "start",
    "closing": "terminate",
    "tool": "tool",
    "model": "model",
    "governance": "governance",
    "steer": "steer",
    "drain": "drain",
}
BODY_ROWS = 60
_FINISHED = frozenset({"succeeded", "failed", "rejected", "abandoned"})


@dataclass(frozen=True)
class ToolFacts:
    """What a tool draft asked and how it ended (from the run's ``tool_invocations``)."""

    tool: str | None = None
    effect_kind: str | None = None
    risk_tier: str | None = None
    result: str | None = None  # a short excerpt of the output


@dataclass
class StepFacts:
    """Lookups a step's summary needs beyond its events (all optional)."""

    decisions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # draft id -> decision
    tools: Callable[[str, bool], ToolFacts | None] = lambda _draft, _finished: None
    # a model call's cost by ``cost.call_costs`` (NaN: it cannot be priced; None: no prices yet, the step says none)
    price: Callable[[Mapping[str, Any]], float | None] = lambda _payload: None
    veto: Mapping[str, Any] | None = None  # the decision on the veto that paused the run, if any
    now: float | None = None  # for steps still running (epoch seconds)
    # the run's closed pauses (paused at, resumed at), as the header counts its wait: a tool step says the one it held
    pauses: tuple[tuple[float, float], ...] = ()
    # the run ended (ok, error, vetoed, cancelled): a draft still waiting can no longer be decided (tools_df: undecided)
    ended: bool = False


@lru_cache(maxsize=8192)
def _epoch(timestamp: str) -> float | None:
    return epoch_seconds(timestamp)  # the frames' rule: a time with no offset is UTC, not the kernel's local time


def seconds_between(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> float | None:
    if a is None or b is None:
        return None
    start, end = _epoch(str(a.get("timestamp") or "")), _epoch(str(b.get("timestamp") or ""))
    return None if start is None or end is None else max(0.0, end - start)


def format_seconds(seconds: float | None) -> str:
    """A step's duration: milliseconds under a second, else as the header says one (``state.format_seconds``)."""
    if seconds is None or not math.isfinite(seconds):
        return "?"
    if seconds * 1000 < 999.5:  # what rounds under 1,000 ms (0.9996 s reads 1.0 s, never 1000 ms); no int of a huge one
        return f"{seconds * 1000:.0f} ms"
    return header_seconds(seconds)


def _waited(asked: Mapping[str, Any] | None, decided: Mapping[str, Any], facts: StepFacts, approver: Any) -> float | None:
    """How long a person kept the draft waiting: ``frames.waits.draft_wait``, the rule of ``tools_df.wait_s`` (the
    run's pause that held it, as the header counts it; None for a policy's decision)."""
    start = _epoch(str(asked.get("timestamp") or "")) if asked is not None else None
    return draft_wait(start, _epoch(str(decided.get("timestamp") or "")), facts.pauses, approver)


def _payload(event: Mapping[str, Any]) -> Mapping[str, Any]:
    payload = event.get("payload")
    return payload if isinstance(payload, Mapping) else {}


def _find(step: Step, name: str) -> Mapping[str, Any] | None:
    return next((e for e in step.events if _payload(e).get("event_name") == name), None)


def _refusal(step: Step) -> str | None:
    """Why the tool contract refused the call before anyone was asked (``tool.rejected.invalid``: an unknown field, a bad
    value), else None: a rejection by a person or by governance reads "rejected", which this is not."""
    event = next((e for e in step.events if str(_payload(e).get("event_name") or "").startswith("tool.rejected.")), None)
    if event is None or _payload(event).get("event_name") == TOOL_REJECTED_GOVERNANCE:
        return None
    return str(_payload(event).get("reason_code") or event_name(event))


def _tool_parts(step: Step, facts: StepFacts) -> list[str]:
    info = facts.tools(step.draft_id, step.state in _FINISHED) if step.draft_id else None
    parts = [f"<b>{label((info.tool if info and info.tool else None) or step.tool or '?')}</b>"]
    if info is not None:
        parts += [label(v, 60) for v in (info.effect_kind, info.risk_tier) if v]
    decision = facts.decisions.get(step.draft_id or "")
    asked = _find(step, TOOL_APPROVAL_PENDING)
    abandoned = step.state == "abandoned"
    if abandoned and (decision is None or decision.get("approver_id") == ABANDONED_BY):  # nobody decided it
        waited = seconds_between(asked, _find(step, TOOL_APPROVAL_ABANDONED))
        parts.append(
            '<span class="nnb-c-grey">given up by the adapter while it waited for approval</span>'
            + (f" (after {format_seconds(waited)})" if waited else "")
        )
    elif _undecided(step, facts):
        start = _epoch(str(asked.get("timestamp") or "")) if asked is not None else None
        waited = draft_wait(start, None, facts.pauses, undecided=True)  # tools_df.wait_s: the pause its run's end closed
        parts.append(
            '<span class="nnb-c-grey">undecided: its run ended before anyone decided it</span>'
            + (f" (waited {header_seconds(waited)})" if waited else "")
        )
    elif step.state == "pending" and decision is None:
        parts.append('<b class="nnb-c-orange">waiting for approval</b>')
    elif decision is None and step.state == "rejected" and (refused := _refusal(step)) is not None:
        parts.append(f'<span class="nnb-c-red">refused by the tool contract: {label(refused)}</span>')
    elif decision is not None or step.state == "rejected":
        status = str((decision or {}).get("status") or "rejected")
        approver = str((decision or {}).get("approver_id") or "?")
        who = f" {esc(approver_words(short(approver, 80, exact=True)))}" if decision else ""
        ended = _find(step, TOOL_APPROVED) or _find(step, TOOL_REJECTED_GOVERNANCE)
        waited = _waited(asked, ended, facts, approver) if ended is not None else None
        hue = "green" if status == "approved" else "red"
        parts.append(
            f'<span class="nnb-c-{hue}">{label(status, 40)}{who}</span>'
            + (f" (waited {header_seconds(waited)})" if waited else "")
        )
    started = _find(step, TOOL_EXECUTION_STARTED)
    if started is not None and step.state in ("succeeded", "failed"):
        parts.append(f"ran {format_seconds(seconds_between(started, step.last))}")
    if step.state == "succeeded":
        parts.append('<span class="nnb-c-green">ok</span>' + (f": {esc(info.result)}" if info and info.result else ""))
    elif step.state == "failed":
        reason = _payload(step.last).get("reason_code") or event_name(step.last)
        parts.append(f'<span class="nnb-c-red">failed: {label(reason)}</span>')
    elif step.state == "running":
        parts.append("running")
    elif abandoned or _undecided(step, facts):
        parts.append("never ran")
    return parts


def _undecided(step: Step, facts: StepFacts) -> bool:
    """A draft its run ended without deciding (``tools_df.status`` ``undecided``): nobody can decide it any more."""
    return facts.ended and step.kind == "tool" and step.state == "pending" and (step.draft_id or "") not in facts.decisions


def _flag(step: Step, facts: StepFacts) -> str | None:
    """The step's mark: an undecided draft's pause is over (its run ended), so no ‖ stands out for it."""
    return None if _undecided(step, facts) else step.flag()


def _model_parts(step: Step, facts: StepFacts) -> list[str]:
    p = _payload(step.first)
    model = f"<b>{label(p.get('model') or '?')}</b>" + (f" ({label(p.get('provider'), 80)})" if p.get("provider") else "")
    parts = [model]
    counts = call_row(p)  # as the header sums them: a count it does not take is unknown here too, said as it says it
    for key, word in (("input_tokens", "in"), ("output_tokens", "out")):
        value = counts[key]
        parts.append(f"{UNKNOWN_SIGN} {word}" if value is None else f"{value:,} {word}")
    if isinstance(p.get("cached_input_tokens"), int) and p.get("cached_input_tokens"):
        parts.append(f"{p['cached_input_tokens']:,} cached")
    # priced at the call's time by the rule of the header and usage_df (a price may change with the date or the time
    # of day); never the figure the run reported (``cost_usd``, usage_df's ``reported_cost_usd``): NaN reads "unpriced"
    cost = facts.price({**p, "timestamp": step.first.get("timestamp")})
    if cost is not None:
        parts.append(money(cost) if cost == cost else '<span class="nnb-muted">unpriced</span>')
    latency = p.get("latency_ms")
    if isinstance(latency, (int, float)) and not isinstance(latency, bool):
        parts.append(format_seconds(latency / 1000))
    return parts


def _governance_parts(step: Step, facts: StepFacts) -> list[str]:
    p = _payload(step.first)
    decision = str(p.get("decision") or "?")
    enforced = p.get("enforced")
    hue = "red" if decision == "veto" and enforced else ("orange" if decision == "veto" else "green")
    parts = [f'<b class="nnb-c-{hue}">{label(decision, 60)}</b>', label(p.get("rule_id") or "?", 120)]
    if decision == "veto":
        parts.append("enforced" if enforced else "audit only: recorded, not enforced")
    if p.get("message"):
        parts.append(esc(short(p["message"], 120)))
    override = next((e for e in step.events[1:] if e.get("phase") == "governance"), None)
    if step.paused:
        parts.append('<b class="nnb-c-orange">paused for a person</b>')
    elif override is not None:
        who = approver_words(short(_payload(override).get("approver_id") or "?", 80, exact=True))
        parts.append(f'<span class="nnb-c-green">overridden {esc(who)}</span>')
    elif facts.veto is not None and decision == "veto" and enforced:
        word = "overridden" if facts.veto.get("status") == "approved" else "upheld"
        parts.append(f"{word} {esc(approver_words(short(facts.veto.get('approver_id') or '?', 80, exact=True)))}")
    return parts


def _steer_parts(step: Step) -> list[str]:
    p = _payload(step.first)
    parts = [
        f"<b>{esc(short(p.get('text') or '', 140))}</b>",
        f"from {label(p.get('sender') or '?', 80)}",
        label(p.get("mode") or "", 40),
    ]
    if step.state == "applied":
        parts.append(f'<span class="nnb-c-green">heard after {format_seconds(seconds_between(step.first, step.last))}</span>')
    elif step.state == "unheard":
        parts.append('<span class="nnb-c-orange">never heard (the run ended first)</span>')
    else:
        parts.append('<span class="nnb-c-orange">not heard yet</span>')
    return parts


def _drain_parts(step: Step) -> list[str]:
    started = _payload(step.first)
    report = next((_payload(e) for e in step.events if _payload(e).get("reason")), None)
    if report is None:
        limit = started.get("drain_s")
        return [
            '<b class="nnb-c-orange">stopping</b>',
            "nothing new starts" + (f"; calls already running get ≤ {esc(limit)} s to finish" if limit is not None else ""),
        ]
    counts = {k: len(v) if isinstance(v, list) else 0 for k, v in report.items() if k in ("finished", "cut_off", "refused")}
    return [
        f"<b>stopped ({label(report.get('reason'))})</b>",
        f"{counts.get('finished', 0)} finished",
        f"{counts.get('cut_off', 0)} cut off",
        f"{counts.get('refused', 0)} refused",
    ]


_GOAL = "Execute goal: "  # how Noēsis' minimal planner words its one step: the task itself


def plan_words(steps: Any, task: Any = None) -> str | None:
    """A plan's steps in words: ``plan: 1. outline the note; 2. write it``, without the stored ``kind:`` prefixes.

    None for a plan that only repeats the task (``act:Execute goal: <task>``): it adds nothing to read."""
    if not isinstance(steps, list) or not steps:
        return None
    said = []
    for item in steps:
        text = str(item)
        kind, sep, rest = text.partition(":")
        text = rest.strip() if sep and kind.isidentifier() else text
        said.append(text.removeprefix(_GOAL))
    if task is not None and said == [str(task)]:
        return None
    if len(said) == 1:
        return f"plan: {said[0]}"
    return "plan: " + "; ".join(f"{n}. {s}" for n, s in enumerate(said, 1))


def _opening_parts(step: Step) -> list[str]:
    parts = []
    task = None
    for event in step.events:
        p = _payload(event)
        if event.get("phase") == "start" and p.get("task"):
            task = p["task"]
            parts.append(f"task {esc(short(task, 100))}")
        if event.get("phase") == "plan":
            plan = plan_words(p.get("steps"), task)
            if plan:
                parts.append(esc(short(plan, 100)))
    return parts


def _closing_parts(step: Step) -> list[str]:
    end = next((e for e in step.events if e.get("phase") == "terminate"), None)
    if end is None:
        return [esc(short_payload(step.first, 100))]
    p = _payload(end)
    status = shown_status(str(p.get("status") or "?"), by_rejection(end))
    hue = {"ok": "green", "error": "red", "vetoed": "red", "rejected": "red"}.get(status, "grey")
    return [f'<b class="nnb-c-{hue}">{label(status, 60)}</b>', esc(short(_end_words(p), 140))]


def _end_words(payload: Mapping[str, Any]) -> str:
    """What the run ended with, in words: its message, but an answer that is a mapping, whose message is Python's repr
    of it (``{'path': …}``, as Noēsis stores it), as ``path: release-notes.md; lines: 12``. Not escaped."""
    message = str(payload.get("message") or "")
    ext = payload.get("x-noesis_nb")
    answer = ext.get("answer") if isinstance(ext, Mapping) else None
    if isinstance(answer, Mapping) and answer and message.startswith("{") and message.endswith("}"):
        return "; ".join(f"{key}: {_value_words(value)}" for key, value in answer.items())  # "·" parts the step
    return message


def _value_words(value: Any) -> str:
    """A value of an answer: text as it is, a list of plain values joined by commas, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return ", ".join(str(v) for v in value)
    return short(value, 140)


def summary_html(step: Step, facts: StepFacts | None = None) -> str:
    """The step's one line: local time, what kind of step, what happened, how long; pauses, vetoes and errors marked."""
    facts = facts or StepFacts()
    kind = step.kind
    first = step.first
    if kind == "tool":
        parts = _tool_parts(step, facts)
    elif kind == "model":
        parts = _model_parts(step, facts)
    elif kind == "governance":
        parts = _governance_parts(step, facts)
    elif kind == "opening":
        parts = _opening_parts(step)
    elif kind == "closing":
        parts = _closing_parts(step)
    elif kind == "steer":
        parts = _steer_parts(step)
    elif kind == "drain":
        parts = _drain_parts(step)
    else:
        name = event_name(first)
        parts = [f"<b>{label(name)}</b>" if name != first.get("phase") else "", esc(short_payload(first, 140))]
    title = _KIND_LABELS.get(kind) or str(first.get("phase") or "?")
    hue_of = _KIND_HUES.get(kind) or first.get("phase")
    flag = _flag(step, facts)
    mark = f"{FLAG_MARKS[flag]} " if flag else ""
    if len(step.events) > 1 and kind not in ("tool", "steer"):
        took = seconds_between(first, step.last)
        if took:
            parts.append(format_seconds(took))
    count = f' <span class="nnb-muted">· {len(step.events)} events</span>' if len(step.events) > 1 else ""
    text = dot_join(parts)
    return (
        # the time, then the rest in one span: a wrapped line continues under its start, not under the time; spans
        # only (the stylesheet lays them out): where a page drops the stylesheet (an untrusted notebook) a block
        # inside a <summary> would put its ▸ on a line of its own
        f'<span class="nnb-sum"><span class="nnb-t">{esc(event_time(first))}</span> <span class="nnb-line">'
        f'<span class="nnb-k {phase_class(hue_of)}">{mark}{label(title, 60)}</span> {text}{count}</span></span>'
    )


def step_title(step: Step) -> str:
    """What a step is, in a few plain words (``tool fs.write_file``, ``model gpt-4o-mini``, ``governance``): names
    its toggle. Redacted, one line, every invisible character shown; not escaped."""
    first = step.first if step.events else {}
    kind = _KIND_LABELS.get(step.kind) or str(first.get("phase") or "event")
    if step.kind == "tool":
        detail = step.tool or ""
    elif step.kind == "model":
        detail = str(_payload(first).get("model") or "")
    elif step.kind == "event":
        detail = event_name(first) if first else ""
        detail = "" if detail == first.get("phase") else detail
    else:
        detail = ""
    return short(f"{kind} {detail}" if detail else kind, 120, exact=True)


def body_html(step: Step, limit: int = BODY_ROWS) -> str:
    """The step's raw events, each a row that expands to the whole event (the full log is in events.jsonl)."""
    omit = ("request_id", "draft_id") if step.kind == "tool" else ()  # the step says which call it is; the rows need not
    rows = "".join(row_html(e, detail_limit=3000, omit=omit) for e in step.events[:limit])
    more = len(step.events) - limit
    tail = f'<div class="nnb-muted">… {more} more events in events.jsonl</div>' if more > 0 else ""
    return f'<div class="nnb-body">{rows}{tail}</div>'


def step_class(step: Step, facts: StepFacts | None = None) -> str:
    flag = _flag(step, facts or StepFacts())
    return "nnb-step" + (f" nnb-f-{flag}" if flag else "")
