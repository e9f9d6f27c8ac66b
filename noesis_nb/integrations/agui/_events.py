"""AG-UI events → timeline rows (pure; no ``ag_ui`` import needed).

``AGUIFolder`` reads one run's events in order. Streamed pieces (``*_CONTENT``, ``*_ARGS``,
``*_CHUNK``) are folded into one row per message, tool call or reasoning message (the delta
rows are optional). Every other event is one row. It also collects what the adapter needs
afterwards: the run's interrupts, its result, and the conversation to send on a resume.
Legacy 0.1.x names (``THINKING_*``) become ``REASONING_*``; ``CUSTOM on_interrupt`` (ag-ui-langgraph
≤ 0.0.25, Idun) becomes an interrupt. Unknown types become ``custom`` rows with the raw event.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..._safetext import safe_repr
from ...secrets import RunSecrets
from ...secrets.display import shown_cut
from ...secrets.live import LiveText
from .._emit import PHASE, RECORDED_AT, Row, as_object, recorded_at, row, usage_row
from .._jsontext import JSONTextError, loads_text
from ._sse import AGUIStreamError

__all__ = ["AGUIFolder", "EVENT_TYPES", "agui_rows"]

EVENT_TYPES = frozenset(
    "TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END TEXT_MESSAGE_CHUNK TOOL_CALL_START TOOL_CALL_ARGS "
    "TOOL_CALL_END TOOL_CALL_CHUNK TOOL_CALL_RESULT STATE_SNAPSHOT STATE_DELTA MESSAGES_SNAPSHOT ACTIVITY_SNAPSHOT "
    "ACTIVITY_DELTA RAW CUSTOM RUN_STARTED RUN_FINISHED RUN_ERROR STEP_STARTED STEP_FINISHED REASONING_START "
    "REASONING_MESSAGE_START REASONING_MESSAGE_CONTENT REASONING_MESSAGE_END REASONING_MESSAGE_CHUNK REASONING_END "
    "REASONING_ENCRYPTED_VALUE SUBAGENT_STARTED SUBAGENT_FINISHED SUBAGENT_ERROR".split()
)
_LEGACY = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}
# streamed kinds: (id field, folded row name, row kind, phase)
_STREAMS = {
    "text": ("messageId", "TEXT_MESSAGE", "message", PHASE),
    "tool": ("toolCallId", "TOOL_CALL", "tool_call", PHASE),
    "reasoning": ("messageId", "REASONING_MESSAGE", "reasoning", "reason"),
}
_PARTS = {"TEXT_MESSAGE": "text", "TOOL_CALL": "tool", "REASONING_MESSAGE": "reasoning"}
_SIMPLE = {  # type → (kind, {row field: event field})
    "STEP_STARTED": ("step_started", {"step_name": "stepName"}),
    "STEP_FINISHED": ("step_finished", {"step_name": "stepName"}),
    "REASONING_START": ("reasoning_start", {"message_id": "messageId", "title": "title"}),
    "REASONING_END": ("reasoning_end", {"message_id": "messageId"}),
    "REASONING_ENCRYPTED_VALUE": ("reasoning_encrypted", {"subtype": "subtype", "entity_id": "entityId"}),
    "STATE_SNAPSHOT": ("state", {"snapshot": "snapshot"}),
    "STATE_DELTA": ("state_delta", {"delta": "delta"}),
    "ACTIVITY_SNAPSHOT": ("activity", {"message_id": "messageId", "activity_type": "activityType", "content": "content"}),
    "ACTIVITY_DELTA": ("activity_delta", {"message_id": "messageId", "activity_type": "activityType", "patch": "patch"}),
    "SUBAGENT_STARTED": ("subagent_started", {"subagent_run_id": "subagentRunId", "name": "name", "description": "description"}),
    "SUBAGENT_FINISHED": ("subagent_finished", {"subagent_run_id": "subagentRunId", "outcome": "outcome", "result": "result"}),
    "SUBAGENT_ERROR": (
        "subagent_error",
        {"subagent_run_id": "subagentRunId", "message": "message", "code": "code", "error": "message"},
    ),
    "RAW": ("raw", {"event": "event", "raw_source": "source"}),
    "CUSTOM": ("custom", {"name": "name", "value": "value"}),
}


_OVERHEAD = 60  # characters a message's keys and ids take besides its text, about


def _size(message: dict[str, Any]) -> int:
    """About the characters ``message`` holds (its JSON text)."""
    try:
        return len(json.dumps(message, default=str, ensure_ascii=False))
    except (ValueError, TypeError, RecursionError):  # a message that cannot be written as JSON (a cycle): its text
        return len(safe_repr(message))


class AGUIFolder:
    """One run's events in, rows out; afterwards ``interrupts``, ``result``, ``error`` (+ ``error_code``), ``messages``.

    It holds the conversation (``messages``: what the next run sends after an interrupt) and the streams still open;
    a finished stream's pieces are let go, and a tool call is held once, in its message (``tool_call`` reads it).
    Past ``max_conversation_chars`` (None: no cap) the conversation is let go (``dropped`` says at what size): a run
    streaming without end would otherwise hold all it said; a ``MESSAGES_SNAPSHOT`` under the cap gives it back whole."""

    def __init__(
        self,
        messages: list[dict[str, Any]] | None = None,
        *,
        deltas: bool = False,
        max_stream_chars: int | None = None,
        secrets: RunSecrets | None = None,
        max_conversation_chars: int | None = None,
    ):
        self.deltas = deltas
        self.max_conversation_chars = max_conversation_chars
        self._chars = 0  # about the characters ``messages`` holds
        self.dropped: int | None = None  # the size the conversation reached when it was let go (see the docstring)
        self.secrets = secrets  # what screens the pieces released as delta rows (the run's; None: each stream its own)
        # one message / tool call / reasoning folded from pieces, and all those open at once (None: no cap)
        self.max_stream_chars = max_stream_chars
        self.messages: list[dict[str, Any]] = []
        # each message and tool call of ``messages`` by id (the objects in it, no copies): a tool call's name and
        # arguments are read from its message when an interrupt names it, and a call joins its parent in O(1)
        self._by_id: dict[str, dict[str, Any]] = {}
        self._calls: dict[str, dict[str, Any]] = {}
        self._clashes: dict[str, list[Any]] = {}  # a tool call id the agent gave to different calls: their names
        self._set_messages(list(messages or []))
        self.interrupts: list[dict[str, Any]] = []
        self.stray_interrupts = 0  # interrupts a success or cancelled outcome carried (only an interrupt outcome may)
        self.made_ids: set[str] = set()  # ids made here for interrupts that came without one (legacy, or no object)
        self.finished = False  # RUN_FINISHED or RUN_ERROR seen
        self.error: str | None = None
        self.error_code: str | None = None  # RUN_ERROR's code, kept for AGUIRunError.code
        self.outcome: str | None = None
        self.run_result: Any = None
        self.last_text: str | None = None
        self._open: dict[tuple[str, str], dict[str, Any]] = {}
        self._held = 0  # characters of all the open streams: bounded by max_stream_chars together, not only each
        self._thinking = 0
        self._chunk_id: dict[str, str] = {}

    def tool_call(self, ident: Any) -> dict[str, Any] | None:
        """``{"id", "name", "args"}`` of the tool call ``ident`` of the conversation (this run's or one given to it),
        or None. Read from its message when asked (an interrupt names it): no second copy of every call's arguments
        is held while the run streams."""
        call = self._calls.get(str(ident))
        if call is None:
            return None
        function = as_object(call.get("function"))
        arguments = function.get("arguments")
        args = _json_or_text(arguments) if isinstance(arguments, str) else arguments
        return {"id": call.get("id"), "name": function.get("name") or None, "args": args}

    def clashes(self, ident: Any) -> list[Any]:
        """The names of the different tool calls the conversation holds under the id ``ident`` (empty: one call, or
        none): an interrupt naming such an id would have someone approve one call and the agent run another."""
        return list(self._clashes.get(str(ident), [])) if ident is not None else []

    def _set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages, self._by_id, self._calls, self._clashes = messages, {}, {}, {}
        self._chars, self.dropped = 0, None
        if self._kept(sum(map(_size, messages))):
            for message in messages:
                self._index(message)

    def _kept(self, chars: int) -> bool:
        """Count ``chars`` more in the conversation; False once it is past the cap (it is then let go, whole)."""
        if self.dropped is not None:
            return False
        self._chars += chars
        cap = self.max_conversation_chars
        if cap is not None and self._chars > cap:
            self.messages, self._by_id, self._calls, self._clashes = [], {}, {}, {}
            self.dropped = self._chars
            return False
        return True

    def _append(self, message: dict[str, Any], chars: int) -> None:
        if self._kept(chars):
            self.messages.append(message)
            self._index(message)

    def _index(self, message: dict[str, Any]) -> None:
        if message.get("role") == "assistant" and message.get("id") is not None:
            self._by_id[str(message["id"])] = message
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, Mapping) and call.get("id") is not None:
                self._note_call(str(call["id"]), call)  # type: ignore[arg-type]

    def _note_call(self, ident: str, call: dict[str, Any]) -> None:
        """Index ``call`` under ``ident``; a different call (name or arguments) already there is a clash."""
        known = self._calls.get(ident)
        if known is not None and known is not call and _call_key(known) != _call_key(call):
            self._clashes.setdefault(ident, [_call_key(known)[0]]).append(_call_key(call)[0])
        self._calls[ident] = call

    @property
    def result(self) -> Any:
        """``RUN_FINISHED.result`` when the agent gave one, else its last assistant text."""
        return self.run_result if self.run_result is not None else self.last_text

    def normalize(self, event: dict[str, Any]) -> dict[str, Any]:
        """Legacy 0.1.x reasoning names → 1.0 names (with ids they never had)."""
        kind = event.get("type")
        if kind not in _LEGACY:
            return event
        event = dict(event, type=_LEGACY[kind])
        if kind == "THINKING_START":
            self._thinking += 1
        if not event.get("messageId"):
            suffix = "" if kind in ("THINKING_START", "THINKING_END") else "-message"
            event["messageId"] = f"thinking-{self._thinking}{suffix}"
        return event

    def feed(self, event: dict[str, Any]) -> list[Row]:
        kind = str(event.get("type"))
        rows = self._close_chunks(kind)
        base, _, part = kind.rpartition("_")
        if base in _PARTS and part in ("START", "CONTENT", "ARGS", "END", "CHUNK"):
            rows += self._stream(_PARTS[base], part, event)
        elif kind in ("RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT", "TOOL_CALL_RESULT"):
            rows += getattr(self, "_" + kind.lower())(event)
        elif kind == "CUSTOM" and event.get("name") == "on_interrupt":
            interrupt = _legacy_interrupt(event.get("value"), len(self.interrupts) + 1)
            rows += self._interrupt(interrupt, made=interrupt.pop("made"))
        elif kind in _SIMPLE:
            name, fields = _SIMPLE[kind]
            phase = "reason" if kind.startswith("REASONING") else PHASE
            rows.append(row(phase, "agui", kind, name, **{k: event.get(v) for k, v in fields.items()}))
        else:
            rows.append(row(PHASE, "agui", kind, "custom", type=kind, raw=event))
        at = recorded_at(event.get("timestamp"), 0.001)  # BaseEvent.timestamp: epoch ms, when the agent sent it
        if at is not None:  # the event's rows (and the pieces it closed) happened by then
            for _, payload in rows:
                payload.setdefault(RECORDED_AT, at)
        return rows

    def is_open(self, base: str, ident: str) -> bool:
        """Whether ``<base>_START`` (TEXT_MESSAGE, TOOL_CALL, REASONING_MESSAGE) opened ``ident`` and no END closed it."""
        return (_PARTS[base], ident) in self._open

    def unended(self) -> list[tuple[str, str]]:
        """``(<base>, id)`` of each message and tool call a ``*_START`` opened that no END has closed yet."""
        return [
            (_STREAMS[what][1], ident) for (what, ident), buf in self._open.items() if not buf["chunk"] and what != "reasoning"
        ]

    def close(self, partial: bool = False) -> list[Row]:
        """Rows for streams still open (a run that ended, or broke, mid-message)."""
        rows: list[Row] = []
        for key in list(self._open):
            rows += self._finish(key, partial=partial)
        return rows

    # -- streamed messages, tool calls, reasoning ------------------------------------------
    def _stream(self, what: str, part: str, event: dict[str, Any]) -> list[Row]:
        id_field, name, _kind, phase = _STREAMS[what]
        ident = event.get(id_field) or (self._chunk_id.get(what) if part == "CHUNK" else None) or f"{what}-{len(self.messages)}"
        rows: list[Row] = []
        if part == "CHUNK" and self._chunk_id.get(what) not in (None, ident):
            rows += self._finish((what, self._chunk_id[what]))
        key = (what, str(ident))
        buf = self._open.get(key)
        if buf is None:
            buf = self._open[key] = {
                "parts": [],
                "chunk": part == "CHUNK",
                "role": event.get("role"),
                "name": event.get("name"),
                "tool": event.get("toolCallName"),
                "parent": event.get("parentMessageId"),
            }
        if part == "CHUNK":
            self._chunk_id[what] = str(ident)
            buf["tool"] = buf["tool"] or event.get("toolCallName")
        delta = event.get("delta")
        if isinstance(delta, str) and delta:
            buf["parts"].append(delta)
            buf["size"] = buf.get("size", 0) + len(delta)
            self._held += len(delta)
            if self.max_stream_chars is not None and buf["size"] > self.max_stream_chars:
                raise AGUIStreamError(
                    f"{event['type']}: {id_field} {shown_cut(repr(str(ident)), 80)} has streamed over {self.max_stream_chars} "
                    f"characters in {len(buf['parts'])} pieces and has not ended; the agent streams without end, "
                    "or pass max_line_bytes= a larger number"
                )
            if self.max_stream_chars is not None and self._held > self.max_stream_chars:  # each under it, many open
                raise AGUIStreamError(
                    f"{event['type']}: the {len(self._open)} messages and tool calls streaming at once hold over "
                    f"{self.max_stream_chars} characters together, none of them ended; the agent opens streams without "
                    "end, or pass max_line_bytes= a larger number"
                )
            if self.deltas and part != "CHUNK":  # the piece as released: never a part of a key split across pieces
                live = buf.get("live")
                if live is None:
                    live = buf["live"] = LiveText(self.secrets)
                    buf["piece"] = event["type"]
                released = live.push(delta)
                if released:
                    rows.append(row(phase, "agui", event["type"], f"{_kind}_delta", id=ident, delta=released))
        if part == "END":
            rows += self._finish(key)
        return rows

    def _close_chunks(self, kind: str) -> list[Row]:
        rows: list[Row] = []
        for what, ident in list(self._chunk_id.items()):
            if kind != _STREAMS[what][1] + "_CHUNK":
                rows += self._finish((what, ident))
        return rows

    def _finish(self, key: tuple[str, str], partial: bool = False) -> list[Row]:
        what, ident = key
        buf = self._open.pop(key, None)
        if self._chunk_id.get(what) == ident:
            del self._chunk_id[what]
        if buf is None:
            return []
        self._held -= buf.get("size", 0)
        text = "".join(buf["parts"])
        _field, name, kind, phase = _STREAMS[what]
        rest = buf["live"].close() if "live" in buf else ""  # what the last pieces held back, released with the end
        held = [row(phase, "agui", buf["piece"], f"{kind}_delta", id=ident, delta=rest)] if rest else []
        flag = True if partial else None
        if what == "tool":
            # a call cut short is kept as it came (never approved: its run did not end); a whole one is read strictly
            where = None if partial else f"{name} {shown_cut(repr(ident), 80)} ({shown_cut(repr(buf['tool']), 80)})"
            args = _json_or_text(text, where)
            self._add_tool_call(ident, buf["tool"], text, buf["parent"])
            return held + [
                row(
                    phase,
                    "agui",
                    name,
                    kind,
                    tool_call_id=ident,
                    tool=buf["tool"],
                    args=args,
                    parent_message_id=buf["parent"],
                    partial=flag,
                )
            ]
        role = buf["role"] or ("reasoning" if what == "reasoning" else "assistant")
        if what == "text":
            message = {"id": ident, "role": role, "content": text, **({"name": buf["name"]} if buf["name"] else {})}
            self._append(message, len(text) + _OVERHEAD)
            if role == "assistant":
                self.last_text = text
        return held + [row(phase, "agui", name, kind, message_id=ident, role=role, name=buf["name"], text=text, partial=flag)]

    def _add_tool_call(self, ident: str, name: str | None, args: str, parent: str | None) -> None:
        call = {"id": ident, "type": "function", "function": {"name": name or "", "arguments": args}}
        if not self._kept(len(args) + len(name or "") + _OVERHEAD):
            return
        self._note_call(ident, call)
        if parent is not None:
            found = self._by_id.get(str(parent))
        else:  # the latest assistant message
            found = next((m for m in reversed(self.messages) if m.get("role") == "assistant"), None)
        if found is not None:
            found.setdefault("toolCalls", []).append(call)
            return
        message = {"id": parent or f"assistant-{ident}", "role": "assistant", "toolCalls": [call]}
        self.messages.append(message)  # counted with its call, above
        self._index(message)

    # -- run lifecycle, results, interrupts ------------------------------------------------
    def _run_started(self, e: dict[str, Any]) -> list[Row]:
        return [
            row(
                PHASE,
                "agui",
                "RUN_STARTED",
                "run_started",
                thread_id=e.get("threadId"),
                run_id=e.get("runId"),
                parent_run_id=e.get("parentRunId"),
            )
        ]

    def _run_finished(self, e: dict[str, Any]) -> list[Row]:
        rows = self.close()
        outcome = as_object(e.get("outcome"))
        self.finished, self.outcome, self.run_result = True, outcome.get("type") or "success", e.get("result")
        given = _items(outcome.get("interrupts"))
        if self.outcome != "interrupt":  # a run done or cancelled waits for nothing: interrupts it carries are not asked
            self.stray_interrupts += len(given)
            given = []
        rows.append(
            row(
                PHASE,
                "agui",
                "RUN_FINISHED",
                "run_finished",
                thread_id=e.get("threadId"),
                run_id=e.get("runId"),
                outcome=self.outcome,
                result=e.get("result"),
                pending_tool_call_ids=outcome.get("pendingToolCallIds"),
                stray_interrupts=self.stray_interrupts or None,
            )
        )
        rows += _usage(e.get("usage"))
        if given:  # the outcome lists what the run waits for: a legacy CUSTOM on_interrupt sent beside it (servers keep
            # it on by default) is the same interrupt again, without the id its answer goes back under
            legacy = {id(i) for i in self.interrupts if i.get("legacy")}
            self.made_ids -= {i["id"] for i in self.interrupts if id(i) in legacy}
            self.interrupts = [i for i in self.interrupts if id(i) not in legacy]
        for n, interrupt in enumerate(given, len(self.interrupts) + 1):
            found = dict(interrupt) if isinstance(interrupt, Mapping) else {"id": f"interrupt-{n}", "value": interrupt}
            rows += self._interrupt(found, made=not isinstance(interrupt, Mapping))
        return rows

    def _run_error(self, e: dict[str, Any]) -> list[Row]:
        rows = self.close(partial=True)
        self.finished, self.error = True, str(e.get("message") or "RUN_ERROR without a message")
        self.error_code = None if e.get("code") is None else str(e.get("code"))
        rows.append(row(PHASE, "agui", "RUN_ERROR", "run_error", message=e.get("message"), code=e.get("code"), error=self.error))
        return rows + _usage(e.get("usage"))

    def _messages_snapshot(self, e: dict[str, Any]) -> list[Row]:
        given = _items(e.get("messages"))
        messages = [dict(m) for m in given if isinstance(m, Mapping)]
        self._set_messages(messages)
        skipped = len(given) - len(messages)  # an item that is no message object: counted, not resent
        return [row(PHASE, "agui", "MESSAGES_SNAPSHOT", "messages_snapshot", count=len(messages), not_messages=skipped or None)]

    def _tool_call_result(self, e: dict[str, Any]) -> list[Row]:
        content = e.get("content")
        text = content if isinstance(content, str) else json.dumps(content, default=str)
        message = {"id": e.get("messageId"), "role": "tool", "toolCallId": e.get("toolCallId"), "content": text}
        if self._kept(len(text) + _OVERHEAD):  # no index: a tool's answer is never a parent, nor a call an interrupt names
            self.messages.append(message)
        return [
            row(
                PHASE,
                "agui",
                "TOOL_CALL_RESULT",
                "tool_result",
                tool_call_id=e.get("toolCallId"),
                message_id=e.get("messageId"),
                content=content,
            )
        ]

    def _interrupt(self, interrupt: dict[str, Any], made: bool = False) -> list[Row]:
        self.interrupts.append(interrupt)
        if made:
            self.made_ids.add(interrupt["id"])
        call = self.tool_call(interrupt.get("toolCallId"))
        return [
            row(
                PHASE,
                "agui",
                "INTERRUPT",
                "approval_requested",
                interrupt_id=interrupt.get("id"),
                reason=interrupt.get("reason"),
                message=interrupt.get("message"),
                tool_call_id=interrupt.get("toolCallId"),
                tool=(call or {}).get("name"),
                legacy=interrupt.get("legacy"),
            )
        ]


def _items(value: Any) -> list[Any]:
    """A field that should be a JSON array (any iterable an in-process producer passes: a list, a tuple, a
    generator), as a list; text, bytes, a mapping or a number is no items (``"ab"`` is not two of them)."""
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        return []
    return list(value)


def _usage(entries: Any) -> list[Row]:
    rows = []
    for u in _items(entries):
        if isinstance(u, Mapping):
            rows.append(
                usage_row(
                    "agui",
                    model=u.get("model"),
                    provider=u.get("provider"),
                    input_tokens=u.get("inputTokens"),
                    output_tokens=u.get("outputTokens"),
                    cached_input_tokens=u.get("cachedInputTokens"),
                    cache_write_input_tokens=u.get("cacheWriteInputTokens"),
                    reasoning_tokens=u.get("reasoningTokens"),
                    total_tokens=u.get("totalTokens"),
                )
            )
    return rows


def _legacy_interrupt(value: Any, n: int) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = loads_text(value)
        except JSONTextError as exc:
            if exc.duplicate_key is not None:  # the question shown would not be the one the agent asks
                raise AGUIStreamError(f"CUSTOM on_interrupt #{n}: its value is {exc.reason}") from None
    found = value if isinstance(value, dict) else {}
    message = found.get("message") or found.get("question") or (value if isinstance(value, str) else None)
    return {
        "id": str(found.get("id") or f"on_interrupt-{n}"),
        "made": not found.get("id"),  # taken out by the folder: whether the id was made here
        "reason": "on_interrupt",
        "message": message,
        "toolCallId": found.get("toolCallId") or found.get("tool_call_id"),
        "metadata": {"value": value},
        "legacy": True,
    }


def _call_key(call: Mapping[str, Any]) -> tuple[Any, Any]:
    """A tool call's name and arguments (parsed when JSON): two calls with the same key are the same call."""
    function = as_object(call.get("function"))
    arguments = function.get("arguments")
    return function.get("name") or None, _json_or_text(arguments) if isinstance(arguments, str) else arguments


def _json_or_text(text: str, where: str | None = None) -> Any:
    """JSON text as its value, or the text itself when it is no JSON. Given ``where`` (a whole tool call's args), a key
    written twice is refused: approval would show one value and the tool might run with the other."""
    try:
        return loads_text(text) if text else {}
    except JSONTextError as exc:
        if where is not None and exc.duplicate_key is not None:
            raise AGUIStreamError(f"{where}: the arguments are {exc.reason}") from None
        return text


def agui_rows(events: Iterable[dict[str, Any]], *, deltas: bool = False) -> list[Row]:
    """Rows for a recorded AG-UI event list (one or more runs), without validation."""
    folder, rows = AGUIFolder(deltas=deltas), []
    for number, event in enumerate(events, 1):
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            shown = shown_cut(safe_repr(event, limit=4000), 120)  # redacted, then cut: no key's head stays
            raise AGUIStreamError(
                f"event #{number} is {shown}, not an AG-UI event: pass mappings with a string 'type' "
                "(parse_sse gives them from a recorded stream)"
            )
        rows += folder.feed(folder.normalize(dict(event)))
    return rows + folder.close(partial=True)
