"""A run paused on parallel tool drafts (``asyncio.gather`` of ``ctx.tool_async``) holds one ``pending_approval``
record, as Noēsis reads a paused run: the draft its last pause is on. The others wait held (``prepared``, still
needing a decision), so Noēsis' reader finds one draft where it raised AmbiguousPreparedToolInvocationError, and
noesis_nb's readers still list every draft as waiting. The same after a resume of such a run is interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store import read_events
from noesis_nb.tools.repositories import PreparedInvocationRepository
from tests.compat.checker import check_run

from .test_resume_many_drafts import _drafts, _pause

REPO = Path(__file__).resolve().parents[2]


def _statuses(run: Path) -> dict[str, str]:
    folder = run / "tool_invocations" / "prepared"
    return {json.loads(p.read_text())["draft_id"]: json.loads(p.read_text())["status"] for p in folder.glob("*.json")}


def _paused_on(run: Path) -> str:
    """The draft of the run's last pause: its checkpoint's interrupt is caused by that draft's approval request."""
    events = read_events(run / "events.jsonl")
    by_id = {e["id"]: e for e in events}
    checkpoint = [e for e in events if e.get("event_type") == "run.checkpoint"][-1]
    return by_id[by_id[checkpoint["caused_by"]]["caused_by"]]["payload"]["draft_id"]


def _assert_one_pending(run: Path, drafts: list[str]) -> None:
    assert [v for v in check_run(run) if v.rule.startswith("paused")] == []
    statuses = _statuses(run)
    assert sorted(statuses) == sorted(drafts)
    assert [d for d, s in statuses.items() if s == "pending_approval"] == [_paused_on(run)]
    assert PreparedInvocationRepository(run).find_pending(run.name).draft_id == _paused_on(run)  # Noēsis' reading
    assert sorted(p.draft_id for p in DiskRun(run).pending) == sorted(drafts)  # every one still waits for a person
    assert noesis_nb.runs_df(run.parent).set_index("episode_id").loc[run.name, "status"] == "paused"


@pytest.mark.parametrize("names", ["a,b", "a,b,c"])
def test_a_live_pause_on_parallel_drafts_holds_one_pending_record(runs_dir, tmp_path, names):
    run = _pause(runs_dir, tmp_path / "ran.txt", names)
    drafts = _drafts(run)
    assert len(drafts) == len(names.split(","))
    _assert_one_pending(run, drafts)
    assert check_run(run) == []


def test_solve_paused_on_parallel_drafts_holds_one_pending_record(runs_dir, tmp_path):
    """``solve`` pauses on the first draft; the second asked for approval meanwhile waits held behind it."""
    from tests.compat.entrypoints_scenarios import two_at_once

    episode_id = noesis_nb.solve("Write two notes", using=two_at_once, runs_dir=runs_dir)
    run = runs_dir / episode_id
    drafts = [d for d in _statuses(run)]
    assert len(drafts) == 2
    _assert_one_pending(run, drafts)
    assert check_run(run) == []
    for draft in drafts:  # the held one is decided as the paused one is
        noesis_nb.approve_draft(run, draft, approver_id="ana")
    noesis_nb.resume_run(run)
    assert json.loads((run / "final.json").read_text())["outcome"] == "success"
    assert check_run(run) == []


_SLOW_TOOLS = textwrap.dedent(
    """
    import asyncio, sys, noesis_nb
    runs, mark = sys.argv[1], sys.argv[2]
    code = "import sys, time; open(sys.argv[1], 'a').write(sys.argv[2] + chr(10)); time.sleep(60)"
    async def many(task, ctx):
        return await asyncio.gather(*(
            ctx.tool_async(f"fs.{n}", {"argv": [sys.executable, "-c", code, mark, n]}, effect="write", risk="high")
            for n in ("a", "b")
        ))
    async def main():
        handle = noesis_nb.start("parallel slow writes", many, runs_dir=runs, approver="ask")
        await handle
        assert handle.status == "paused" and len(handle.pending) == 2, (handle.status, handle.pending)
        print(handle.episode_id)
    asyncio.run(main())
    """
)


def test_an_interrupted_resume_of_parallel_drafts_leaves_a_run_noesis_reads(runs_dir, tmp_path):
    """Both drafts approved; ``resume_run`` in a real process gets SIGINT while the first tool runs: the run it
    leaves passes Noēsis' validators (and no draft is left pending beside another)."""
    mark = tmp_path / "started.txt"
    done = subprocess.run(
        [sys.executable, "-c", _SLOW_TOOLS, str(runs_dir), str(mark)], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-2000:]
    run = runs_dir / done.stdout.split()[-1]
    drafts = _drafts(run)
    _assert_one_pending(run, drafts)
    for draft in drafts:
        noesis_nb.approve_draft(run, draft, approver_id="ana")
    resume = subprocess.Popen(
        [sys.executable, "-c", "import sys, noesis_nb; noesis_nb.resume_run(sys.argv[1])", str(run)],
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    for _ in range(1200):  # the first tool has started (it wrote its line): the resume is mid-way
        if mark.exists() and mark.read_text():
            break
        time.sleep(0.05)
    else:
        resume.kill()
        raise AssertionError("the resumed tool never started")
    resume.send_signal(signal.SIGINT)
    _, err = resume.communicate(timeout=60)
    assert "EpisodeInterrupted" in err, err[-2000:]
    assert check_run(run) == []
    pending = [d for d, s in _statuses(run).items() if s == "pending_approval"]
    assert len(pending) <= 1
