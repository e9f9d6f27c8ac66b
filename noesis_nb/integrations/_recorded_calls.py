"""A replayed trace's tool calls as the live path writes them: a draft, a person's decision, the result.

A trace (Noeta envelopes, a Noetic log) records each tool call over several rows: asked for, maybe an approval
asked and resolved by someone, then its result. When a row starts a call, the rows up to the call's end are read
ahead, and the call is made through ``ctx.tool`` like a live one: its draft, the recorded person's decision at the
recorded time (``runtime.recorded``: the run pauses from the ask to the decision, as for a live person), and an
execution whose function gives the recorded result (or raises the recorded failure). The rows themselves are all
written, in their order, each at its recorded time: those up to the decision while the run is paused, those up to
the result while the tool "runs". So ``tools_df`` has the call's row (approver, wait, status) and ``runs_df`` counts
it and its wait.

A call the trace does not show whole (no result, no decision after an approval request: the log ends first; or one
starting while another call's rows are written) becomes no draft: its first row is marked ``undrafted_call`` (and its
approval request ``undrafted_approval``), so the run's summary counts it (``x-noesis_nb.undrafted_tool_calls``) and
``runs_df`` says its count and wait are unknown, never 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .._jsonio import to_jsonable
from ..errors import ToolRejected
from ..runtime.asked import ASKED_KEY, answer_asked, asked
from ..runtime.recorded import RecordedDecision
from ..store.vocab import UNDRAFTED_APPROVAL, UNDRAFTED_CALL
from ..tools import ToolExecutionFailedError
from ._approvals import tool_name
from ._emit import RECORDED_AT, Row, as_object

__all__ = ["RecordedCalls", "RecordedToolFailed"]

_STARTS = frozenset({"tool_call", "approval_requested"})
_ID_KEYS = ("call_id", "tool_call_id", "toolCallId")
_DATA_ID_KEYS = ("callId", "toolCallId", "call_id", "tool_call_id", "id")
_NAME_KEYS = ("tool_name", "tool")
_DATA_NAME_KEYS = ("toolName", "tool_name", "name", "tool")
NOT_NAMED = "(not named in the trace)"  # the approver of a recorded decision whose row names nobody


class RecordedToolFailed(Exception):
    """The recorded call failed (its result row says so): its execution is recorded ``failed`` with this reason."""


def _starts(payload: dict[str, Any]) -> bool:
    """Whether a row may start a tool call (its kind ``tool_call`` or ``approval_requested``; a kind of another type,
    a hand-made row's list, is none)."""
    kind = payload.get("kind")
    return type(kind) is str and kind in _STARTS


def _first(doc: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((doc[k] for k in keys if doc.get(k) is not None), None)


def call_key(payload: dict[str, Any]) -> str | None:
    """Which call a row is of: its call id, else its tool's name (a log naming no ids pairs a call and its result by
    name); None when it names neither."""
    data = as_object(payload.get("data"))
    ident = _first(payload, _ID_KEYS)
    ident = ident if ident is not None else _first(data, _DATA_ID_KEYS)
    if ident is not None:
        return f"id:{ident!r}"
    name = _first(payload, _NAME_KEYS)
    name = name if name is not None else _first(data, _DATA_NAME_KEYS)
    return None if name is None else f"name:{name!r}"


def _name(rows: list[Row]) -> Any:
    for _, payload in rows:
        name = _first(payload, _NAME_KEYS)
        name = name if name is not None else _first(as_object(payload.get("data")), _DATA_NAME_KEYS)
        if name is not None:
            return name
    return None


def _arguments(rows: list[Row]) -> Any:
    for _, payload in rows:
        data = as_object(payload.get("data"))
        found = payload.get("arguments") if payload.get("arguments") is not None else _first(data, ("arguments", "input", "args"))
        if found is not None:
            return found
    return None


class _Call:
    """One call's rows read ahead, and where its decision and result are among them."""

    def __init__(self, key: str, first: Row):
        self.key, self.rows = key, [first]
        self.asked: int | None = None  # index of its approval request
        self.decided: int | None = None  # index of the row deciding it (resolved or denied)
        self.result: int | None = None  # index of its result
        self.called = False  # whether a ``tool_call`` row of it was read
        self.repeats: set[int] = set()  # rows starting the same key again before it ended: calls not paired safely
        self._note(0)

    def _note(self, index: int) -> None:
        payload = self.rows[index][1]
        kind = payload.get("kind")
        if (kind == "tool_call" and self.called) or (kind == "approval_requested" and self.asked is not None):
            self.repeats.add(index)  # a second start of this key while it runs: another call, its rows mixed in
        elif kind == "tool_call":
            self.called = True
        if index in self.repeats:
            return
        if kind == "approval_requested" and self.asked is None:
            self.asked = index
        elif kind in ("approval_resolved", "tool_denied") and self.decided is None:
            self.decided = index
        elif kind == "tool_result" and self.result is None:
            self.result = index

    def add(self, item: Row) -> bool:
        """Take the next row; True when it ends the call (its result, or a denial of it)."""
        self.rows.append(item)
        payload = item[1]
        if isinstance(payload, dict) and not payload.get("repeated") and call_key(payload) == self.key:
            self._note(len(self.rows) - 1)
        return self.result is not None or (self.decided is not None and not self.approved)

    @property
    def approved(self) -> bool:
        if self.decided is None:
            return False
        payload = self.rows[self.decided][1]
        if payload.get("kind") == "tool_denied":
            return False
        said = payload.get("approved")
        said = said if said is not None else as_object(payload.get("data")).get("approved")
        return said is not False

    @property
    def whole(self) -> bool:
        """Whether the trace shows the call to its end: a result (after a decision, when one was asked), or a denial."""
        if self.asked is None:
            return self.result is not None and (self.decided is None or self.decided < self.result)
        if self.decided is None or self.decided < self.asked:
            return False
        return not self.approved or (self.result is not None and self.result > self.decided)


class RecordedCalls:
    """Write a replay's rows (``write`` advances the clock and emits one), drafting each recorded call (``take``).

    ``now()``: the run clock's time (ISO 8601), None when it has none.
    """

    def __init__(self, ctx: Any, source: str, write: Callable[[Row], None], now: Callable[[], str | None]):
        self.ctx, self.source, self.write, self.now = ctx, source, write, now
        self.done: set[str] = set()  # calls being written (drafted or given up): their rows are written as they come
        self.undrafted: set[str] = set()  # calls the trace does not show whole (or starting inside another's rows)

    def take(self, item: Row, rest: Iterator[Row]) -> None:
        payload = item[1] if isinstance(item, tuple) and len(item) == 2 else None
        key = call_key(payload) if isinstance(payload, dict) and _starts(payload) else None
        if key is None or key in self.done or payload is None or payload.get("repeated"):
            self._put(item)
            return
        self.done.add(key)
        call, failure, ended = _Call(key, item), None, False
        try:
            for nxt in rest:
                if call.add(nxt):
                    ended = True
                    break
        except Exception as exc:  # a bad row further on: the call's rows are written, then the replay ends with it
            failure = exc
        if call.whole:
            self._draft(call)
        else:
            self.undrafted.add(key)
            self._put(item, first=True)
            for number, other in enumerate(call.rows[1:], 1):
                self._put(other, first=number in call.repeats)
        if ended:  # a later row starting this key (a tool called again by name, a reused id) is a new call
            self.done.discard(key)
            self.undrafted.discard(key)
        if failure is not None:
            raise failure

    def _put(self, item: Row, *, first: bool = False) -> None:
        """Write one row; a call starting here (``first``, or while another call's rows are written) becomes no
        draft: its first row is marked ``undrafted_call``, and each approval request of such a call
        ``undrafted_approval``."""
        phase, payload = item if isinstance(item, tuple) and len(item) == 2 else (None, None)
        if not isinstance(payload, dict) or payload.get("repeated"):
            self.write(item)
            return
        kind = payload.get("kind")
        key = call_key(payload) if _starts(payload) else None
        marks: dict[str, bool] = {}
        if key is not None and (first or key not in self.done):
            self.done.add(key)
            self.undrafted.add(key)
            marks[UNDRAFTED_CALL] = True
        if kind == "approval_requested" and key in self.undrafted:
            marks[UNDRAFTED_APPROVAL] = True
        self.write((phase, {**payload, **marks}) if marks else item)

    def _draft(self, call: _Call) -> None:
        rows, written = call.rows, 0

        def upto(index: int) -> None:
            """Write the call's rows up to ``index`` (a call starting among them is written undrafted)."""
            nonlocal written
            for number in range(written, index + 1):
                self._put(rows[number], first=number in call.repeats) if number else self.write(rows[number])
            written = max(written, index + 1)

        def decision() -> RecordedDecision:
            assert call.decided is not None  # a whole call asked for approval is decided
            upto(call.decided)
            payload = rows[call.decided][1]
            data = as_object(payload.get("data"))
            who = payload.get("resolver") if payload.get("resolver") is not None else data.get("resolver")
            reason = payload.get("reason") if payload.get("reason") is not None else data.get("reason")
            return RecordedDecision(
                approved=call.approved,
                approver_id=str(who).strip() or NOT_NAMED if who is not None else NOT_NAMED,
                decided_at=self.now() or payload.get(RECORDED_AT),
                reason=None if reason is None else str(reason),
            )

        def result() -> Any:
            assert call.result is not None
            upto(call.result)
            payload = rows[call.result][1]
            data = as_object(payload.get("data"))
            success = payload.get("success") if payload.get("success") is not None else data.get("success")
            error = payload.get("error") or data.get("error")
            if success is False or error:
                raise RecordedToolFailed(str(error or payload.get("summary") or "the recorded call failed"))
            found = _first(payload, ("summary", "content", "output", "result"))
            return to_jsonable(found if found is not None else _first(data, ("result", "output", "summary", "content")))

        gated = call.asked is not None
        upto(call.asked if call.asked is not None else 0)  # the run's clock at the ask: the draft is asked for then
        try:
            details = {"call_id": call.key, "tool_name": _name(rows), "arguments": _arguments(rows)}
            with asked(result, self.ctx.episode_id) as key:
                try:
                    self.ctx.tool(
                        tool_name(self.source, _name(rows)),
                        {"args": [], "kwargs": {**to_jsonable(details), ASKED_KEY: key}},
                        protocol="python",
                        fn=answer_asked,
                        effect="write" if gated else "read",
                        risk="high" if gated else "low",
                        requires_approval=gated,
                        recorded=decision if gated else None,
                    )
                except (ToolRejected, ToolExecutionFailedError):
                    pass  # recorded denied, or failed: its records say so
        finally:
            upto(len(rows) - 1)
