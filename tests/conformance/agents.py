"""Per adapter kind, an agent showing the behaviour a conformance case asks for.

``build(kind, behaviour, env)`` returns a :class:`Built`: the ``using=`` object, the source its
events must carry (None for the engine's plain adapters), and ``release`` to unblock a hanging
agent's thread after the case (so the test's loop can close).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from noesis_nb.errors import ToolRejected

HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(1)>"


@dataclass
class Built:
    using: Any
    source: str | None
    gate: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.gate.set()


async def awaited(value: Any) -> str:
    await asyncio.sleep(0)
    return f"awaited {value}"


def delete_file(path: str) -> str:
    return f"deleted {path}"


# -- the engine's own adapter shapes ------------------------------------------------------------
def _sync_fn(behaviour: str, gate: threading.Event) -> Callable[..., Any]:
    if behaviour == "answer":
        return lambda task: "hello from a function"
    if behaviour == "raise":

        def fail(task):
            raise RuntimeError("boom")

        return fail
    if behaviour == "awaitable":
        return lambda task: awaited("hello")
    if behaviour == "echo":

        def echo(task):
            return f"you said {task}"

        echo.__noesis_input_mapper__ = str.upper
        return echo
    if behaviour == "tool":

        def tool(task, ctx):
            try:
                out = ctx.tool(
                    "fs.delete_file",
                    {"args": ["x.txt"], "kwargs": {}},
                    protocol="python",
                    fn=delete_file,
                    effect="write",
                    risk="high",
                    requires_approval=True,
                )
            except ToolRejected as exc:
                return f"rejected: {exc.reason}"
            return f"approved: {out['result']}"

        return tool
    if behaviour == "usage":

        def usage(task, ctx):
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=120, cached_input_tokens=100, output_tokens=20)
            return "counted"

        return usage
    if behaviour == "hang":

        def hang(task):
            gate.wait(30)
            return "released"

        return hang
    if behaviour == "hostile":

        def hostile(task, ctx):
            ctx.emit("message", {"event_name": "test.message", "kind": "message", "text": HOSTILE, "source": "test"})
            return HOSTILE

        return hostile
    raise ValueError(behaviour)


def _async_fn(behaviour: str, gate: threading.Event) -> Callable[..., Any]:
    sync = _sync_fn(behaviour, gate)
    if behaviour == "tool":

        async def tool(task, ctx):
            try:
                out = await ctx.tool_async(
                    "fs.delete_file",
                    {"args": ["x.txt"], "kwargs": {}},
                    protocol="python",
                    fn=delete_file,
                    effect="write",
                    risk="high",
                    requires_approval=True,
                )
            except ToolRejected as exc:
                return f"rejected: {exc.reason}"
            return f"approved: {out['result']}"

        return tool
    if behaviour == "hang":

        async def hang(task):
            await asyncio.sleep(3600)

        return hang
    if behaviour in ("usage", "hostile"):

        async def with_ctx(task, ctx):
            return sync(task, ctx)

        return with_ctx

    async def plain(task):
        return sync(task)

    plain.__noesis_input_mapper__ = getattr(sync, "__noesis_input_mapper__", None)
    return plain


def _object(behaviour: str, gate: threading.Event) -> Any:
    fn = _sync_fn(behaviour, gate)
    wants_ctx = fn.__code__.co_argcount == 2

    class Agent:
        __noesis_input_mapper__ = staticmethod(fn.__noesis_input_mapper__) if hasattr(fn, "__noesis_input_mapper__") else None

        if wants_ctx:

            def invoke(self, task, ctx):
                return fn(task, ctx)
        else:

            def invoke(self, task):
                return fn(task)

    return Agent()


# -- integrations -----------------------------------------------------------------------------
def _agui(behaviour: str, env: Any, http: bool) -> Any:
    from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent
    from tests.integrations.scripted_agui import ScriptedAGUIAgent

    script = {"awaitable": "answer"}.get(behaviour, behaviour)
    agent = AGUIHttpAgent(env.server.url(f"agent/{script}")) if http else ScriptedAGUIAgent(script)
    return AGUIAdapter(
        agent, output=awaited if behaviour == "awaitable" else None, input_mapper=str.upper if behaviour == "echo" else None
    )


def _noeta(behaviour: str, env: Any, gate: threading.Event) -> Any:
    from noeta.sdk import LLMResponse, Options, TextBlock, ToolResult, ToolUseBlock, Usage, tool
    from noeta.sdk.testing import FakeLLMProvider

    from noesis_nb.integrations.noeta import NoetaAdapter

    def say(text: str, usage: Any = None) -> Any:
        return LLMResponse(stop_reason="end_turn", content=[TextBlock(text=text)], usage=usage or Usage(uncached=1, output=1))

    calls: list[Any] = []

    def respond(request: Any) -> Any:
        calls.append(request)
        seen = repr(request.messages)
        if behaviour == "raise":
            raise RuntimeError("boom")
        if behaviour == "hang":
            gate.wait(30)
            return say("released")
        if behaviour == "echo":
            goal = [b.text for m in request.messages if m.role == "user" for b in m.content if hasattr(b, "text")][-1]
            return say(f"you said {goal}")
        if behaviour == "tool" and len(calls) == 1:
            return LLMResponse(
                stop_reason="tool_use",
                usage=Usage(uncached=1, output=1),
                content=[ToolUseBlock(call_id="d1", tool_name="delete_file", arguments={"path": "x.txt"})],
            )
        if behaviour == "tool":
            return say("rejected: not today" if "not today" in seen else "approved: deleted x.txt")
        if behaviour == "usage":
            return say("counted", Usage(uncached=20, cache_read=100, output=20))
        return say(HOSTILE if behaviour == "hostile" else "hello from noeta")

    @tool(
        name="delete_file",
        version="1",
        risk_level="high",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    )
    def delete(arguments: Any, ctx: Any) -> Any:
        return ToolResult(success=True, output=delete_file(arguments["path"]))

    options = Options(system_prompt="You help.", name="conformance", allowed_tools=(delete,), permission_mode="default")
    return NoetaAdapter(
        options,
        provider=FakeLLMProvider(responder=respond),
        model="claude-sonnet-5",
        workspace_dir=env.tmp_path,
        output=awaited if behaviour == "awaitable" else None,
        input_mapper=str.upper if behaviour == "echo" else None,
    )


def _langgraph(behaviour: str, gate: threading.Event, use_async: bool) -> Any:
    from typing import TypedDict

    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import interrupt

    from noesis_nb.integrations.langgraph import LangGraphAdapter

    class State(TypedDict, total=False):
        task: str
        answer: str

    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(
                    content="counted",
                    usage_metadata={
                        "input_tokens": 120,
                        "output_tokens": 20,
                        "total_tokens": 140,
                        "input_token_details": {"cache_read": 100},
                    },
                )
            ]
        )
    )

    def step(state: Any) -> Any:
        if behaviour == "raise":
            raise RuntimeError("boom")
        if behaviour == "hang":
            gate.wait(30)
        if behaviour == "echo":
            return {"answer": f"you said {state['task']}"}
        if behaviour == "tool":
            decision = interrupt({"tool": "delete_file", "args": {"path": "x.txt"}})
            return {"answer": "approved: deleted x.txt" if decision["approved"] else f"rejected: {decision.get('reason')}"}
        if behaviour == "usage":
            return {"answer": model.invoke(state["task"]).content}
        return {"answer": HOSTILE if behaviour == "hostile" else "hello from langgraph"}

    async def astep(state: Any) -> Any:
        if behaviour == "hang":
            await asyncio.sleep(3600)
        if behaviour == "usage":
            return {"answer": (await model.ainvoke(state["task"])).content}
        return step(state)

    builder = StateGraph(State)
    builder.add_node("step", astep if use_async else step)
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    mapper = (lambda t: {"task": t.upper()}) if behaviour == "echo" else (lambda t: {"task": t})
    return LangGraphAdapter(
        builder.compile(checkpointer=InMemorySaver()), input_mapper=mapper, output=awaited if behaviour == "awaitable" else None
    )


def _crewai(behaviour: str, gate: threading.Event) -> Any:
    from noesis_nb.integrations.crewai import CrewAIAdapter
    from tests.integrations.scripted_crewai import TOOL_REPLIES, blocking, crew, task_of

    def fail(messages: Any) -> str:
        raise RuntimeError("boom")

    if behaviour == "tool":
        return CrewAIAdapter(crew(TOOL_REPLIES, tools=True), govern_tools=["delete_file"])
    if behaviour == "echo":
        return CrewAIAdapter(crew([lambda m: f"Final Answer: you said {task_of(m)}"]), input_mapper=lambda t: {"task": t.upper()})
    usage = {"prompt_tokens": 120, "completion_tokens": 20, "cached_prompt_tokens": 100, "total_tokens": 140}
    replies = {
        "raise": [fail],
        "hang": [blocking(gate)],
        "hostile": [f"Final Answer: {HOSTILE}"],
        "usage": ["Final Answer: counted"],
    }.get(behaviour, ["Final Answer: hello from crewai"])
    return CrewAIAdapter(
        crew(replies, usage=usage if behaviour == "usage" else None),
        output=(lambda out: awaited(out.raw)) if behaviour == "awaitable" else None,
    )


def _blocking_after(first: list[Any], gate: threading.Event) -> Any:
    yield from first
    gate.wait(30)


def _noetic(behaviour: str, gate: threading.Event) -> Any:
    from noesis_nb.integrations.noetic import noetic_replay

    def turn(text: str) -> list[dict[str, Any]]:
        return [
            {"source": "framework", "type": "bot:turn_started", "data": {"turnId": "t1"}},
            {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": text}},
            {"source": "framework", "type": "bot:turn_completed", "data": {"turnId": "t1", "durationMs": 5}},
        ]

    if behaviour == "raise":
        log: Any = [turn("x")[0], {"source": "framework", "type": "bot:turn_aborted", "data": {"turnId": "t1", "reason": "boom"}}]
    elif behaviour == "hang":
        log = _blocking_after(turn("x")[:1], gate)
    else:
        log = [json.dumps(e) for e in turn(HOSTILE if behaviour == "hostile" else "hello from noetic")]
    harness = {"usage": {"inputTokens": 120, "outputTokens": 20, "cachedTokens": 100}} if behaviour == "usage" else None
    return noetic_replay(log, harness, output=awaited if behaviour == "awaitable" else None)


def _taisce(behaviour: str, gate: threading.Event) -> Any:
    from noesis_nb.integrations.taisce import MEMORY_PREFIX, taisce_replay

    memory = {
        "role": "user",
        "name": "taisce",
        "content": MEMORY_PREFIX + "\n" + json.dumps({"watermark": {"stored": 1}, "facts": []}),
    }
    said = [
        memory,
        {"role": "user", "content": "say hello"},
        {"role": "assistant", "content": HOSTILE if behaviour == "hostile" else "hello from taisce"},
    ]

    def failing() -> Any:
        yield said[0]
        raise RuntimeError("boom")

    source = {"raise": failing, "hang": lambda: _blocking_after(said[:1], gate)}.get(behaviour, lambda: said)
    return taisce_replay(source, output=awaited if behaviour == "awaitable" else None)


KINDS: dict[str, tuple[tuple[str, ...], str | None]] = {  # kind → (modules it needs, source tag)
    "function": ((), None),
    "object": ((), None),
    "async": ((), None),
    "agui": (("ag_ui.core",), "agui"),
    "agui_http": (("ag_ui.core", "httpx"), "agui"),
    "noeta": (("noeta.sdk",), "noeta"),
    "langgraph": (("langgraph",), "langgraph"),
    "langgraph_async": (("langgraph",), "langgraph"),
    "crewai": (("crewai",), "crewai"),
    "noetic": ((), "noetic"),
    "taisce": ((), "taisce"),
}


def build(kind: str, behaviour: str, env: Any) -> Built:
    built = Built(using=None, source=KINDS[kind][1])
    gate = built.gate
    built.using = {
        "function": lambda: _sync_fn(behaviour, gate),
        "object": lambda: _object(behaviour, gate),
        "async": lambda: _async_fn(behaviour, gate),
        "agui": lambda: _agui(behaviour, env, http=False),
        "agui_http": lambda: _agui(behaviour, env, http=True),
        "noeta": lambda: _noeta(behaviour, env, gate),
        "langgraph": lambda: _langgraph(behaviour, gate, use_async=False),
        "langgraph_async": lambda: _langgraph(behaviour, gate, use_async=True),
        "crewai": lambda: _crewai(behaviour, gate),
        "noetic": lambda: _noetic(behaviour, gate),
        "taisce": lambda: _taisce(behaviour, gate),
    }[kind]()
    return built
