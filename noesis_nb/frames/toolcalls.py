"""A run's tool calls: the one rule ``tools_df`` gives each its row by and ``runs_df.tool_calls`` counts them by.

A tool call is a draft (a prepared record of the run, or a ``draft_id`` one of its tool events names), or a request
no draft came of (a ``tool.requested`` refused before its draft or cut off before it: ``tools_df``'s ``invalid``,
``denied``, ``requested`` and ``lost`` rows). A request came of a draft when a tool event names both, or when a draft
is named after it (``draft:<run>:<request id>``, or the request id itself: the names Noēsis gives prepared records).
Both frames give the rule the same two things: the names of the prepared records listed, and the run's tool events.

Each call's status is one rule too (``call_status``, from what its events say, ``note_tool_event``, and its
records): ``tools_df.status`` and the exported trace's ``noesis.tool.status`` are its words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..runtime.abandoned import is_abandonment
from ..store.vocab import (
    TOOL_APPROVAL_ABANDONED,
    TOOL_APPROVAL_PENDING,
    TOOL_APPROVED,
    TOOL_AUTHN_FAILED,
    TOOL_AUTHZ_DENIED,
    TOOL_EXECUTION_FAILED,
    TOOL_EXECUTION_OUTCOME_UNKNOWN,
    TOOL_EXECUTION_STARTED,
    TOOL_EXECUTION_SUCCEEDED,
    TOOL_REJECTED_GOVERNANCE,
    TOOL_REJECTED_INVALID,
    TOOL_REPLAYED,
    TOOL_REQUESTED,
)

__all__ = [
    "ToolEventsSeen",
    "tool_label",
    "ToolCalls",
    "seen_in",
    "tool_calls",
    "note_tool_event",
    "call_status",
    "UNDECIDED",
    "ABANDONED",
    "INVALID",
    "DENIED",
    "REQUESTED",
    "LOST",
]

#: the status of a draft still waiting for a decision when its run ended: none can be given any more
UNDECIDED = "undecided"
#: the status of a draft whose call the adapter gave up while it waited for approval (``tool.approval.abandoned``):
#: never run; its approval record says rejected by ``adapter`` (reason code ``tool.call_abandoned``), which no person
#: decided, so it is not counted with the ``rejected`` ones
ABANDONED = "abandoned"
#: the statuses of a tool call refused before it became a draft (no tool record, no ``draft_id``): its payload or
#: protocol did not hold (``tool.rejected.invalid``), or its caller was not authenticated or authorised
#: (``tool.authn.failed``, ``tool.authz.denied``); ``reason_code`` says why
INVALID = "invalid"
DENIED = "denied"
#: a tool call asked for (``tool.requested``) that has no draft yet while its run goes on; ``lost`` when its run ended
#: or its process is gone before the draft was made (killed in between)
REQUESTED = "requested"
LOST = "lost"
_REFUSALS = {TOOL_REJECTED_INVALID: INVALID, TOOL_AUTHN_FAILED: DENIED, TOOL_AUTHZ_DENIED: DENIED}

_EXEC_STATUS = {
    TOOL_EXECUTION_SUCCEEDED: "succeeded",
    TOOL_EXECUTION_FAILED: "failed",
    TOOL_REPLAYED: "replayed",
    TOOL_EXECUTION_OUTCOME_UNKNOWN: "unknown",  # started, then cut off (a cancel, a crash): it may have run
}


@dataclass
class ToolEventsSeen:
    """What a run's tool events say of its calls (``seen_in``)."""

    named: dict[str, None] = field(default_factory=dict)  # drafts the events name, in the order first named
    drafted: set[str] = field(default_factory=set)  # request ids an event names with a draft
    asked: dict[str, None] = field(default_factory=dict)  # request ids of ``tool.requested`` naming no draft, in order


class ToolCalls(NamedTuple):
    """A run's tool calls: its drafts and the requests no draft came of, each once, in the order ``tools_df`` lists them."""

    drafts: list[str]
    requests: list[str]


def seen_in(events: Iterable[tuple[Any, Any]]) -> ToolEventsSeen:
    """``ToolEventsSeen`` of a run's tool events (phase ``tool``), each ``(event_name, payload)`` in the log's order.

    Only values of the right kind are taken: a draft id is a non-empty string, a request id a string (events_df
    reports the others with their line)."""
    seen = ToolEventsSeen()
    for name, payload in events:
        if type(payload) is not dict:
            continue
        draft, request = payload.get("draft_id"), payload.get("request_id")
        if type(draft) is str and draft:
            seen.named[draft] = None
            if type(request) is str:
                seen.drafted.add(request)
        elif name == TOOL_REQUESTED and type(request) is str:
            seen.asked[request] = None
    return seen


