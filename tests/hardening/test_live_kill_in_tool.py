"""A live episode killed -9 while its approved tool runs: the tool's effects are unknown. ``resume_run`` from another
process records ``tool.execution.outcome_unknown`` and raises ``ToolOutcomeUnknownError`` naming the draft, the run
left unsealed, as after a resume killed mid-tool; ``unknown_outcome='retry'`` runs the tool again and ``'fail'``
records it failed, each sealing the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import is_sealed, read_json
from noesis_nb.tools import ToolOutcomeUnknownError

from ..compat.checker import check_run
from ..kill_in_tool import TOOL, kill_in_tool

EPISODE = """
import asyncio, sys
import noesis_nb
root, marks, tool = sys.argv[1], sys.argv[2], sys.argv[3]
async def agent(task, ctx):
    out = await ctx.tool_async("fs.append", {"argv": [sys.executable, "-c", tool, marks]}, effect="write", risk="high")
    return out["returncode"]
async def main():
    handle = noesis_nb.start("append", using=agent, runs_dir=root, approver="auto")
    await handle.wait()
asyncio.run(main())
"""


def _killed_in_tool(root: Path, marks: Path) -> Path:
    """Run the episode in a process of its own and kill it -9 once its tool has begun; its run directory."""
    kill_in_tool(EPISODE, marks, str(root), str(marks), TOOL)
    [run_dir] = [p for p in root.iterdir() if p.name.startswith("ep_")]
    return run_dir


def _tool_events(run_dir: Path) -> list[str]:
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    return [json.loads(line)["payload"].get("event_name") for line in lines if '"phase":"tool"' in line]


@pytest.mark.parametrize("choice", ["retry", "fail"])
def test_resume_after_a_live_episode_died_in_its_tool_asks_before_going_on(runs_dir: Path, tmp_path: Path, choice: str) -> None:
    marks = tmp_path / "marks"
    run_dir = _killed_in_tool(runs_dir, marks)
    with pytest.raises(ToolOutcomeUnknownError) as raised:  # before: sealed error, a warning saying a tool "ran"
        noesis_nb.resume_run(run_dir.name, runs_dir=runs_dir)
    said = str(raised.value)
    assert "may or may not have happened" in said and "unknown_outcome='retry'" in said
    lines = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    [draft_id] = [e["payload"]["draft_id"] for e in lines if e["payload"].get("event_name") == "tool.draft_created"]
    assert draft_id in said  # the draft is named
    assert "tool.execution.outcome_unknown" in _tool_events(run_dir)
    assert not is_sealed(run_dir) and not (marks / "done").exists()

    noesis_nb.resume_run(run_dir.name, runs_dir=runs_dir, unknown_outcome=choice)
    assert is_sealed(run_dir) and check_run(run_dir) == []
    summary = read_json(run_dir / "summary.json")
    if choice == "retry":  # the tool ran again, once
        assert (marks / "done").read_text() == "ran\n"
        assert summary["status"] == "ok"
    else:  # recorded failed, never run again
        assert not (marks / "done").exists()
        assert summary["status"] == "error"
