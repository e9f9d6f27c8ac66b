"""CrewAI: a crew still running after its episode was cancelled must not find its governed tools ungoverned.

A duck-typed crew (``kickoff``, callbacks, agents with tools), so this runs without crewai installed.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import noesis_nb.integrations.crewai._adapter as crewai_adapter
from noesis_nb.errors import EpisodeStateError
from noesis_nb.integrations import start


class _DeleteFile:
    name = "delete_file"

    def __init__(self) -> None:
        self.deleted: list[str] = []

    def _run(self, path: str) -> str:
        self.deleted.append(path)
        return f"deleted {path}"


class _Agent:
    def __init__(self) -> None:
        self.tools = [_DeleteFile()]


class _SlowCrew:
    """Calls its tool only once ``go`` is set, as a crew still thinking when its episode is cancelled."""

    def __init__(self) -> None:
        self.agents = [_Agent()]
        self.step_callback: Any = None
        self.task_callback: Any = None
        self.go, self.done = threading.Event(), threading.Event()
        self.error: BaseException | None = None

    def kickoff(self, inputs: dict[str, Any]) -> Any:
        try:
            self.go.wait(10)
            return self.agents[0].tools[0]._run(path="x.txt")
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self.done.set()


def test_a_governed_tool_called_after_the_episode_was_cancelled_is_refused_not_run(monkeypatch, runs_dir):
    monkeypatch.setattr(crewai_adapter, "require", lambda *args: None)
    crew = _SlowCrew()
    callbacks = (crew.step_callback, crew.task_callback)

    async def main() -> Any:
        handle = start("delete x.txt", using=crewai_adapter.CrewAIAdapter(crew, govern_tools=["delete_file"]), runs_dir=runs_dir)
        await asyncio.sleep(0.3)
        cancelled = handle.cancel()
        if asyncio.iscoroutine(cancelled):
            await cancelled
        await asyncio.wait_for(handle.wait(), 10)
        crew.go.set()  # the crew, still running on its thread, now calls the tool
        assert await asyncio.to_thread(crew.done.wait, 10)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "cancelled"
    tool = crew.agents[0].tools[0]
    assert tool.deleted == [], "the governed tool ran with no decision after its episode ended"
    assert isinstance(crew.error, EpisodeStateError)
    assert "_run" not in vars(tool) and (crew.step_callback, crew.task_callback) == callbacks  # put back once it stopped
