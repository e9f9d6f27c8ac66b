"""``LangGraphAdapter``: a compiled LangGraph graph as a Noēsis episode.

A sync graph runs through ``graph.invoke`` (in a worker thread), as Noēsis' own adapter does;
an async one through ``graph.ainvoke``. When a node calls ``langgraph.types.interrupt(value)``
the graph stops with ``__interrupt__``; each interrupt becomes a pending approval, and the
decisions resume the graph with ``Command(resume={interrupt_id: answer})`` on the same thread id
(a checkpointer is required for that, as LangGraph itself requires); interrupts that could not
each get their own answer are refused before anyone is asked (``_interrupts``). Steers sent while the graph ran are passed
on at that resume as a state update, ``Command(update={steer_key: [{"role": "user", …}]})``; a graph
that never interrupts has no point to take them (LangGraph runs it as one call). A graceful stop
(``handle.cancel(drain_s=…)``) lets the node or tool in flight finish and refuses the next at its boundary, for
``invoke`` and ``ainvoke`` alike (``_callbacks.make_watch``); a cancel stops a sync graph at that boundary too.
"""

from __future__ import annotations

import asyncio
import math
import threading
import typing
from collections.abc import Callable
from typing import Any

from ..._threads import to_thread
from ...errors import InvalidOptionError
from ...secrets.display import shown_cut
from ...secrets.quoted import quoted
from .._approvals import default_answer, request_approval, tool_name
from .._emit import PHASE, apply_output, row
from .._extras import require
from ._callbacks import make_handler, make_watch
from ._interrupts import (
    LangGraphResumeError,
    LangGraphRunError,
    brief,
    pending_interrupts,
    resume_value,
    stored_value,
    unanswerable,
)

__all__ = ["LangGraphAdapter", "LangGraphResumeError", "LangGraphRunError", "default_answer"]


class _DefaultKey(str):
    """The default ``steer_key``, told apart from the same name passed on purpose."""


_MESSAGES = _DefaultKey("messages")


def _input_keys(graph: Any) -> list[str]:
    """The keys of the graph's input schema (``StateGraph(..., input_schema=...)``, else its state), [] when unknown."""
    schema = getattr(getattr(graph, "builder", None), "input_schema", None)
    try:
        return [k for k in typing.get_type_hints(schema) if isinstance(k, str)] if schema is not None else []
    except Exception:  # a schema its hints cannot be read from (a pydantic model's forward refs, …)
        return [k for k in getattr(schema, "__annotations__", None) or () if isinstance(k, str)]


def _task_as_text(graph: Any, task: str) -> str:
    """Why a graph whose input is a dict refused the task given as text, and the ``input_mapper`` to write."""
    keys = _input_keys(graph)
    key = next((k for k in ("task", "input", "question", "query", "messages") if k in keys), keys[0] if keys else "task")
    example = f'{{"{key}": [("user", task)]}}' if key == "messages" else f'{{"{key}": task}}'
    return (
        f"the graph's input is a dict (keys: {', '.join(quoted(k, 40) for k in keys[:12]) or 'unknown'}) and it was given "
        f"the task as text ({quoted(task, 60)}): pass LangGraphAdapter(graph, input_mapper=lambda task: {example}), "
        "naming the input key the task goes in"
    )


