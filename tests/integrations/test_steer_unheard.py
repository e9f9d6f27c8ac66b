"""A steer that could never be heard is not accepted in silence: an adapter known to take none (Noeta; a LangGraph
graph with no state key for steers) refuses ``handle.steer`` saying what to do; one that could take it but did not
(an AG-UI run that never interrupts) ends with each steer written ``steer.unheard`` and named in ``handle.problems``.
They were written ``steer.sent`` and then nothing, the episode ending ok with no problem."""

from __future__ import annotations

import asyncio
import tempfile
import threading
from pathlib import Path
from typing import Any, TypedDict

import pytest

from noesis_nb.errors import UnsupportedFeatureError
from noesis_nb.integrations import start
from noesis_nb.store import read_events
from noesis_nb.store.vocab import STEER_APPLIED, STEER_SENT, STEER_UNHEARD
from noesis_nb.widgets.steps import StepBook
from tests.compat.checker import check_run


def _steer_names(run_dir: Any) -> list[str]:
    return [e["payload"]["event_name"] for e in read_events(Path(run_dir) / "events.jsonl") if e.get("phase") == "steer"]


def test_a_noeta_episode_refuses_a_steer_and_says_what_to_do(runs_dir: Path) -> None:
    sdk = pytest.importorskip("noeta.sdk")
    from noeta.sdk.testing import FakeLLMProvider

    from noesis_nb.integrations.noeta import NoetaAdapter

    reply = sdk.LLMResponse(stop_reason="end_turn", content=[sdk.TextBlock(text="done")], usage=sdk.Usage(uncached=3, output=1))
    options = sdk.Options(system_prompt="x", name="n", allowed_tools=(), permission_mode="default")
    adapter = NoetaAdapter(options, provider=FakeLLMProvider(responses=[reply]), model="m", workspace_dir=tempfile.mkdtemp())

    async def main() -> Any:
        handle = start("say done", using=adapter, runs_dir=runs_dir)
        assert not handle.can_steer  # the view's Send box is not offered
        with pytest.raises(
            UnsupportedFeatureError, match=r"NoetaAdapter, which takes no steers.*put the instruction in the task"
        ):
            handle.steer("use staging")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and _steer_names(handle.run_dir) == []


class _State(TypedDict, total=False):
    task: str
    out: str


def _graph() -> Any:
    pytest.importorskip("langgraph")
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(_State)
    builder.add_node("work", lambda state: {"out": "x"})
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    return builder.compile()


def test_a_langgraph_graph_without_a_key_for_steers_refuses_one(runs_dir: Path) -> None:
    from noesis_nb.integrations.langgraph import LangGraphAdapter

    async def main() -> Any:
        handle = start("t", using=LangGraphAdapter(_graph(), input_mapper=lambda t: {"task": t}), runs_dir=runs_dir)
        with pytest.raises(UnsupportedFeatureError, match=r"LangGraphAdapter, which takes no steers.*steer_key="):
            handle.steer("use staging")
        await handle.wait()
        return handle

    assert asyncio.run(main()).status == "ok"


def test_a_steer_an_agui_run_never_took_is_written_unheard_and_named_in_problems(runs_dir: Path) -> None:
    pytest.importorskip("ag_ui.core")
    from noesis_nb.integrations.agui import AGUIAdapter

    sent = threading.Event()

    async def agent(run_input: Any) -> Any:
        yield {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
        while not sent.is_set():  # the steer is sent while the run goes on, and the run ends without an interrupt
            await asyncio.sleep(0.01)
        yield {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}

    async def main() -> Any:
        handle = start("t", using=AGUIAdapter(agent), runs_dir=runs_dir)
        await asyncio.sleep(0.05)  # the run under way
        steer = handle.steer("use staging")
        sent.set()
        await handle.wait()
        return handle, steer

    handle, steer = asyncio.run(main())
    assert handle.status == "ok"
    assert _steer_names(handle.run_dir) == [STEER_SENT, STEER_UNHEARD]
    assert STEER_APPLIED not in _steer_names(handle.run_dir)
    assert any(steer.steer_id in p and "never heard" in p and "AGUIAdapter" in p for p in handle.problems), handle.problems
    assert check_run(handle.run_dir) == []  # still a run Noēsis's validators accept
    events = read_events(Path(handle.run_dir) / "events.jsonl")
    unheard = next(e for e in events if e["payload"].get("event_name") == STEER_UNHEARD)
    assert unheard["caused_by"] == next(e["id"] for e in events if e["payload"].get("event_name") == STEER_SENT)
    assert events.index(unheard) < next(i for i, e in enumerate(events) if e["phase"] == "terminate")
    book = StepBook()
    book.add(events)
    assert [s.state for s in book.steps if s.kind == "steer"] == ["unheard"]  # not "not heard yet" for ever
