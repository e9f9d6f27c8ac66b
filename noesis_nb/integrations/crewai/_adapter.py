"""``CrewAIAdapter``: a CrewAI ``Crew`` as a Noēsis episode (the adapter the Noēsis guide describes).

The task reaches the crew as ``kickoff(inputs={"task": task})`` unless the caller (or
``crew.__noesis_input_mapper__``) maps it otherwise. ``kickoff`` runs in a worker thread;
the crew's ``step_callback`` / ``task_callback`` put agent steps and task outputs on the
timeline as they happen, and the crew's ``token_usage`` becomes one usage row. CrewAI has no
resumable approval of its own, so approvals come from ``govern_tools``: those tools' calls go
through the episode's prepare → approve → execute contract (the Approve/Reject buttons); a
rejection is returned to the agent as the tool's observation, so the crew carries on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._threads import to_thread
from ...errors import EpisodeStateError, ToolRejected
from ...secrets.quoted import quoted
from .._approvals import tool_name
from .._emit import PHASE, apply_output, emit_row, row, usage_row
from .._extras import require

__all__ = ["CrewAIAdapter", "default_input_mapper"]


def default_input_mapper(task: str) -> dict[str, Any]:
    return {"task": task}


class CrewAIAdapter:
    """``CrewAIAdapter(crew, input_mapper=None, *, output=None, govern_tools=None)``.

    ``govern_tools`` maps tool names to ``{"risk": …, "effect": …}`` (or is a list of names:
    risk high, effect write); those calls wait for a decision. ``output(crew_output)`` maps the
    result (default: ``crew_output.raw``; may be async).
    """

    source = "crewai"

    def __init__(
        self,
        crew: Any,
        input_mapper: Callable[[str], Any] | None = None,
        *,
        output: Callable[[Any], Any] | None = None,
        govern_tools: dict[str, dict[str, str]] | list[str] | None = None,
    ):
        require("crewai", "crewai", "CrewAIAdapter")
        if not hasattr(crew, "kickoff"):
            raise TypeError(f"crew={quoted(crew)} has no kickoff(); pass a crewai.Crew")
        self.crew, self.output = crew, output
        self.govern = {n: {} for n in govern_tools} if isinstance(govern_tools, list) else dict(govern_tools or {})
        self.__noesis_input_mapper__ = input_mapper or getattr(crew, "__noesis_input_mapper__", None) or default_input_mapper

    def __repr__(self) -> str:
        return f"CrewAIAdapter({getattr(self.crew, 'name', None) or type(self.crew).__name__!r})"

    async def invoke(self, inputs: Any, ctx: Any) -> Any:
        if not isinstance(inputs, dict):
            raise TypeError(
                f"CrewAIAdapter needs kickoff inputs as a dict, got {quoted(inputs)}; input_mapper must return a dict"
            )
        saved = (self.crew.step_callback, self.crew.task_callback)
        ungovern = self._govern_tools(ctx)

        def restore() -> None:
            self.crew.step_callback, self.crew.task_callback = saved
            ungovern()

        self.crew.step_callback = lambda step: _emit(ctx, _step_row(step))
        self.crew.task_callback = lambda out: _emit(
            ctx,
            row(
                PHASE,
                "crewai",
                "task_completed",
                "message",
                role="assistant",
                agent=str(getattr(out, "agent", "") or "") or None,
                text=str(getattr(out, "raw", out)),
            ),
        )
        result = await to_thread(_kickoff, self.crew, inputs, restore)
        usage = _usage(result, self.crew)
        if usage is not None:
            emit_row(ctx, usage)
        return await apply_output(self.output, result) if self.output else getattr(result, "raw", result)

    def _govern_tools(self, ctx: Any) -> Callable[[], None]:
        """Route the governed tools' ``_run`` through ``ctx.tool``; returns the undo."""
        patched: list[tuple[Any, Any]] = []
        for agent in getattr(self.crew, "agents", None) or []:
            for tool in getattr(agent, "tools", None) or []:
                name = getattr(tool, "name", None)
                spec = self.govern.get(name) if isinstance(name, str) else None
                if spec is None or "_run" in vars(tool):
                    continue
                original = tool._run
                object.__setattr__(tool, "_run", _governed(ctx, tool.name, original, spec))
                patched.append((tool, original))

        def undo() -> None:
            for tool, _original in patched:
                vars(tool).pop("_run", None)

        return undo


def _kickoff(crew: Any, inputs: dict[str, Any], restore: Callable[[], None]) -> Any:
    """``crew.kickoff`` on the worker thread, then the crew's own tools and callbacks put back.

    Put back here, when the crew has stopped, not when the episode ends: a cancelled or timed-out episode cannot
    stop this thread, and a crew still running must not find its governed tools ungoverned (they would run with
    no decision); their calls are refused instead, the episode being over.
    """
    try:
        return crew.kickoff(inputs=inputs)
    finally:
        restore()


def _governed(ctx: Any, name: str, original: Callable[..., Any], spec: dict[str, str]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:  # CrewAI calls tools from the kickoff worker thread
        try:
            out = ctx.tool(
                tool_name("crewai", name),  # a CrewAI name may hold blanks ("Search the internet"), a tool's may not
                {"args": list(args), "kwargs": kwargs},
                protocol="python",
                fn=original,
                effect=spec.get("effect", "write"),
                risk=spec.get("risk", "high"),
                requires_approval=True,
            )
        except ToolRejected as exc:
            return f"The tool call was rejected by a human reviewer: {exc.reason or 'no reason given'}"
        return out.get("result") if isinstance(out, dict) else out

    return run


def _emit(ctx: Any, item: Any) -> None:
    try:
        emit_row(ctx, item)
    except EpisodeStateError:
        pass


def _step_row(step: Any) -> Any:
    kind = type(step).__name__
    if hasattr(step, "tool") and hasattr(step, "tool_input"):
        return row(
            PHASE,
            "crewai",
            "agent_action",
            "tool_call",
            tool=str(step.tool),
            args=str(step.tool_input),
            thought=getattr(step, "thought", None),
            result=getattr(step, "result", None),
        )
    if kind == "ToolResult":
        return row(PHASE, "crewai", "tool_result", "tool_result", content=str(getattr(step, "result", "")))
    if hasattr(step, "output") and kind.endswith("Finish"):
        return row(
            PHASE,
            "crewai",
            "agent_finish",
            "message",
            role="assistant",
            text=str(step.output),
            thought=getattr(step, "thought", None),
        )
    return row(PHASE, "crewai", "step", "custom", type=kind, value=str(step)[:2000])


def _usage(result: Any, crew: Any) -> Any:
    metrics = getattr(result, "token_usage", None)
    if metrics is None or not getattr(metrics, "successful_requests", 0):
        return None  # CrewAI reports zeros when it tracked nothing: that is "unknown", not 0
    models = {str(getattr(getattr(a, "llm", None), "model", "")) for a in getattr(crew, "agents", None) or []} - {""}
    return usage_row(
        "crewai",
        model=models.pop() if len(models) == 1 else None,
        input_tokens=metrics.prompt_tokens,
        output_tokens=metrics.completion_tokens,
        cached_input_tokens=metrics.cached_prompt_tokens,
        cache_write_input_tokens=getattr(metrics, "cache_creation_tokens", None),
        reasoning_tokens=getattr(metrics, "reasoning_tokens", None),
        requests=metrics.successful_requests,
        scope="crew_total",
    )
