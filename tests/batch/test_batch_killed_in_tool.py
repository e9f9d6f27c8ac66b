"""A batch whose process was killed -9 while an entry's approved tool ran: the tool's effects are unknown. Called
again, the batch seals that run lost and does not run the task anew by itself (that could repeat the effect): the
entry ends ``error`` saying the tool began and that ``rerun_failed=True`` runs it again, which then runs the task as
a new episode (a real batch process killed while its subprocess tool sleeps)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import noesis_nb

from ..compat.checker import check_run
from ..kill_in_tool import APPEND_AGENT as AGENT
from ..kill_in_tool import TOOL, kill_in_tool

BATCH = """
import asyncio, sys
sys.path.insert(0, sys.argv[3])
import noesis_nb
from killed_agent import append
async def main():
    handle = noesis_nb.batch([{"task": "append", "inputs": {"marks": sys.argv[2], "tool": sys.argv[4]}}],
                             using={"agent": append}, root=sys.argv[1], batch_id="cut", approver="auto")
    await handle
asyncio.run(main())
"""


def test_an_entry_cut_while_its_tool_ran_is_left_for_a_person_to_decide(tmp_path: Path) -> None:
    root, marks, code = tmp_path / "root", tmp_path / "marks", tmp_path / "code"
    code.mkdir()
    (code / "killed_agent.py").write_text(AGENT)
    kill_in_tool(BATCH, marks, str(root), str(marks), str(code), TOOL, path=(code,))
    sys.path.insert(0, str(code))
    try:
        from killed_agent import append  # type: ignore[import-not-found]

        tasks = [{"task": "append", "inputs": {"marks": str(marks), "tool": TOOL}}]

        async def again(rerun_failed: bool) -> noesis_nb.BatchHandle:
            handle = noesis_nb.batch(
                tasks, using={"agent": append}, root=root, batch_id="cut", approver="auto", rerun_failed=rerun_failed
            )
            await handle
            return handle

        (entry,) = asyncio.run(again(False)).entries
        assert entry.status == "error", (entry.status, entry.error)
        assert "began to run (effect write)" in str(entry.error) and "rerun_failed=True" in str(entry.error)
        assert not (marks / "done").exists()  # nothing ran again: neither the tool nor the task
        runs = sorted(p for p in root.rglob("ep_*") if (p / "events.jsonl").is_file())
        assert len(runs) == 1 and check_run(runs[0]) == [], runs  # sealed lost, a run the checker passes
        (entry,) = asyncio.run(again(True)).entries
        assert entry.status == "ok", (entry.status, entry.error)
        assert (marks / "done").read_text() == "ran\n"  # run anew once, when asked
        runs = sorted(p for p in root.rglob("ep_*") if (p / "events.jsonl").is_file())
        assert len(runs) == 2 and all(check_run(run) == [] for run in runs), runs
    finally:
        sys.path.remove(str(code))
        sys.modules.pop("killed_agent", None)