def tool_calls(prepared: Iterable[str], seen: ToolEventsSeen) -> ToolCalls:
    """The tool calls of a run whose prepared records are named ``prepared`` (the listed names, ``.json`` cut, read
    or not) and whose tool events say ``seen``: the prepared drafts, then those only events name; then each request
    no draft came of."""
    drafts = dict.fromkeys(prepared)
    drafts.update(seen.named)
    requests = [r for r in seen.asked if r not in seen.drafted]
    if requests:  # most runs' events name each request's draft: the names are looked at only when one does not
        after = set(drafts)  # a request a draft is named after: the draft's name, or what follows any ":" in it
        for draft in drafts:
            at = draft.find(":")
            while at >= 0:
                after.add(draft[at + 1 :])
                at = draft.find(":", at + 1)
        requests = [r for r in requests if r not in after]
    return ToolCalls(list(drafts), requests)


def _text(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if type(value) is str else None


def tool_label(tool: Any) -> str | None:
    """``{"namespace": "fs", "name": "write", "version": "1"}`` → ``"fs.write@1"`` (strings pass through)."""
    if isinstance(tool, str) or tool is None:
        return tool
    if isinstance(tool, dict) and tool.get("name"):
        ns, version = tool.get("namespace"), tool.get("version")
        return (f"{ns}." if ns else "") + str(tool["name"]) + (f"@{version}" if version not in (None, "") else "")
    return str(tool)


def note_tool_event(facts: dict[str, Any], name: Any, at: Any, payload: dict[str, Any]) -> None:
    """Put what one tool event (``name``, its time ``at``, its ``payload``) says of its call into ``facts``: the
    times it was asked for, waited, was decided, abandoned, started and finished, and its decision, outcome or
    refusal with their reason codes (the keys ``call_status`` reads). Only text is taken where text belongs."""
    if name == TOOL_REQUESTED:
        facts.update(requested_at=at, protocol=_text(payload, "protocol"))
    elif name == TOOL_APPROVAL_PENDING:
        facts.update(pending_at=at, pending_code=_text(payload, "reason_code"))
    elif name == TOOL_APPROVED:
        facts.update(decided_at=at, decision="approved")
    elif name == TOOL_REJECTED_GOVERNANCE:
        reason, code = _text(payload, "reason"), _text(payload, "reason_code")
        facts.update(decided_at=at, decision="rejected", reason=reason, decision_code=code)
    elif name == TOOL_APPROVAL_ABANDONED:
        facts["abandoned_at"] = at
    elif name == TOOL_EXECUTION_STARTED:
        facts["executed_at"] = at
    elif name in _EXEC_STATUS:
        facts.update(finished_at=at, exec_status=_EXEC_STATUS[name], exec_code=_text(payload, "reason_code"))
    elif name in _REFUSALS:
        facts.update(refused=_REFUSALS[name], refusal_code=_text(payload, "reason_code"))


def call_status(
    draft_id: str | None,
    prepared: dict[str, Any],
    approval: dict[str, Any],
    execution: dict[str, Any],
    facts: dict[str, Any],
    ended: bool,
) -> Any:
    """A tool call's status, the furthest state it reached (``tools_df``'s words): its execution record's, else
    what its events (``facts``, by ``note_tool_event``) and records say. ``ended``: its run's seal began (a request
    with no draft: or its process is gone), so a draft still waiting never will be decided (``undecided``)."""
    status = execution.get("status") or facts.get("exec_status")
    if status is not None:
        return status
    if draft_id is None:  # a request that never became a draft: refused, or its run ended (or died) before it
        return facts.get("refused") or (LOST if ended else REQUESTED)
    if facts.get("executed_at") is None and (facts.get("abandoned_at") is not None or is_abandonment(approval)):
        # whatever its record says: the adapter went on without it, it never ran (its process may have been killed
        # before its tool.approval.abandoned was written: the adapter's own rejection says it)
        return ABANDONED
    if facts.get("executed_at") is not None:  # it started and no result was recorded (its process died)
        return "unknown"
    decision = approval.get("status") or facts.get("decision")
    if decision in ("approved", "rejected"):
        return decision
    if prepared.get("status") == "pending_approval" or facts.get("pending_at") is not None:
        # a run whose seal began ended without this decision: nobody can give it any more (``approve_draft`` refuses)
        return UNDECIDED if ended else "pending"
    return prepared.get("status") or "prepared"
