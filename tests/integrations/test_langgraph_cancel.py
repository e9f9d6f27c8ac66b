"""A sync LangGraph graph runs in a worker thread (``invoke``), which a cancel cannot interrupt: the episode ended
``cancelled`` while the graph went on running its next nodes and their side effects. Now the cancel stops the
graph at its next node (or tool, or model call) boundary; the node already running finishes."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph

import noesis_nb
from noesis_nb.integrations.langgraph import LangGraphAdapter


class State(TypedDict, total=False):
    task: str
    answer: str


def _chain(*nodes: Any) -> Any:
    builder = StateGraph(State)
    previous = START
    for node in nodes:
        builder.add_node(node.__name__, node)
        builder.add_edge(previous, node.__name__)
        previous = node.__name__
    builder.add_edge(previous, END)
    return builder.compile()


def _cancel_while(first_running: threading.Event, release: threading.Event, graph: Any, runs_dir: Path) -> Any:
    """Start the graph, cancel the episode while its first node runs, then let that node finish."""

    async def main() -> Any:
        adapter = LangGraphAdapter(graph, use_async=False, input_mapper=lambda t: {"task": t})
        handle = noesis_nb.start("go", using=adapter, runs_dir=runs_dir)
        assert await asyncio.to_thread(first_running.wait, 30), (handle.status, handle.error)
        handle.cancel()
        await handle.wait()
        release.set()  # the running node returns only now, after the episode has ended
        return handle

    return asyncio.run(main())  # which returns once the worker thread is done (it joins the default executor)


def test_a_cancelled_sync_graph_runs_no_further_node(runs_dir: Path, tmp_path: Path) -> None:
    effects = tmp_path / "effects.txt"
    first_running, release, finished = threading.Event(), threading.Event(), threading.Event()

    def first(state: State) -> State:
        first_running.set()
        release.wait(30)
        finished.set()
        return {"answer": "first"}

    def second(state: State) -> State:
        with effects.open("a") as f:
            f.write("second ran\n")
        return {"answer": "second"}

    def third(state: State) -> State:
        with effects.open("a") as f:
            f.write("third ran\n")
        return {"answer": "third"}

    handle = _cancel_while(first_running, release, _chain(first, second, third), runs_dir)
    assert handle.status == "cancelled"
    assert finished.wait(30)  # the node in flight was let finish
    assert not effects.exists(), effects.read_text()


def test_a_cancelled_sync_graph_calls_no_further_tool(runs_dir: Path, tmp_path: Path) -> None:
    effects = tmp_path / "effects.txt"
    first_running, release, done = threading.Event(), threading.Event(), threading.Event()

    @tool
    def write_file(text: str) -> str:
        """Append text to the effects file."""
        with effects.open("a") as f:
            f.write(text + "\n")
        return "written"

    def node(state: State, config: RunnableConfig) -> State:
        first_running.set()
        release.wait(30)
        try:
            write_file.invoke({"text": "after the cancel"}, config)
        finally:
            done.set()
        return {"answer": "wrote"}

    handle = _cancel_while(first_running, release, _chain(node), runs_dir)
    assert handle.status == "cancelled"
    assert done.wait(30)
    assert not effects.exists(), effects.read_text()


def test_a_drained_sync_graph_finishes_its_node_and_starts_no_other(runs_dir: Path, tmp_path: Path) -> None:
    """A graceful stop (``cancel(drain_s=…)``) lets the call in flight finish and starts nothing new: the node
    running finishes, and the graph's next node does not start."""
    effects = tmp_path / "effects.txt"
    first_running, release = threading.Event(), threading.Event()

    def first(state: State) -> State:
        first_running.set()
        release.wait(30)
        with effects.open("a") as f:
            f.write("first finished\n")
        return {"answer": "first"}

    def second(state: State) -> State:
        with effects.open("a") as f:
            f.write("second ran\n")
        return {"answer": "second"}

    async def main() -> Any:
        adapter = LangGraphAdapter(_chain(first, second), use_async=False, input_mapper=lambda t: {"task": t})
        handle = noesis_nb.start("go", using=adapter, runs_dir=runs_dir)
        assert await asyncio.to_thread(first_running.wait, 30), (handle.status, handle.error)
        handle.cancel(drain_s=30)
        release.set()  # the node in flight finishes within the drain
        await asyncio.wait_for(handle.wait(), 60)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled", (handle.status, handle.error)
    assert effects.read_text() == "first finished\n"