class LangGraphAdapter:
    """Run a compiled graph: ``LangGraphAdapter(graph, input_mapper=lambda t: {"messages": [("user", t)]})``.

    The input mapper comes from the argument, else ``graph.__noesis_input_mapper__``, else the
    task string is passed as is (Noēsis' rule). ``use_async`` None picks ``ainvoke`` when a
    node has no sync function. ``answer(value, approved, reason)`` is what ``interrupt()``
    returns after a decision. ``config`` is merged into each call (``thread_id`` defaults to the
    episode id). ``output(result)`` maps the final state (may be async). ``steer_key``: the state
    key (with a list reducer, e.g. ``messages``) that receives steers when the graph resumes; None
    leaves them unread, and so does the default when the graph has no ``messages`` key.
    ``max_value_chars`` bounds what an interrupt value adds to the run and the approval (a longer
    one is stored as a preview; the graph's checkpoint keeps it whole).
    """

    source = "langgraph"

    def __init__(
        self,
        graph: Any,
        *,
        input_mapper: Callable[[str], Any] | None = None,
        output: Callable[[Any], Any] | None = None,
        config: dict[str, Any] | None = None,
        thread_id: str | None = None,
        use_async: bool | None = None,
        answer: Callable[..., Any] | None = None,
        risk: str = "high",
        max_resumes: int = 50,
        approval_timeout_s: float = 600.0,
        steer_key: Any = _MESSAGES,
        max_value_chars: int = 20_000,
    ):
        self._types = require("langgraph.types", "langgraph", "LangGraphAdapter")
        _check_limits(max_resumes, max_value_chars, approval_timeout_s)
        self.max_value_chars = max_value_chars  # an interrupt value's JSON beyond this is stored as a preview
        if not hasattr(graph, "invoke"):
            raise TypeError(f"graph={quoted(graph)} has no invoke(); pass a compiled graph (StateGraph(...).compile())")
        self.graph, self.output, self.config, self.thread_id = graph, output, dict(config or {}), thread_id
        self.use_async = _has_async_only_nodes(graph) if use_async is None else use_async
        self.answer, self.risk, self.max_resumes, self.approval_timeout_s = (
            answer or default_answer,
            risk,
            max_resumes,
            approval_timeout_s,
        )
        self.steer_key = _steer_key(graph, steer_key)  # the state key steers are written to on resume (None: not passed)
        # why ``handle.steer`` is refused up front (``EpisodeHandle.steer``); None: steers reach the graph on resume
        self.steer_refusal = (
            None
            if self.steer_key
            else "its graph has no state key to receive steers (no 'messages', or steer_key=None), so a steer would "
            "never be heard; pass LangGraphAdapter(graph, steer_key='<a state key with a list reducer>')"
        )
        mapper = input_mapper or getattr(graph, "__noesis_input_mapper__", None)
        if callable(mapper):
            self.__noesis_input_mapper__ = mapper

    def __repr__(self) -> str:
        return f"LangGraphAdapter({getattr(self.graph, 'name', None) or type(self.graph).__name__!r})"

    async def invoke(self, payload: Any, ctx: Any) -> Any:
        config = dict(self.config)
        config["configurable"] = {"thread_id": self.thread_id or ctx.episode_id, **(config.get("configurable") or {})}
        config["callbacks"] = [*(config.get("callbacks") or []), make_handler(ctx)]
        value: Any = payload
        resumes = 0
        while True:
            result = await self._call(value, config, ctx)
            interrupts = pending_interrupts(result, self._types)
            if not interrupts:
                return await apply_output(self.output, result)
            problem = self._cannot_resume(interrupts, resumes)
            if problem:  # refused before anyone is asked: a decision that could not reach the graph is not asked for
                for interrupt in interrupts:
                    ctx.emit(*row(PHASE, "langgraph", "interrupt_unanswered", "custom", **self._shown(interrupt)))
                raise LangGraphResumeError(problem)
            answers = [await self._decide(interrupt, ctx) for interrupt in interrupts]
            resumes += 1
            steers = ctx.steers(at="between-rounds") if self.steer_key else []
            update = {self.steer_key: [{"role": "user", "content": s.text} for s in steers]} if steers else None
            # steers reach the graph as a state update
            value = self._types.Command(resume=resume_value(interrupts, answers), update=update)

    def _answer(self, value: Any, approved: bool, reason: str | None) -> Any:
        """``answer(value, approved, reason)``; when it raises, the error names the call and whose code to fix."""
        try:
            return self.answer(value, approved, reason)
        except Exception as exc:
            name = getattr(self.answer, "__qualname__", None) or brief(self.answer)
            raise LangGraphRunError(
                f"answer={name} raised {type(exc).__name__}: {brief(str(exc), 200)} for "
                f"value={brief(value)}, approved={approved}, reason={brief(reason)}; fix that callable "
                "(it gets the interrupt's value, whether it was approved, and the rejection's reason)"
            ) from exc

    def _cannot_resume(self, interrupts: list[Any], resumes: int) -> str | None:
        if not getattr(self.graph, "checkpointer", None):  # None, or False (compiled to never checkpoint)
            return (
                "the graph called interrupt() but was compiled without a checkpointer, so it cannot "
                "resume; compile it with checkpointer=InMemorySaver() (langgraph.checkpoint.memory)"
            )
        if resumes >= self.max_resumes:
            return (
                f"the graph interrupted again after {resumes} resumes, the limit max_resumes={self.max_resumes}; "
                "pass max_resumes= a larger number if it needs more"
            )
        return unanswerable(interrupts)

    def _shown(self, interrupt: Any) -> dict[str, Any]:
        """The interrupt's id and value as written to the run (a long value as a bounded preview)."""
        return {"interrupt_id": getattr(interrupt, "id", None), "value": stored_value(interrupt.value, self.max_value_chars)}

    async def _call(self, value: Any, config: dict[str, Any], ctx: Any) -> Any:
        try:
            if self.use_async:  # a cancel reaches the node's own task; a drain lets it finish (``make_watch``)
                return await self.graph.ainvoke(value, {**config, "callbacks": [*config["callbacks"], make_watch(ctx)]})
            stopped = threading.Event()  # set when the episode is cancelled: the worker thread's graph starts nothing more
            config = {**config, "callbacks": [*config["callbacks"], make_watch(ctx, stopped)]}
            try:
                return await to_thread(self.graph.invoke, value, config)
            except asyncio.CancelledError:
                stopped.set()
                raise
            except (KeyboardInterrupt, SystemExit) as exc:  # raised by a node in the worker thread, not at the kernel
                raise LangGraphRunError(
                    f"a node raised {type(exc).__name__}({brief(exc.args[0]) if exc.args else ''}) in the graph's worker "
                    "thread; it ends this episode (not the kernel): raise an Exception subclass to fail a node"
                ) from exc
        except Exception as exc:
            if (
                isinstance(value, str)
                and type(exc).__name__ == "InvalidUpdateError"
                and str(exc).startswith(f"Expected dict, got {value}")  # the task itself refused, not a node's return
            ):
                raise LangGraphRunError(_task_as_text(self.graph, value)) from exc
            if not isinstance(exc, TypeError) or "msgpack serializable" not in str(exc):
                raise
            raise LangGraphRunError(
                f"the graph's checkpointer could not store a value the graph produced ({exc}); interrupt() values and "
                "state must be data its serializer stores (dicts, lists, strings, numbers): convert other objects "
                "first, or compile with InMemorySaver(serde=JsonPlusSerializer(pickle_fallback=True))"
            ) from exc

    async def _decide(self, interrupt: Any, ctx: Any) -> Any:
        value, shown = interrupt.value, self._shown(interrupt)
        named = value if isinstance(value, dict) else {}
        label = next((named[k] for k in ("tool", "action", "name") if isinstance(named.get(k), str)), "interrupt")
        label = shown_cut(label, 200)  # the draft's tool name is shown as is (handle.pending): no secret in it
        ctx.emit(*row(PHASE, "langgraph", "interrupt", "approval_requested", **shown))
        approved, answer, reason = await request_approval(
            ctx,
            tool_name("langgraph", label),
            shown,
            risk=self.risk,
            timeout_s=self.approval_timeout_s,
            on_approve=lambda: self._answer(value, True, None),
        )
        if not approved:
            answer = self._answer(value, False, reason)
        ident = shown["interrupt_id"]
        ctx.emit(*row(PHASE, "langgraph", "resume", "approval_resolved", interrupt_id=ident, approved=approved, reason=reason))
        return answer


