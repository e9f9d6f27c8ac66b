"""LangGraph: real ``StateGraph``s, no LLM (a LangChain fake chat model where usage is needed)."""

from __future__ import annotations

import asyncio
import operator
import sys
import time
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from noesis_nb.integrations import MissingExtraError
from noesis_nb.integrations.langgraph import LangGraphAdapter, LangGraphResumeError
from noesis_nb.store import verify_manifest

from .helpers import disk_events, from_source, names, run, run_tags


class State(TypedDict, total=False):
    task: str
    answer: str


class Steered(TypedDict, total=False):
    task: str
    answer: str
    messages: Annotated[list, operator.add]


def graph(*nodes, checkpointer=True):
    builder = StateGraph(State)
    previous = START
    for node in nodes:
        builder.add_node(node.__name__, node)
        builder.add_edge(previous, node.__name__)
        previous = node.__name__
    builder.add_edge(previous, END)
    return builder.compile(checkpointer=InMemorySaver() if checkpointer else None)


def review(state):
    decision = interrupt({"tool": "delete_file", "args": {"path": "x.txt"}})
    return {"answer": "deleted" if decision["approved"] else f"kept: {decision.get('reason')}"}


def test_sync_graph_runs_through_invoke_with_noesis_input_mapping(runs_dir):
    def shout(state):
        return {"answer": state["task"].upper()}

    g = graph(shout, checkpointer=False)
    g.__noesis_input_mapper__ = lambda task: {"task": task}
    handle, _ = run("hello", LangGraphAdapter(g), runs_dir)
    assert handle.status == "ok" and handle.result() == {"task": "hello", "answer": "HELLO"}
    rows = [e["payload"] for e in from_source(disk_events(handle), "langgraph")]
    assert [(r["kind"], r["node"]) for r in rows] == [("step_started", "shout"), ("step_finished", "shout")]
    assert run_tags(handle) == {"source": "langgraph"}


@pytest.mark.parametrize("decide, answer", [("approve", "deleted"), ("reject", "kept: not now")])
def test_interrupt_is_a_pending_approval_and_the_decision_resumes(runs_dir, decide, answer):
    handle, pending = run(
        "clean", LangGraphAdapter(graph(review), input_mapper=lambda t: {"task": t}), runs_dir, decide=decide, reason="not now"
    )
    assert handle.status == "ok" and handle.result()["answer"] == answer
    assert len(pending) == 1 and pending[0].tool == "langgraph.delete_file"
    assert pending[0].redacted_payload["kwargs"]["value"] == {"tool": "delete_file", "args": {"path": "x.txt"}}
    kinds = [e["payload"]["kind"] for e in from_source(disk_events(handle), "langgraph")]
    assert kinds == ["step_started", "approval_requested", "approval_resolved", "step_started", "step_finished"]
    assert verify_manifest(handle.run_dir).ok


def test_async_graph_runs_through_ainvoke_and_interrupts(runs_dir):
    async def areview(state):
        await asyncio.sleep(0)
        return review(state)

    adapter = LangGraphAdapter(graph(areview), input_mapper=lambda t: {"task": t})
    assert adapter.use_async is True
    handle, pending = run("clean", adapter, runs_dir, decide="approve")
    assert handle.result()["answer"] == "deleted" and len(pending) == 1


def test_two_interrupts_resume_with_an_id_keyed_map(runs_dir):
    def both(state):
        first = interrupt({"action": "first"})
        second = interrupt({"action": "second"})
        return {"answer": f"{first['approved']}/{second['approved']}"}

    handle, pending = run("x", LangGraphAdapter(graph(both), input_mapper=lambda t: {"task": t}), runs_dir, decide="approve")
    assert handle.result()["answer"] == "True/True" and [p.tool for p in pending] == ["langgraph.first", "langgraph.second"]


