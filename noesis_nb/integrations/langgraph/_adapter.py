"""``LangGraphAdapter``: a compiled LangGraph graph as a Noēsis episode.

A sync graph runs through ``graph.invoke`` (in a worker thread), as Noēsis' own adapter does;
an async one through ``graph.ainvoke``. When a node calls ``langgraph.types.interrupt(value)``
the graph stops with ``__interrupt__``; each interrupt becomes a pending approval, and the
decision resumes the graph with ``Command(resume=…)`` on the same thread id (a checkpointer
is required for that, as LangGraph itself requires). Steers sent while the graph ran are passed
on at that resume as a state update, ``Command(update={steer_key: [{"role": "user", …}]})``; a graph
that never interrupts has no point to take them (LangGraph runs it as one call).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ...errors import NoesisNbError
from .._approvals import default_answer, request_approval, tool_name
from .._emit import PHASE, apply_output, row
from .._extras import require
from ._callbacks import make_handler

__all__ = ["LangGraphAdapter", "LangGraphResumeError", "default_answer"]


class LangGraphResumeError(NoesisNbError):
    """The graph interrupted but cannot be resumed (no checkpointer), or interrupts never stop."""


class LangGraphAdapter:
    """Run a compiled graph: ``LangGraphAdapter(graph, input_mapper=lambda t: {"messages": [("user", t)]})``.

    The input mapper comes from the argument, else ``graph.__noesis_input_mapper__``, else the
    task string is passed as is (Noēsis' rule). ``use_async`` None picks ``ainvoke`` when a
    node has no sync function. ``answer(value, approved, reason)`` is what ``interrupt()``
    returns after a decision. ``config`` is merged into each call (``thread_id`` defaults to the
    episode id). ``output(result)`` maps the final state (may be async). ``steer_key``: the state
    key (with a list reducer, e.g. ``messages``) that receives steers when the graph resumes; None
    leaves them unread.
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
        steer_key: str | None = "messages",
    ):
        self._types = require("langgraph.types", "langgraph", "LangGraphAdapter")
        if not hasattr(graph, "invoke"):
            raise TypeError(f"graph={graph!r} has no invoke(); pass a compiled graph (StateGraph(...).compile())")
        self.graph, self.output, self.config, self.thread_id = graph, output, dict(config or {}), thread_id
        self.use_async = _has_async_only_nodes(graph) if use_async is None else use_async
        self.answer, self.risk, self.max_resumes, self.approval_timeout_s = (
            answer or default_answer,
            risk,
            max_resumes,
            approval_timeout_s,
        )
        self.steer_key = steer_key  # the state key steers are written to when the graph resumes (None: not passed)
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
        for _ in range(self.max_resumes + 1):
            result = await self._call(value, config)
            interrupts = _interrupts(result)
            if not interrupts:
                return await apply_output(self.output, result)
            if getattr(self.graph, "checkpointer", None) is None:
                raise LangGraphResumeError(
                    "the graph called interrupt() but was compiled without a checkpointer, so it cannot "
                    "resume; compile it with checkpointer=InMemorySaver() (langgraph.checkpoint.memory)"
                )
            answers = {}
            for interrupt in interrupts:
                answers[getattr(interrupt, "id", None)] = await self._decide(interrupt, ctx)
            resume = next(iter(answers.values())) if len(answers) == 1 else answers
            steers = ctx.steers(at="between-rounds") if self.steer_key else []
            update = {self.steer_key: [{"role": "user", "content": s.text} for s in steers]} if steers else None
            value = self._types.Command(resume=resume, update=update)  # steers reach the graph as a state update
        raise LangGraphResumeError(f"the graph interrupted {self.max_resumes} times in a row; pass max_resumes= a larger number")

    async def _call(self, value: Any, config: dict[str, Any]) -> Any:
        if self.use_async:
            return await self.graph.ainvoke(value, config)
        return await asyncio.to_thread(self.graph.invoke, value, config)

    async def _decide(self, interrupt: Any, ctx: Any) -> Any:
        value, ident = getattr(interrupt, "value", interrupt), getattr(interrupt, "id", None)
        named = value if isinstance(value, dict) else {}
        label = next((named[k] for k in ("tool", "action", "name") if isinstance(named.get(k), str)), "interrupt")
        ctx.emit(*row(PHASE, "langgraph", "interrupt", "approval_requested", interrupt_id=ident, value=value))
        approved, answer, reason = await request_approval(
            ctx,
            tool_name("langgraph", label),
            {"interrupt_id": ident, "value": value},
            risk=self.risk,
            timeout_s=self.approval_timeout_s,
            on_approve=lambda: self.answer(value, True, None),
        )
        if not approved:
            answer = self.answer(value, False, reason)
        ctx.emit(*row(PHASE, "langgraph", "resume", "approval_resolved", interrupt_id=ident, approved=approved, reason=reason))
        return answer


def _interrupts(result: Any) -> list[Any]:
    if isinstance(result, dict):
        found = result.get("__interrupt__")
        return list(found) if found else []
    return list(getattr(result, "interrupts", None) or [])


def _has_async_only_nodes(graph: Any) -> bool:
    """True when some node was given only an async function (``invoke`` would refuse it)."""
    for node in (getattr(graph, "nodes", None) or {}).values():
        bound = getattr(node, "bound", None)
        if bound is not None and hasattr(bound, "afunc") and getattr(bound, "func", "?") is None:
            return True
    return False
