"""A run's tool calls: the one rule ``tools_df`` gives each its row by and ``runs_df.tool_calls`` counts them by.

A tool call is a draft (a prepared record of the run, or a ``draft_id`` one of its tool events names), or a request
no draft came of (a ``tool.requested`` refused before its draft or cut off before it: ``tools_df``'s ``invalid``,
``denied``, ``requested`` and ``lost`` rows). A request came of a draft when a tool event names both, or when a draft
is named after it (``draft:<run>:<request id>``, or the request id itself: the names Noēsis gives prepared records).
Both frames give the rule the same two things: the names of the prepared records listed, and the run's tool events.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..store.vocab import TOOL_REQUESTED

__all__ = ["ToolEventsSeen", "ToolCalls", "seen_in", "tool_calls"]


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
