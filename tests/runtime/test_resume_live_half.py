"""A live episode paused on two parallel drafts: the first is approved in process and runs, and the process is
killed (kill -9) while the episode still waits on the second. The second is decided on disk and ``resume_run``
continues it: it runs once (or is recorded rejected) and the run ends as its drafts say, never sealed
``process_lost`` with the second draft dropped."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import noesis_nb
from tests.runtime.test_resume_many_drafts import _drafts, _outcome, _ran, _resume_elsewhere, _tool

_FIRST_RUNS_THEN_KILLED = textwrap.dedent(
    """
    import asyncio, os, signal, sys, noesis_nb
    runs, log = sys.argv[1], sys.argv[2]
    code = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + chr(10))"
    async def many(task, ctx):
        return await asyncio.gather(*(
            ctx.tool_async(f"fs.{n}", {"argv": [sys.executable, "-c", code, log, n]}, effect="write", risk="high")
            for n in "ab"
        ))
    async def main():
        handle = noesis_nb.start("parallel writes", many, runs_dir=runs, approver="ask")
        await handle
        assert len(handle.pending) == 2, handle.pending
        handle.approve(handle.pending[0].draft_id, approver_id="ana")
        events = handle.run_dir / "events.jsonl"
        while b"tool.execution.succeeded" not in events.read_bytes():  # the first draft ran and its result is written
            await asyncio.sleep(0.02)
        print(handle.episode_id, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)  # while the episode still waits on the second draft
    asyncio.run(main())
    """
)


def _first_ran_then_killed(runs_dir: Path, log: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_RUNS_THEN_KILLED, str(runs_dir), str(log)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -9, done.stderr[-2000:]
    return runs_dir / done.stdout.split()[-1]


@pytest.mark.parametrize(("decide", "outcome"), [(noesis_nb.approve_draft, "success"), (noesis_nb.reject_draft, "vetoed")])
def test_the_draft_a_killed_episode_still_waited_on_is_continued(runs_dir: Path, tmp_path: Path, decide, outcome: str):
    log = tmp_path / "ran.txt"
    run = _first_ran_then_killed(runs_dir, log)
    first, second = _drafts(run)
    assert _ran(log) == [_tool(run, first)]
    decide(run, second, approver_id="bob")
    resumed = _resume_elsewhere(run)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    again = [_tool(run, second)] if outcome == "success" else []
    assert _ran(log) == [_tool(run, first), *again] and _outcome(run) == outcome
