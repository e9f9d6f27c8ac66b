"""An integration's user code run off the loop (a Noeta ``client_factory``, a LangGraph node) that raises
``StopIteration`` (``next()`` on an empty iterator) ends its episode ``error`` at once, the StopIteration named:
``asyncio.to_thread`` hands it to a Future that refuses it, and the episode used to wait for it forever. Each run
is on a bounded daemon thread, so a hang fails the test."""

from __future__ import annotations

import asyncio
import operator
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

BOUND_S = 60.0  # each ends in well under a second; a hang is forever


def _empty_pick() -> Any:
    return next(rule for rule in [] if rule)


def _ended(adapter: Any, runs_dir: Path) -> Any:
    from noesis_nb.integrations import start

    async def main() -> Any:
        handle = start("x", using=adapter, runs_dir=runs_dir)
        await handle.wait()
        return handle

    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.update(handle=asyncio.run(main())), daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert not thread.is_alive(), f"still running after {BOUND_S:g} s: the StopIteration was never delivered"
    handle = box["handle"]
    assert handle.status == "error"
    assert "StopIteration" in f"{type(handle.error).__name__}: {handle.error}"
    return handle


def test_a_noeta_client_factory_raising_stop_iteration(tmp_path: Path) -> None:
    pytest.importorskip("noeta.sdk")
    from noesis_nb.integrations.noeta import NoetaAdapter

    _ended(NoetaAdapter(client_factory=_empty_pick), tmp_path)


def test_a_sync_langgraph_node_raising_stop_iteration(tmp_path: Path) -> None:
    pytest.importorskip("langgraph")
    from langgraph.graph import END, START, StateGraph

    from noesis_nb.integrations.langgraph import LangGraphAdapter

    class State(TypedDict, total=False):
        task: str
        answer: Annotated[list[str], operator.add]

    def node(state: State) -> State:
        return {"answer": [_empty_pick()]}

    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    _ended(LangGraphAdapter(builder.compile(), input_mapper=lambda t: {"task": t}), tmp_path)
