"""A CrewAI crew as an episode, offline: a scripted LLM, and a governed tool that needs approval."""

import asyncio
import os

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

try:
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM
    from crewai.tools import BaseTool
except ImportError as exc:  # CrewAI is heavy: not in the test extra
    raise SystemExit(f"This example needs CrewAI ({exc}). Install it with: pip install 'noesis_nb[crewai]'") from None

from noesis_nb.integrations import start
from noesis_nb.integrations.crewai import CrewAIAdapter


class ScriptedLLM(BaseLLM):
    """Replies in order; the last reply reports what the tool observation said."""

    calls: int = 0

    def call(
        self, messages, tools=None, callbacks=None, available_functions=None, from_task=None, from_agent=None, response_model=None
    ):
        self.calls += 1
        self._track_token_usage_internal({"prompt_tokens": 300, "completion_tokens": 25, "cached_prompt_tokens": 200})
        if self.calls == 1:
            return 'Thought: archive it\nAction: archive_ticket\nAction Input: {"ticket": "T-7"}'
        seen = "\n".join(str(m.get("content")) for m in messages)
        return "Thought: done\nFinal Answer: " + ("archived T-7" if "archived T-7" in seen else "left T-7 open")

    def supports_function_calling(self):
        return False


class ArchiveTicket(BaseTool):
    name: str = "archive_ticket"
    description: str = "Archive a support ticket."

    def _run(self, ticket: str) -> str:
        return f"archived {ticket}"


agent = Agent(
    role="support clerk",
    goal="keep the queue tidy",
    backstory="careful",
    llm=ScriptedLLM(model="scripted"),
    tools=[ArchiveTicket()],
    allow_delegation=False,
)
crew = Crew(agents=[agent], tasks=[Task(description="{task}", expected_output="one line", agent=agent)])


async def main():
    handle = start("tidy ticket T-7", using=CrewAIAdapter(crew, govern_tools=["archive_ticket"]), runs_dir="runs", approver="ask")
    await handle
    print(handle.status, [(p.tool, p.redacted_payload["kwargs"]) for p in handle.pending])
    handle.approve()
    await handle.wait()
    print(handle.status, handle.result(), handle.usage)


if __name__ == "__main__":
    asyncio.run(main())
