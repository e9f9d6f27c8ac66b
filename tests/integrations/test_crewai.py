"""CrewAI: a real ``Crew`` whose LLM is scripted offline (runs only where crewai is installed)."""

from __future__ import annotations

import pytest

pytest.importorskip("crewai")

from noesis_nb.integrations.crewai import CrewAIAdapter

from .helpers import disk_events, from_source, names, run, run_tags
from .scripted_crewai import TOOL_REPLIES, crew, task_of


def test_task_reaches_the_crew_as_task_input(runs_dir):
    handle, _ = run("file the report", CrewAIAdapter(crew([lambda m: f"Thought: ok\nFinal Answer: did {task_of(m)}"])), runs_dir)
    assert handle.status == "ok" and handle.result() == "did file the report"
    kinds = [e["payload"]["kind"] for e in from_source(disk_events(handle), "crewai")]
    assert "message" in kinds and run_tags(handle) == {"source": "crewai"}


def test_caller_mapper_wins(runs_dir):
    adapter = CrewAIAdapter(crew([lambda m: f"Final Answer: {task_of(m)}"]), input_mapper=lambda t: {"task": t.upper()})
    handle, _ = run("quiet", adapter, runs_dir)
    assert handle.result() == "QUIET"


@pytest.mark.parametrize("decide, answer", [("approve", "approved: deleted x.txt"), ("reject", "rejected: no thanks")])
def test_governed_tool_waits_for_the_buttons(runs_dir, decide, answer):
    adapter = CrewAIAdapter(crew(TOOL_REPLIES, tools=True), govern_tools=["delete_file"])
    handle, pending = run("delete x.txt", adapter, runs_dir, decide=decide, reason="no thanks")
    assert handle.result() == answer and [p.tool for p in pending] == ["crewai.delete_file"]
    assert pending[0].redacted_payload["kwargs"] == {"path": "x.txt"}
    assert ("tool.execution.succeeded" in names(disk_events(handle))) is (decide == "approve")


def test_usage_is_the_crew_total(runs_dir):
    usage = {"prompt_tokens": 120, "completion_tokens": 20, "cached_prompt_tokens": 100, "total_tokens": 140}
    handle, _ = run("x", CrewAIAdapter(crew(["Final Answer: ok"], usage=usage)), runs_dir)
    [model] = [e["payload"] for e in disk_events(handle) if e["phase"] == "model"]
    assert (model["input_tokens"], model["cached_input_tokens"], model["output_tokens"]) == (120, 100, 20)
    assert model["model"] == "scripted-crew-llm" and model["requests"] == 1


def test_no_tracked_usage_means_no_usage_row(runs_dir):
    handle, _ = run("x", CrewAIAdapter(crew(["Final Answer: ok"])), runs_dir)
    assert not [e for e in disk_events(handle) if e["phase"] == "model"]