def _steer_key(graph: Any, key: Any) -> str | None:
    """``key`` when the graph has that state channel; the default is dropped when it has none (LangGraph would ignore it).

    A steer written to a channel the graph lacks is discarded by LangGraph with only a log line,
    while the run would record it as heard; so such a steer is left unread instead.
    """
    channels = getattr(graph, "channels", None)
    if key is None or not isinstance(channels, dict) or key in channels:
        return None if key is None else str(key)
    if key is _MESSAGES:
        return None
    known = sorted(k for k in channels if isinstance(k, str) and not k.startswith("__") and not k.startswith("branch:"))
    raise InvalidOptionError(
        f"steer_key={quoted(key)} is not a state key of the graph ({', '.join(known)}); name one, or pass None"
    )


def _check_limits(max_resumes: Any, max_value_chars: Any, approval_timeout_s: Any) -> None:
    """Refuse a limit that would make the loop run zero or negative times, or never time out."""
    for name, given, least in (("max_resumes", max_resumes, 0), ("max_value_chars", max_value_chars, 1)):
        if not isinstance(given, int) or isinstance(given, bool) or given < least:
            raise InvalidOptionError(f"{name}={quoted(given)}: pass an int of at least {least}")
    seconds = approval_timeout_s
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (0 < seconds < math.inf):
        raise InvalidOptionError(f"approval_timeout_s={quoted(seconds)}: pass a number of seconds above 0")


def _has_async_only_nodes(graph: Any) -> bool:
    """True when some node was given only an async function (``invoke`` would refuse it)."""
    for node in (getattr(graph, "nodes", None) or {}).values():
        bound = getattr(node, "bound", None)
        if bound is not None and hasattr(bound, "afunc") and getattr(bound, "func", "?") is None:
            return True
    return False
