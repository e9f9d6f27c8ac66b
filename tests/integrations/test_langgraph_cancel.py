"""A sync LangGraph graph runs in a worker thread (``invoke``), which a cancel cannot interrupt: the episode ended
``cancelled`` while the graph went on running its next nodes and their side effects. Now the cancel stops the
graph at its next node (or tool, or model call) boundary; the node already running finishes."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool

import noesis_nb
from noesis_nb.integrations.langgraph import LangGraphAdapter

from .test_langgraph import State, graph


def _chain(*nodes: Any) -> Any:
    return graph(*nodes, checkpointer=False)


def _note(effects: Path, text: str) -> None:
    """Append one line to ``effects``: what a node or tool did (nothing there means it never ran)."""
    with effects.open("a") as f:
        f.write(text + "\n")


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
        _note(effects, "second ran")
        return {"answer": "second"}

    def third(state: State) -> State:
        _note(effects, "third ran")
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
        _note(effects, text)
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


def _drain_while(first_running: threading.Event, release: threading.Event, graph: Any, runs_dir: Path, **opts: Any) -> Any:
    """Start the graph, stop it gracefully while its first node runs (``drain_s``), let that node finish, wait."""
    drain_s = opts.pop("drain_s", 60)

    async def main() -> Any:
        adapter = LangGraphAdapter(graph, input_mapper=lambda t: {"task": t}, **opts)
        handle = noesis_nb.start("go", using=adapter, runs_dir=runs_dir)
        assert await asyncio.to_thread(first_running.wait, 30), (handle.status, handle.error)
        handle.cancel(drain_s=drain_s)
        if drain_s >= 1:
            release.set()  # the node in flight finishes within the drain
        await asyncio.wait_for(handle.wait(), 60)
        release.set()
        return handle

    return asyncio.run(main())


def _events(handle: Any) -> list[dict[str, Any]]:
    lines = (Path(handle.run_dir) / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _drain_rows(handle: Any, name: str) -> list[dict[str, Any]]:
    return [e["payload"] for e in _events(handle) if e.get("phase") == "drain" and e["payload"].get("event_name") == name]


@pytest.mark.parametrize("use_async", [False, True])
def test_a_drain_lets_the_node_in_flight_finish_and_refuses_the_next(
    runs_dir: Path, tmp_path: Path, use_async: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """A graceful stop waits for the node running (sync graph in its worker thread, or async graph), then the
    graph's next node is refused at its boundary: the report says the node finished and the next was refused,
    as it says of a tool call an adapter makes through ``ctx.tool``."""
    effects = tmp_path / "effects.txt"
    first_running, release = threading.Event(), threading.Event()

    def first(state: State) -> State:
        first_running.set()
        release.wait(30)
        _note(effects, "first finished")
        return {"answer": "first"}

    async def first_async(state: State) -> State:
        first_running.set()
        await asyncio.to_thread(release.wait, 30)
        _note(effects, "first finished")
        return {"answer": "first"}

    def second(state: State) -> State:
        _note(effects, "second ran")
        return {"answer": "second"}

    async def second_async(state: State) -> State:
        return second(state)

    first_async.__name__, second_async.__name__ = "first", "second"
    graph = _chain(first_async, second_async) if use_async else _chain(first, second)
    handle = _drain_while(first_running, release, graph, runs_dir, use_async=use_async)
    assert handle.status == "cancelled", (handle.status, handle.error)
    assert effects.read_text() == "first finished\n"
    report = handle.drain_report
    assert report is not None and report.reason == "settled", report
    assert [(c["kind"], c["name"], c["status"]) for c in report.finished] == [("node", "first", "ok")]
    assert report.cut_off == []
    [started] = _drain_rows(handle, "drain.started")
    assert [(c["kind"], c["name"]) for c in started["in_flight"]] == [("node", "first")]
    [written] = _drain_rows(handle, "drain.report")
    assert written["finished"][0]["name"] == "first"
    # the node's end is told once the graph reaches its next step: that step's refusal is in the report
    assert report.refused == [{"kind": "node", "name": "second"}]
    assert [(r["kind"], r["name"]) for r in _drain_rows(handle, "drain.refused")] == [("node", "second")]
    assert [e["payload"]["event_name"] for e in _events(handle) if e.get("phase") == "drain"] == [
        "drain.started",
        "drain.refused",
        "drain.report",
    ]
    # LangChain logs a handler's error as a warning: a refusal the graceful stop asked for is not one
    assert not [r for r in caplog.records if "NoesisCallWatch" in r.getMessage()]


def test_a_drain_that_runs_out_says_the_node_was_cut_off(runs_dir: Path, tmp_path: Path) -> None:
    """A node that outlasts ``drain_s`` is reported cut off (still running), and no later node runs."""
    effects = tmp_path / "effects.txt"
    first_running, release = threading.Event(), threading.Event()

    def first(state: State) -> State:
        first_running.set()
        release.wait(30)
        return {"answer": "first"}

    def second(state: State) -> State:
        _note(effects, "second ran")
        return {"answer": "second"}

    handle = _drain_while(first_running, release, _chain(first, second), runs_dir, use_async=False, drain_s=0.2)
    assert handle.status == "cancelled", (handle.status, handle.error)
    report = handle.drain_report
    assert report is not None and report.reason == "deadline", report
    assert [(c["kind"], c["name"]) for c in report.cut_off] == [("node", "first")]
    assert report.finished == []
    assert not effects.exists(), effects.read_text()


def test_a_drain_lets_a_tool_in_flight_finish_and_refuses_the_next_tool(runs_dir: Path, tmp_path: Path) -> None:
    """A LangChain tool running in a node when the drain begins finishes; the node's next tool call is refused
    (``EpisodeStopping``, recorded), so its effect never happens."""
    effects = tmp_path / "effects.txt"
    first_running, release = threading.Event(), threading.Event()

    @tool
    def slow_write(text: str) -> str:
        """Append text to the effects file, slowly."""
        first_running.set()
        release.wait(30)
        _note(effects, text)
        return "written"

    @tool
    def write_file(text: str) -> str:
        """Append text to the effects file."""
        _note(effects, text)
        return "written"

    def node(state: State, config: RunnableConfig) -> State:
        slow_write.invoke({"text": "in flight"}, config)
        write_file.invoke({"text": "after the drain"}, config)
        return {"answer": "wrote"}

    handle = _drain_while(first_running, release, _chain(node), runs_dir, use_async=False)
    assert handle.status == "cancelled", (handle.status, handle.error)
    assert effects.read_text() == "in flight\n"
    report = handle.drain_report
    assert report is not None
    assert ("tool", "slow_write", "ok") in [(c["kind"], c["name"], c["status"]) for c in report.finished]
    assert {"kind": "tool", "name": "write_file"} in report.refused
