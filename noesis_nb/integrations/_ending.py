"""Whether a recorded trace shows its run ending, and if not, what is missing: an unfinished run is no success.

A trace is judged by its rows' lifecycle ``kind``s, per task (``task_id``, else ``agent``: a Noetic sub-agent's
turn ending is not its parent's; a trace naming neither is one task):
``run_started`` / ``resumed`` open a task, ``suspended`` pauses it, ``run_finished`` / ``run_error`` /
``run_cancelled`` end it. A task still open or paused at the end of the trace never finished: the log was cut
short, saved before the run ended, or the run waits (for a human's approval, an input). A trace with no lifecycle
at all is judged by its last message: one from the user, a tool or a memory injection has no answer after it. A
source whose every complete trace ends in one of its end events (Noeta's ``TaskCompleted`` …) needs one
(``end_required``). Rows marked ``repeated`` restate an earlier one and are not counted again.
"""

from __future__ import annotations

from typing import Any

from ..secrets.quoted import quoted

__all__ = ["Ending"]

_OPENS = frozenset({"run_started", "resumed"})
_PAUSES = frozenset({"suspended"})
_ENDS = frozenset({"run_finished", "run_error", "run_cancelled"})
_DECIDED = frozenset({"approval_resolved", "tool_denied"})
_AWAITING = frozenset({"user", "human", "tool", "function"})  # a last message from these has no answer after it


def _key(value: Any) -> str:
    """A task or call id as a key (any JSON value another system sent)."""
    return value if isinstance(value, str) else repr(value)


class Ending:
    """Follow a trace's rows (:meth:`see`), then :meth:`missing` says what its end lacks, or None when it ended.

    ``end_names`` names the events that end a run in the source's own words, for the message
    (``"TaskCompleted, TaskFailed or TaskCancelled"``).
    """

    def __init__(self, end_names: str = "run_finished row", *, end_required: bool = False):
        self.end_names, self.end_required = end_names, end_required
        self.open: dict[str, dict[str, Any]] = {}  # task -> the row that left it open or paused, in the order left
        self.lifecycle = False  # any lifecycle row seen
        self.ended = False  # any end row seen
        self.asked: dict[str, dict[str, Any]] = {}  # call id -> its approval request, not decided yet
        self.last_message: dict[str, Any] | None = None

    def see(self, payload: dict[str, Any]) -> None:
        if payload.get("repeated"):
            return
        kind = payload.get("kind")
        if not isinstance(kind, str):  # a hand-made row's kind of another type (a list cannot even be looked up)
            return
        task = _key(payload["task_id"] if "task_id" in payload else payload.get("agent"))
        if kind in _OPENS or kind in _PAUSES:
            self.lifecycle = True
            self.open.pop(task, None)  # re-inserted: the order is the order tasks were last left
            self.open[task] = payload
        elif kind in _ENDS:
            self.lifecycle = self.ended = True
            self.open.pop(task, None)
        elif kind == "approval_requested":
            self.asked[_key(payload.get("call_id"))] = payload
        elif kind in _DECIDED:
            self.asked.pop(_key(payload.get("call_id")), None)
        elif kind in ("message", "memory_injection"):
            self.last_message = payload

    def missing(self) -> str | None:
        """What the trace lacks to have ended, in a sentence naming it; None when it ended (or cannot tell)."""
        if self.open:
            return self._left_open(list(self.open.values())[-1])
        if self.end_required and not self.ended:
            return f"it holds no {self.end_names}: the log was cut short, or saved before the run ended"
        if not self.lifecycle and self.last_message is not None:
            return self._unanswered(self.last_message)
        return None

    def _left_open(self, last: dict[str, Any]) -> str:
        name = quoted(last.get("event_name"), 80)
        if last.get("kind") in _PAUSES:
            reason = last.get("reason")
            said = f"the run was suspended ({name}{f', reason {quoted(reason, 80)}' if reason else ''}) and never resumed"
            return f"{said}{self._undecided()}; no {self.end_names} follows: it was waiting, not done"
        return f"{name} is not followed by a {self.end_names}: the log was cut short, or saved before the run ended"

    def _undecided(self) -> str:
        if not self.asked:
            return ""
        asked = [f"{quoted(p.get('tool_name'), 60)} (call {quoted(p.get('call_id'), 60)})" for p in self.asked.values()]
        more = f" and {len(asked) - 3} more" if len(asked) > 3 else ""
        return f"; the approval of {', '.join(asked[:3])}{more} was never decided"

    def _unanswered(self, last: dict[str, Any]) -> str | None:
        if last.get("kind") == "memory_injection":
            return "it ends with a memory injection and no answer after it: the transcript was cut short"
        role = last.get("role")
        if not isinstance(role, str) or role not in _AWAITING:
            return None
        return f"its last message is the {role}'s, with no answer after it: the transcript was cut short"
