"""A live Noeta task's tool calls that needed no approval, recorded as tool calls once their result is in.

A gated call is a draft from the start (``_approvals.request_approval``: the buttons). One Noeta ran by itself (a
low-risk tool) has already happened when its envelopes arrive: it is recorded afterwards through ``ctx.tool_async``
as a call that needed no approval, whose function gives the result Noeta recorded (or raises its failure). So
``tools_df`` has a row for every call the task made, and ``runs_df.tool_calls`` counts them all.
"""

from __future__ import annotations

from typing import Any

from ..._jsonio import to_jsonable
from ...runtime.asked import ASKED_KEY, answer_asked, asked
from ...tools import ToolExecutionFailedError
from .._approvals import tool_name
from .._emit import as_object
from .._recorded_calls import RecordedToolFailed

__all__ = ["UngatedCalls"]


class UngatedCalls:
    """Follow a task's envelopes (:meth:`see`); :meth:`record` writes each call that ran without approval, once."""

    def __init__(self) -> None:
        self.started: dict[str, dict[str, Any]] = {}  # repr(call_id) -> its ToolCallStarted payload, in order
        self.results: dict[str, dict[str, Any]] = {}  # repr(call_id) -> its ToolResultRecorded payload
        self.gated: set[str] = set()  # calls asked for approval: drafts already
        self.recorded: set[str] = set()

    def see(self, envelope: dict[str, Any]) -> None:
        kind, data = envelope.get("type"), as_object(envelope.get("payload"))
        if data.get("call_id") is None:
            return
        key = repr(data["call_id"])
        if kind == "ToolCallApprovalRequested":
            self.gated.add(key)
        elif kind == "ToolCallStarted":
            self.started.setdefault(key, data)
        elif kind == "ToolResultRecorded":
            self.results.setdefault(key, data)

    async def record(self, ctx: Any) -> None:
        for key, start in list(self.started.items()):
            result = self.results.get(key)
            if result is None or key in self.gated or key in self.recorded:
                continue
            self.recorded.add(key)

            def give(result: dict[str, Any] = result) -> Any:
                if result.get("success") is False:
                    raise RecordedToolFailed(str(result.get("summary") or "the Noeta tool call failed"))
                return to_jsonable(result.get("summary"))

            details = {"call_id": start["call_id"], "tool_name": start.get("tool_name"), "arguments": start.get("arguments")}
            with asked(give, ctx.episode_id) as asked_as:
                try:
                    await ctx.tool_async(
                        tool_name("noeta", start.get("tool_name")),
                        {"args": [], "kwargs": {**to_jsonable(details), ASKED_KEY: asked_as}},
                        protocol="python",
                        fn=answer_asked,
                        effect="read",
                        risk="low",
                        requires_approval=False,
                    )
                except ToolExecutionFailedError:
                    pass  # recorded failed, as Noeta said
