"""``AGUIAdapter``: run any AG-UI agent as a Noēsis episode.

The agent is in-process (``agent.run(run_input)`` or ``agent(run_input)`` giving an (async)
iterable of ``ag_ui.core`` events or dicts) or remote (:class:`AGUIHttpAgent`). Each run gets
the full ``RunAgentInput``; its events become rows; an interrupt outcome (or legacy ``CUSTOM
on_interrupt``) becomes one pending approval per interrupt, and the decisions go back in the
next run: AG-UI 1.0 ``resume: [ResumeEntry]`` (default) or ``forwardedProps.command.resume``
(``resume_style="forwarded_props"``, Idun / ag-ui-langgraph 0.0.x servers). Steers sent while a run
streamed join that next run as new user messages (a run that never interrupts has no next run).
A run ending with outcome ``cancelled`` ends the episode ``cancelled`` (:class:`AGUIRunCancelled`), never ``ok``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import TypeAdapter

from ..._threads import ThreadReader, run_in_thread, thread_bound_hint
from ...errors import AgentCancelled, EpisodeStateError, InvalidOptionError
from ...secrets import for_run, is_secret_key, shown_cut
from ...secrets.quoted import quoted
from .._approvals import default_answer, request_approval, tool_name
from .._emit import PHASE, apply_output, emit_rows, row
from .._extras import require
from .._preview import json_preview
from ._events import EVENT_TYPES, AGUIFolder
from ._interrupts import unanswerable
from ._sse import AGUIStreamError

__all__ = ["AGUIAdapter", "AGUIRunCancelled", "AGUIRunError", "default_answer"]

_INPUT_KEYS = {
    "messages": "messages",
    "state": "state",
    "tools": "tools",
    "context": "context",
    "forwardedProps": "forwardedProps",
    "forwarded_props": "forwardedProps",
}


#: how long the stream is read on after RUN_FINISHED for what AG-UI allows next (a new RUN_STARTED, a RUN_ERROR): a
#: server closes it at once; one keeping it open, silent, has ended its run all the same
AFTER_FINISH_S = 1.0
MAX_CONVERSATION_CHARS = 16_000_000  # the conversation held for the next run: several times the longest model context


class AGUIRunError(AGUIStreamError):
    """The agent ended a run with ``RUN_ERROR``; ``code`` is its code."""

    def __init__(self, message: str, code: str | None = None):
        self.code = code
        super().__init__(message)


class AGUIRunCancelled(AgentCancelled):
    """The agent ended a run with ``RUN_FINISHED`` outcome ``cancelled``: the episode is sealed ``cancelled``."""


class AGUIAdapter:
    """Run an AG-UI agent; pass it as ``using=`` to ``start``/``solve``.

    ``input_mapper(task)`` may return a string (one user message), a list of messages, or a dict
    of ``RunAgentInput`` fields (``messages, state, tools, context, forwardedProps``).
    ``answer(interrupt, approved, reason)`` builds each resume payload (default
    :func:`default_answer`). ``output(result)`` maps the final result (may be async).
    ``deltas=True`` also records the ``*_CONTENT`` / ``*_ARGS`` pieces as rows, as released: text that could still be
    part of a key is held back until it cannot (a word at most in prose), so a key is never split across rows
    and is redacted where it stands; never a raw piece. ``validate=False``
    skips the checks of each event's shape and order (a piece with no open START, an id reopened).
    ``max_conversation_chars`` bounds the conversation held in memory while the agent streams (what the next run
    sends after an interrupt, for servers that keep no thread state): past it the conversation is let go, and an
    interrupt then ends the episode with an error saying so (a server's ``MESSAGES_SNAPSHOT`` under it gives it
    back). The default, 16 million characters, is several times the longest model context; None: no bound.
    ``max_value_chars`` bounds what an interrupt and the tool call it names each add to the approval (a longer one is
    shown as a preview, read from its head on the event loop; ``answer`` still gets the interrupt whole).
    """

    source = "agui"

    def __init__(
        self,
        agent: Any,
        *,
        input_mapper: Callable[[str], Any] | None = None,
        output: Callable[[Any], Any] | None = None,
        thread_id: str | None = None,
        resume_style: str = "1.0",
        answer: Callable[..., Any] | None = None,
        risk: str = "high",
        deltas: bool = False,
        validate: bool = True,
        max_runs: int = 20,
        approval_timeout_s: float = 600.0,
        max_conversation_chars: int | None = MAX_CONVERSATION_CHARS,
        max_value_chars: int = 20_000,
    ):
        self._core = require("ag_ui.core", "agui", "AGUIAdapter")
        if resume_style not in ("1.0", "forwarded_props"):
            raise ValueError(
                f"resume_style={quoted(resume_style, 80)}: use '1.0' (RunAgentInput.resume) or 'forwarded_props' "
                "(forwardedProps.command.resume, for Idun / ag-ui-langgraph 0.0.x servers)"
            )
        if max_conversation_chars is not None and (type(max_conversation_chars) is not int or max_conversation_chars <= 0):
            raise ValueError(
                f"max_conversation_chars={quoted(max_conversation_chars, 80)}: pass a number of characters above 0 "
                f"(default {MAX_CONVERSATION_CHARS}), or None for no bound"
            )
        self.max_conversation_chars = max_conversation_chars
        if type(max_value_chars) is not int or max_value_chars < 1:
            raise InvalidOptionError(f"max_value_chars={quoted(max_value_chars, 80)}: pass an int of at least 1")
        self.max_value_chars = max_value_chars  # an interrupt's (or its call's) JSON beyond this is shown as a preview
        run = getattr(agent, "run", None)
        self._call = run if callable(run) else agent
        if not callable(self._call):
            raise TypeError(
                f"agent={quoted(agent, 120)} is not an AG-UI agent: pass an object with run(run_input), a callable "
                "returning an (async) iterable of events, or AGUIHttpAgent(url)"
            )
        self.agent, self.output, self.thread_id, self.resume_style = agent, output, thread_id, resume_style
        self.answer, self.risk, self.deltas, self.validate = answer or default_answer, risk, deltas, validate
        self.max_runs, self.approval_timeout_s = max_runs, approval_timeout_s
        if input_mapper is not None:
            self.__noesis_input_mapper__ = input_mapper
        self._events: TypeAdapter[Any] | None = None  # of ag_ui.core.Event, a union loaded with the extra

    def __repr__(self) -> str:
        return f"AGUIAdapter({self.agent!r})"

    async def invoke(self, task: Any, ctx: Any) -> Any:
        # the credentials the agent is called with are the run's secrets: a server's error, or a row, that echoes one
        # (an x-api-key of no known shape) is redacted like any value the run has learned, in files and views
        for_run(ctx.run_dir).learn(_credentials(getattr(self.agent, "headers", None)))
        fields = _input_fields(task)
        messages = fields.pop("messages")
        thread_id = self.thread_id or f"thread-{ctx.episode_id}"
        resume: list[tuple[dict[str, Any], Any]] = []
        for number in range(1, self.max_runs + 1):
            # a remote agent's cap on one line and one event bounds a message folded from its pieces too
            folder = AGUIFolder(
                messages,
                deltas=self.deltas,
                max_stream_chars=getattr(self.agent, "max_line_bytes", None),
                secrets=for_run(ctx.run_dir),  # the delta rows' pieces are screened as released, with the run's secrets
                max_conversation_chars=self.max_conversation_chars,
            )
            await self._run_once(
                self._run_input(thread_id, f"{ctx.episode_id}-run-{number}", messages, fields, resume), folder, ctx
            )
            if folder.error is not None:
                raise AGUIRunError(f"the AG-UI agent ended the run with RUN_ERROR: {folder.error}", code=folder.error_code)
            problem = unanswerable(folder, number)
            if problem:  # refused before anyone is asked: a decision the agent could not tell apart is not asked for
                for interrupt in folder.interrupts:
                    ctx.emit(*_unanswered(interrupt))
                raise AGUIStreamError(f"{problem} (nothing was asked or resumed)")
            if folder.outcome == "cancelled":
                raise AGUIRunCancelled(
                    f"the AG-UI agent ended run {number} with RUN_FINISHED outcome cancelled: it was stopped before it "
                    "completed, without a result; the episode is sealed cancelled"
                )
            if not folder.interrupts:
                return await apply_output(self.output, folder.result)
            if folder.dropped is not None:  # the next run sends the conversation whole: it is no longer held
                raise AGUIStreamError(
                    f"the agent interrupted run {number} for a decision, but the conversation had grown to "
                    f"{folder.dropped} characters, past max_conversation_chars={self.max_conversation_chars}, and was "
                    "let go: the next run, which sends it whole, cannot be made (nothing was asked or resumed). Pass "
                    "AGUIAdapter(..., max_conversation_chars=None) or a larger number, or have the server send a "
                    "MESSAGES_SNAPSHOT"
                )
            resume = [await self._decide(interrupt, folder, ctx) for interrupt in folder.interrupts]
            steers = ctx.steers(at="between-rounds")  # what people told the agent meanwhile: new user messages
            messages = [*folder.messages, *({"id": s.steer_id, "role": "user", "content": s.text} for s in steers)]
        raise AGUIStreamError(
            f"the agent interrupted {self.max_runs} runs in a row; pass max_runs= a larger number if that is expected"
        )

    def _run_input(
        self, thread_id: str, run_id: str, messages: list[Any], fields: dict[str, Any], resume: list[tuple[dict[str, Any], Any]]
    ) -> Any:
        body: dict[str, Any] = {
            "threadId": thread_id,
            "runId": run_id,
            "state": {},
            "messages": messages,
            "tools": [],
            "context": [],
            "forwardedProps": {},
            **fields,
        }
        if resume and self.resume_style == "1.0":
            body["resume"] = [{"interruptId": i.get("id"), "status": "resolved", "payload": p} for i, p in resume]
        elif resume:
            value = resume[0][1] if len(resume) == 1 else {i.get("id"): p for i, p in resume}
            body["forwardedProps"] = {**body["forwardedProps"], "command": {"resume": value}}
        if self.resume_style == "1.0":
            body["protocolVersion"] = "1.0"
        try:
            return self._core.RunAgentInput.model_validate(body)
        except Exception as exc:
            raise ValueError(
                f"the RunAgentInput built from the task is invalid ({_detail(exc, skip=0)}); check input_mapper's messages/fields"
            ) from None

    async def _run_once(self, run_input: Any, folder: AGUIFolder, ctx: Any) -> None:
        if _plain_function(self._call):  # it may block before its first event (a sync client connecting): off the loop
            try:
                stream = await run_in_thread(self._call, run_input, name="noesis_nb-agui-call")
            except Exception as exc:
                hinted = thread_bound_hint(exc, "the AG-UI agent function")
                if hinted is None:
                    raise
                raise hinted from exc
        else:
            stream = self._call(run_input)
        if inspect.isawaitable(stream):
            stream = await stream
        count = 0
        events = _aiter(stream)
        try:
            while folder.error is None:  # RUN_ERROR ends the stream; after RUN_FINISHED a new RUN_STARTED may follow
                try:
                    wait = AFTER_FINISH_S if folder.finished else None
                    event = await asyncio.wait_for(anext(events), wait)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    if wait is None:
                        raise
                    break  # kept open after RUN_FINISHED and silent: the run is over
                count += 1
                raw = _as_dict(event, count)
                checked = self._check(folder.normalize(raw), count)
                if folder.finished:
                    _after_finished(folder, checked, count)
                if checked.get("type") == raw.get("type"):  # legacy THINKING_* pieces come without a START
                    self._check_order(folder, checked, count)
                rows = folder.feed(checked)
                emit_rows(ctx, rows)
                if not rows and _carries(checked):  # a piece folded into a later row: progress all the same
                    ctx.alive()
        finally:
            await events.aclose()
            await _aclose(stream)
            try:
                emit_rows(ctx, folder.close(partial=True))  # what arrived of a message cut short is kept
            except EpisodeStateError:
                pass  # cancelled or timed out: the episode has already ended
        if not folder.finished:
            raise AGUIStreamError(
                f"the AG-UI stream ended after {count} event(s) without RUN_FINISHED or RUN_ERROR; "
                "the agent stopped early or the connection dropped"
            )

    def _check(self, event: dict[str, Any], number: int) -> dict[str, Any]:
        if not self.validate or event.get("type") not in EVENT_TYPES:
            return event
        if self._events is None:
            self._events = TypeAdapter(self._core.Event)
        try:
            model = self._events.validate_python(event)
        except Exception as exc:
            detail = _detail(exc, skip=1)  # loc[0] is the union's tag
            raise AGUIStreamError(f"event #{number} ({event.get('type')}) is not a valid AG-UI 1.0 event: {detail}") from None
        try:
            checked: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
        except Exception:  # valid, but pydantic cannot write it back (a value nested deeper than its serializer goes)
            return event  # the event as sent: its shape was checked, and every field is already JSON
        return checked

    def _check_order(self, folder: AGUIFolder, event: dict[str, Any], number: int) -> None:
        """A streamed piece must belong to a message / tool call its ``*_START`` opened, and a START must not reopen one."""
        if not self.validate:
            return
        kind = str(event.get("type"))
        if kind == "RUN_FINISHED":
            _check_all_ended(folder, number)
            return
        base, _, part = kind.rpartition("_")
        if base not in ("TEXT_MESSAGE", "TOOL_CALL", "REASONING_MESSAGE") or part not in ("START", "CONTENT", "ARGS", "END"):
            return
        field = "toolCallId" if base == "TOOL_CALL" else "messageId"
        ident = str(event.get(field))
        is_open = folder.is_open(base, ident)
        shown_id = shown_cut(repr(ident), 80)  # the peer's id, in an error: redacted, then cut
        if part == "START" and is_open:
            raise AGUIStreamError(
                f"event #{number} ({kind}) reopens {field} {shown_id}, which is still streaming; "
                "the agent reuses an id: each message and tool call needs its own"
            )
        if part != "START" and not is_open:
            raise AGUIStreamError(
                f"event #{number} ({kind}) names {field} {shown_id}, which no {base}_START opened "
                "(or it already ended); the agent sent its events out of order"
            )

    async def _decide(self, interrupt: dict[str, Any], folder: AGUIFolder, ctx: Any) -> tuple[dict[str, Any], Any]:
        call = folder.tool_call(interrupt.get("toolCallId"))
        name = tool_name("agui", (call or {}).get("name") or interrupt.get("reason"))
        approved, value, reason = await request_approval(
            ctx,
            name,
            {"interrupt": json_preview(interrupt, self.max_value_chars), "tool_call": json_preview(call, self.max_value_chars)},
            on_approve=lambda: self.answer(interrupt, True, None),
            risk=self.risk,
            timeout_s=self.approval_timeout_s,
        )
        payload = value if approved else self.answer(interrupt, False, reason)
        ctx.emit(
            *row(
                PHASE,
                "agui",
                "RESUME",
                "approval_resolved",
                interrupt_id=interrupt.get("id"),
                approved=approved,
                reason=reason,
                resume_style=self.resume_style,
            )
        )
        return interrupt, payload


def _after_finished(folder: AGUIFolder, event: dict[str, Any], number: int) -> None:
    """After RUN_FINISHED, AG-UI allows a new RUN_STARTED (a next run on the same stream: read on) or a RUN_ERROR
    (the run ends ``error``, its message kept); anything else is a peer sending past its run's end (AG-UI's own
    client refuses it), one AGUIStreamError naming it, never dropped unsaid."""
    kind = event.get("type")
    if kind == "RUN_STARTED":
        folder.finished = False
    elif kind != "RUN_ERROR":
        raise AGUIStreamError(
            f"event #{number} ({shown_cut(repr(kind), 80)}) came after RUN_FINISHED, where AG-UI allows only a new "
            "RUN_STARTED or a RUN_ERROR: the agent sent events past its run's end (not recorded); fix the server to end "
            "its stream with RUN_FINISHED"
        )


def _unanswered(interrupt: dict[str, Any]) -> Any:
    """The row of an interrupt nobody was asked about (the run ended ``error`` first)."""
    return row(
        PHASE,
        "agui",
        "INTERRUPT_UNANSWERED",
        "custom",
        interrupt_id=interrupt.get("id"),
        reason=interrupt.get("reason"),
        message=interrupt.get("message"),
        tool_call_id=interrupt.get("toolCallId"),
    )


def _credentials(headers: Any) -> list[str]:
    """The values of the headers that carry a credential (``Authorization``, ``x-api-key``, ``Cookie``…), whole and
    each word of one (the token after ``Bearer``); a header such as ``Accept`` is no secret."""
    if not isinstance(headers, Mapping):
        return []
    found: list[str] = []
    for name, value in headers.items():
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if isinstance(name, str) and isinstance(value, str) and is_secret_key(name):
            found += [value.strip(), *(word for word in value.split() if len(word) >= 8)]
    return found


def _check_all_ended(folder: AGUIFolder, number: int) -> None:
    """RUN_FINISHED must come after the END of every message and tool call a START opened (as AG-UI's own client
    checks): a call cut there would be read as whole, its arguments as sent so far."""
    unended = folder.unended()
    if unended:
        base, ident = unended[0]
        field = "toolCallId" if base == "TOOL_CALL" else "messageId"
        raise AGUIStreamError(
            f"event #{number} (RUN_FINISHED) ends the run while {field} {shown_cut(repr(ident), 80)} is still streaming "
            f"(no {base}_END); the agent sent its events out of order. What arrived of it is kept, marked partial"
        )


_SNAPSHOTS = frozenset(("STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"))


def _carries(event: dict[str, Any]) -> bool:
    """Whether an event is progress for the idle timeout: a non-empty piece, a tool call named, a snapshot. An empty
    delta is not: a peer streaming nothing but empty pieces must still time out."""
    delta = event.get("delta")
    if isinstance(delta, str):
        return bool(delta)
    return bool(event.get("toolCallName")) or event.get("type") in _SNAPSHOTS


def _detail(exc: Exception, *, skip: int) -> str:
    """A pydantic error on one line: up to three ``field.path: message`` (never its multi-line text or URLs)."""
    errors: list[dict[str, Any]] = getattr(exc, "errors", lambda: [])()
    found = "; ".join(f"{'.'.join(map(str, e.get('loc', ())[skip:])) or '?'}: {e.get('msg')}" for e in errors[:3])
    return found or str(exc).splitlines()[0]


def _input_fields(task: Any) -> dict[str, Any]:
    if isinstance(task, str):
        return {"messages": [{"id": "user-1", "role": "user", "content": task}]}
    if isinstance(task, (list, tuple)):
        return {"messages": [_message(m, i) for i, m in enumerate(task, 1)]}
    if isinstance(task, Mapping) and set(task) <= set(_INPUT_KEYS):
        fields = {_INPUT_KEYS[k]: v for k, v in task.items()}
        messages = fields.get("messages") or []
        if not isinstance(messages, (list, tuple)):
            raise TypeError(f"input_mapper gave messages={quoted(messages, 80)}; pass a list of message dicts")
        fields["messages"] = [_message(m, i) for i, m in enumerate(messages, 1)]
        return fields
    raise TypeError(
        f"AGUIAdapter got input {quoted(task)}; input_mapper must return a string, a list of messages or a dict "
        f"with keys among {sorted(_INPUT_KEYS)}"
    )


def _as_dict(event: Any, number: int) -> dict[str, Any]:
    if hasattr(event, "model_dump"):  # an ag_ui.core event (a pydantic model)
        dumped: dict[str, Any] = event.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped
    if isinstance(event, Mapping):
        return dict(event)
    raise AGUIStreamError(f"item #{number} of the agent's stream is a {type(event).__name__}; yield ag_ui.core events or dicts")


def _message(message: Any, number: int) -> dict[str, Any]:
    if hasattr(message, "model_dump") or isinstance(message, Mapping):
        return _as_dict(message, number)
    raise TypeError(
        f"input message #{number} is a {type(message).__name__} ({quoted(message, 80)}); "
        "input_mapper must give messages as dicts {id, role, content} or ag_ui.core messages"
    )


_NONE_LEFT = object()


def _plain_function(call: Any) -> bool:
    """Whether calling ``call`` runs its body now (a plain function: it may block, e.g. connecting before it returns
    its events), rather than making a generator or coroutine that runs when read or awaited."""
    for fn in (call, type(call).__call__):
        if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn) or inspect.iscoroutinefunction(fn):
            return False
    return True


async def _aiter(stream: Any) -> Any:
    """The events of an async or plain iterable. A plain iterator's ``next()`` runs on a thread of its own
    (``ThreadReader``, a few events ahead at most), before RUN_FINISHED as after it: on the loop a source that blocks (a sync
    SSE reader, a generator waiting for its model) would freeze the loop, and with it the kernel, the live view and
    its buttons, for as long as it waits (for ever after RUN_FINISHED on a connection kept open, where the bounded
    wait could not fire). A list or tuple, already in memory, is read where it stands. A source still blocked when
    the stream is left is left to its thread, which closes it once the read returns.
    """
    if hasattr(stream, "__aiter__"):
        async for item in stream:
            yield item
    elif isinstance(stream, (list, tuple)):
        for item in stream:
            yield item
    elif hasattr(stream, "__iter__"):
        reader = ThreadReader(iter(stream), _NONE_LEFT, name="noesis_nb-agui-stream")
        try:
            while (item := await reader.next()) is not _NONE_LEFT:
                yield item
        finally:
            reader.close()
    else:
        raise TypeError(f"the AG-UI agent returned {type(stream).__name__}; return an (async) iterable of events")


async def _aclose(stream: Any) -> None:
    close = getattr(stream, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:
            pass