def test_model_usage_from_a_chat_model_inside_a_node(runs_dir):
    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(
                    content="hi",
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

    def think(state):
        return {"answer": model.invoke(state["task"]).content}

    handle, _ = run("x", LangGraphAdapter(graph(think), input_mapper=lambda t: {"task": t}), runs_dir)
    [usage] = [e["payload"] for e in disk_events(handle) if e["phase"] == "model"]
    assert (usage["input_tokens"], usage["cached_input_tokens"], usage["output_tokens"]) == (120, 100, 20)
    assert usage["cache_write_input_tokens"] is None and usage["reasoning_tokens"] is None and usage["source"] == "langgraph"


def test_node_error_fails_the_episode_and_is_on_the_timeline(runs_dir):
    def broken(state):
        raise RuntimeError("node broke")

    handle, _ = run("x", LangGraphAdapter(graph(broken), input_mapper=lambda t: {"task": t}), runs_dir)
    assert handle.status == "error" and "langgraph.node_error" in names(disk_events(handle))
    with pytest.raises(RuntimeError, match="node broke"):
        handle.result()


def test_a_dict_state_given_the_task_as_text_says_which_input_mapper_to_write(runs_dir):
    """No input mapper: the task reaches the graph as text (Noēsis' rule), which a dict state refuses with LangGraph's
    "Expected dict, got <task>"; the run's error names the fix and the state's keys."""

    def shout(state):
        return {"answer": state["task"].upper()}

    handle, _ = run("order 1042 refund", LangGraphAdapter(graph(shout, checkpointer=False)), runs_dir)
    assert handle.status == "error"
    with pytest.raises(Exception, match=r"input_mapper=lambda task: \{\"task\": task\}") as raised:
        handle.result()
    assert "'answer'" in str(raised.value) and "order 1042 refund" in str(raised.value)


class Asked(TypedDict):
    question: str


class Answered(TypedDict, total=False):
    task: str
    question: str
    answer: str


def test_the_hint_names_the_graphs_input_schema_not_its_state(runs_dir):
    def answer(state):
        return {"answer": state["question"].upper()}

    builder = StateGraph(Answered, input_schema=Asked)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    handle, _ = run("why", LangGraphAdapter(builder.compile()), runs_dir)
    with pytest.raises(Exception, match=r"input_mapper=lambda task: \{\"question\": task\}"):
        handle.result()
    fixed = LangGraphAdapter(builder.compile(), input_mapper=lambda task: {"question": task})  # the hint, followed
    handle, _ = run("why", fixed, runs_dir)
    assert handle.status == "ok" and handle.result()["answer"] == "WHY"


def test_a_nodes_own_bad_return_keeps_langgraphs_message(runs_dir):
    def wrong(state):
        return "not a dict"  # the node's fault, not the task's

    handle, _ = run("x", LangGraphAdapter(graph(wrong, checkpointer=False), input_mapper=lambda t: {"task": t}), runs_dir)
    with pytest.raises(Exception, match="Expected dict, got not a dict") as raised:
        handle.result()
    assert "input_mapper" not in str(raised.value)


def test_interrupt_without_checkpointer_says_how_to_fix(runs_dir):
    handle, _ = run("x", LangGraphAdapter(graph(review, checkpointer=False), input_mapper=lambda t: {"task": t}), runs_dir)
    with pytest.raises(LangGraphResumeError, match="checkpointer=InMemorySaver"):
        handle.result()


def test_errors_name_the_value(monkeypatch):
    with pytest.raises(TypeError, match="has no invoke"):
        LangGraphAdapter(object())
    monkeypatch.setitem(sys.modules, "langgraph.types", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'noesis_nb\[langgraph\]'"):
        LangGraphAdapter(graph(review))


def test_a_steer_sent_while_the_graph_ran_reaches_it_as_a_state_update_on_resume(runs_dir):
    def slow_then_ask(state):
        time.sleep(0.3)  # the steer is sent meanwhile
        interrupt({"tool": "deploy"})
        told = [m["content"] for m in state.get("messages") or []]
        return {"answer": f"deployed; told: {told}"}

    builder = StateGraph(Steered)
    builder.add_node("slow_then_ask", slow_then_ask)
    builder.add_edge(START, "slow_then_ask")
    builder.add_edge("slow_then_ask", END)
    g = builder.compile(checkpointer=InMemorySaver())

    async def main():
        import noesis_nb

        handle = noesis_nb.start("deploy", using=LangGraphAdapter(g, input_mapper=lambda t: {"task": t}), runs_dir=runs_dir)
        await asyncio.sleep(0.1)
        handle.steer("use staging")
        await handle  # paused at the interrupt
        handle.approve()
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result()["answer"] == "deployed; told: ['use staging']"
    assert names(disk_events(handle)).count("steer.applied") == 1
