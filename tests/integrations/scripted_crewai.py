"""A scripted, offline CrewAI LLM and a one-agent crew (import only where crewai is installed)."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM
from crewai.tools import BaseTool


class ScriptedLLM(BaseLLM):
    """Answers from ``replies``: strings, or callables of the message list. Optionally reports usage per call."""

    replies: list[Any] = []
    usage: dict[str, int] | None = None
    calls: int = 0

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> Any:
        reply = self.replies[min(self.calls, len(self.replies) - 1)]
        self.calls += 1
        if self.usage:
            self._track_token_usage_internal(dict(self.usage))
        return reply(messages) if callable(reply) else reply

    def supports_function_calling(self) -> bool:
        return False


class DeleteFile(BaseTool):
    name: str = "delete_file"
    description: str = "Delete a file by path."

    def _run(self, path: str) -> str:
        return f"deleted {path}"


def all_text(messages: Any) -> str:
    return "\n".join(str(m.get("content")) for m in messages) if isinstance(messages, list) else str(messages)


def task_of(messages: Any) -> str:
    found = re.search(r"Do: (.+)", all_text(messages))
    return found.group(1).strip() if found else "?"


def decision(messages: Any) -> str:
    text = all_text(messages)
    found = re.search(r"rejected by a human reviewer: ([^\n]+)", text)
    if found:
        return f"Thought: ok\nFinal Answer: rejected: {found.group(1).strip()}"
    return "Thought: ok\nFinal Answer: approved: deleted x.txt" if "deleted x.txt" in text else "Final Answer: ?"


def crew(replies: list[Any], *, usage: dict[str, int] | None = None, tools: bool = False) -> Crew:
    llm = ScriptedLLM(model="scripted-crew-llm", replies=replies, usage=usage)
    agent = Agent(
        role="clerk",
        goal="do the task",
        backstory="a careful clerk",
        llm=llm,
        tools=[DeleteFile()] if tools else [],
        allow_delegation=False,
        max_iter=4,
    )
    return Crew(agents=[agent], tasks=[Task(description="Do: {task}", expected_output="one line", agent=agent)])


TOOL_REPLIES: list[Any] = ['Thought: I must delete it\nAction: delete_file\nAction Input: {"path": "x.txt"}', decision]


def blocking(event: threading.Event) -> Callable[[Any], str]:
    def wait(messages: Any) -> str:
        event.wait(30)
        return "Final Answer: released"

    return wait
