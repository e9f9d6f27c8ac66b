"""A batch entry paused for a person, decided, and continued by ``resume_run`` in another process that was killed -9
while the approved tool ran: the tool's effects are unknown. A batch call that follows the run (it finds the resume
holding it, and sees its process die) or is called after it died neither seals the run nor runs the task anew: the
entry ends ``error`` naming the draft, the effects to check and ``resume_run(..., unknown_outcome=…)``; once that has
sealed the run, the batch reads it as it ended (real processes, a subprocess tool, SIGKILL)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

import noesis_nb

from ..compat.checker import check_run
from ..kill_in_tool import APPEND_AGENT as AGENT
from ..kill_in_tool import TOOL, kill, start_process, wait_until_tool_began

RESUME = """
import sys
import noesis_nb
noesis_nb.resume_run(sys.argv[1], runs_dir=sys.argv[2])
"""


@pytest.mark.parametrize("when", ["while_followed", "before_the_call"])
def test_an_entry_whose_resume_was_killed_in_its_tool_is_left_for_a_person(tmp_path: Path, when: str) -> None:
    root, marks, code = tmp_path / "root", tmp_path / "marks", tmp_path / "code"
    marks.mkdir(), code.mkdir()
    (code / "resumed_agent.py").write_text(AGENT)
    sys.path.insert(0, str(code))
    try:
        from resumed_agent import append  # type: ignore[import-not-found]

        tasks = [{"task": "append", "inputs": {"marks": str(marks), "tool": TOOL}}]

        def call(**opts: object) -> noesis_nb.BatchHandle:
            return noesis_nb.batch(tasks, using={"agent": append}, root=root, batch_id="resumed", approver="ask", **opts)

        async def first() -> noesis_nb.BatchHandle:
            handle = call()
            await handle
            return handle

        (entry,) = asyncio.run(first()).entries
        assert entry.status == "paused" and entry.run_dir is not None, (entry.status, entry.error)
        run_dir = Path(entry.run_dir)
        noesis_nb.approve_draft(run_dir)
        resumer = start_process(RESUME, run_dir.name, str(root))
        try:
            wait_until_tool_began(resumer, marks)
            if when == "before_the_call":
                kill(resumer)

            async def again() -> noesis_nb.BatchHandle:
                handle = call()
                if when == "while_followed":  # the batch follows the run its resume holds, then that process dies
                    while handle.entries[0].status != "running":
                        await asyncio.sleep(0.05)
                    kill(resumer)
                await handle
                return handle

            (entry,) = asyncio.run(again()).entries
        finally:
            kill(resumer)
        said = str(entry.error)
        assert entry.status == "error", (entry.status, said)
        events = (run_dir / "events.jsonl").read_text()
        [draft_id] = {line.split('"draft_id":"')[1].split('"')[0] for line in events.splitlines() if '"draft_id":"' in line}
        assert draft_id in said and "may or may not have happened" in said, said
        assert f"resume_run('{run_dir.name}', unknown_outcome='retry')" in said, said
        assert "The batch leaves this run as it is; once resume_run has sealed it, call the batch again" in said, said
        assert not (marks / "done").exists()  # nothing ran again: neither the tool nor the task
        assert [p.name for p in root.iterdir() if p.name.startswith("ep_")] == [run_dir.name]
        assert not noesis_nb.store.is_sealed(run_dir)  # left as it is, for a person to decide

        noesis_nb.resume_run(run_dir.name, runs_dir=root, unknown_outcome="retry")
        assert (marks / "done").read_text() == "ran\n" and check_run(run_dir) == []

        async def last() -> noesis_nb.BatchHandle:
            handle = call()
            await handle
            return handle

        (entry,) = asyncio.run(last()).entries
        assert entry.status == "ok" and entry.episode_id == run_dir.name, (entry.status, entry.error)
        assert (marks / "done").read_text() == "ran\n"
    finally:
        sys.path.remove(str(code))
        sys.modules.pop("resumed_agent", None)
