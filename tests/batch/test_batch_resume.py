"""A batch whose process is killed mid-way (kill -9), run again in another process: nothing lost, nothing run twice."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import noesis_nb
from noesis_nb.store import read_events, read_json, read_summary

from ..conftest import REPO

SCRIPT = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import mixed

async def main():
    tasks = [{"task": t, "inputs": {"out": sys.argv[2]}} for t in sys.argv[3:]]
    handle = noesis_nb.batch(tasks, using={"agent": mixed}, root=sys.argv[1], batch_id="nightly", concurrency=6)
    while handle.counts() != {"ok": 2, "paused": 2, "running": 2}:
        await asyncio.sleep(0.02)
    print("READY", flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""
TASKS = ["quick one", "quick two", "approve one", "approve two", "slow one", "slow two"]


def test_a_batch_killed_mid_way_resumes_in_another_process(runs_dir: Path, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "out.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NOESIS_NB_APPROVER": "ask"}
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(runs_dir), str(out), *TASKS], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    record_path = runs_dir / "batches" / "nightly.json"
    before = [r["episode_id"] for r in json.loads(record_path.read_text())["entries"]]
    sealed_at = {ep: (runs_dir / ep / "manifest.json").stat().st_mtime_ns for ep in before[:2]}
    noesis_nb.approve_draft(runs_dir / before[2], approver_id="ana")  # decided while no process runs the batch
    monkeypatch.setenv("BATCH_TEST_FAST", "1")
    tasks = [{"task": t, "inputs": {"out": str(out)}} for t in TASKS]
    from .agents import mixed

    async def main():
        handle = noesis_nb.batch(tasks, using={"agent": mixed}, root=runs_dir, batch_id="nightly")
        await asyncio.wait_for(handle, 20)  # all finished but the one nobody decided
        assert handle.counts() == {"ok": 5, "paused": 1}, handle.counts()
        waiting = handle.pending()
        assert [(e.index, e.episode_id) for e, _ in waiting] == [(3, before[3])]
        started = time.monotonic()
        noesis_nb.reject_draft(waiting[0][0].run_dir, reason="no")
        await asyncio.wait_for(handle.wait(), 10)
        return handle, time.monotonic() - started

    handle, decided_in = asyncio.run(main())
    assert decided_in < 2.0
    statuses = [e.status for e in handle.entries]
    assert statuses == ["ok", "ok", "ok", "vetoed", "ok", "ok"], statuses
    ids = [e.episode_id for e in handle.entries]
    assert ids[:4] == before[:4], "finished and paused episodes are the same runs"
    assert {ep: (runs_dir / ep / "manifest.json").stat().st_mtime_ns for ep in before[:2]} == sealed_at, "not re-run"
    assert ids[4] != before[4] and ids[5] != before[5], "the runs lost with the process run again as new episodes"
    for lost in before[4:]:
        assert "process_lost" in read_summary(runs_dir / lost)["x-noesis_nb"]["reasons"]
    record = json.loads(record_path.read_text())
    assert [r["previous"] for r in record["entries"]] == [[], [], [], [], [before[4]], [before[5]]]
    assert out.read_text() == "approve one\n", "the approved draft ran exactly once"
    assert read_json(runs_dir / before[3] / "final.json")["outcome"] == "vetoed"


def test_a_lost_run_counts_as_written_once_a_tool_that_is_not_read_only_began(runs_dir: Path, tmp_path: Path) -> None:
    """What decides whether a lost run starts over by itself: the tools whose execution began in it and their effect."""
    from noesis_nb.batch.plan import _write_tools_started

    def agent_with(effect: str):
        def agent(task, ctx):
            argv = [sys.executable, "-c", "pass"]
            return ctx.tool("fs.check", {"argv": argv}, effect=effect, risk="low")["returncode"]

        return agent

    reading = noesis_nb.solve("look", agent_with("read"), runs_dir=runs_dir, approver="auto")
    writing = noesis_nb.solve("change", agent_with("write"), runs_dir=runs_dir, approver="auto")
    plain = noesis_nb.solve("think", lambda task: "done", runs_dir=runs_dir)

    def started(ep: str) -> list[str]:
        return _write_tools_started(runs_dir / ep, read_events(runs_dir / ep / "events.jsonl"))

    assert started(reading) == []
    assert started(plain) == []
    assert started(writing) == ["'check'"]
    for draft in (runs_dir / writing / "tool_invocations" / "prepared").glob("*.json"):
        draft.write_text("{not json")  # a draft that cannot be read: its effect is unknown, so it counts as a write
    assert len(started(writing)) == 1


def test_a_followed_run_whose_seal_is_still_being_written_is_not_done_yet(runs_dir: Path) -> None:
    """A batch following a run on disk (a worker's) may look between its terminate event and its manifest: the
    entry must not end then with the summary's score still unwritten (it ended `ok` with no score)."""
    from noesis_nb.batch.handle import BatchEntry
    from noesis_nb.batch.plan import entry_from_disk

    from .agents import echo, exact

    async def run_one():
        handle = noesis_nb.batch(["a"], using=echo, root=runs_dir, score=exact)
        await asyncio.wait_for(handle, 30)
        return handle

    handle = asyncio.run(run_one())
    run = handle.entries[0].run_dir
    assert handle.entries[0].score == 1.0
    manifest = (run / "manifest.json").read_bytes()
    summary = (run / "summary.json").read_bytes()
    (run / "manifest.json").unlink()  # the moment after final.json, before the summary's score is read as final
    (run / "summary.json").unlink()
    entry = BatchEntry(index=0, task="a", adapter="echo", reserved_id=run.name)
    entry_from_disk(entry, run, echo)
    assert entry.status == "running" and entry.score is None
    (run / "summary.json").write_bytes(summary)
    (run / "manifest.json").write_bytes(manifest)
    entry_from_disk(entry, run, echo)
    assert entry.status == "ok" and entry.score == 1.0


OWNER = """
import asyncio, sys
import noesis_nb
from tests.batch.agents import slow

async def main():
    tasks = [{"task": t, "inputs": {"sleep": 60}} for t in ("one", "two")]
    handle = noesis_nb.batch(tasks, using={"agent": slow}, root=sys.argv[1], batch_id="shared")
    while handle.counts() != {"running": 2}:
        await asyncio.sleep(0.02)
    print("READY", flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


def test_a_batch_following_another_kernels_runs_ends_when_that_kernel_is_killed(runs_dir: Path) -> None:
    """Another kernel runs the batch; this one calls it too and follows those runs. That kernel is killed (kill -9):
    the runs are recovered here (sealed ``process_lost``), ``await batch`` ends, and each entry says how to continue.
    Before, they stayed ``running`` and ``batch.wait()`` never returned."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", OWNER, str(runs_dir)], env=env, stdout=subprocess.PIPE, text=True)
    from .agents import slow

    tasks = [{"task": t, "inputs": {"sleep": 60}} for t in ("one", "two")]

    async def main() -> tuple[noesis_nb.BatchHandle, dict[str, int]]:
        handle = noesis_nb.batch(tasks, using={"agent": slow}, root=runs_dir, batch_id="shared")
        await asyncio.sleep(0.3)
        followed = handle.counts()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        await asyncio.wait_for(handle.wait(), 10)
        return handle, followed

    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
        handle, followed = asyncio.run(main())
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    assert followed == {"running": 2}
    assert [e.status for e in handle.entries] == ["error", "error"]
    for entry in handle.entries:
        assert entry.run_dir is not None
        assert "process_lost" in read_summary(entry.run_dir)["x-noesis_nb"]["reasons"]
        assert "its process died while it ran" in str(entry.error) and "batch_id='shared'" in str(entry.error)


CHATTY_OWNER = OWNER.replace("import slow", "import chatty").replace('{"agent": slow}', '{"agent": chatty}')


def test_a_followed_run_that_changed_as_its_kernel_was_killed_is_recovered_and_the_batch_ends(runs_dir: Path) -> None:
    """As above, but the runs wrote events until the kill: the follower reads them again and finds their writer
    gone, a run the disk now calls ``lost``. That word is no entry's status (neither waiting nor ended): the entries
    stayed ``lost``, nothing recovered them and ``batch.wait()`` never returned."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", CHATTY_OWNER, str(runs_dir)], env=env, stdout=subprocess.PIPE, text=True)
    from .agents import chatty

    tasks = [{"task": t, "inputs": {"sleep": 60}} for t in ("one", "two")]

    async def main() -> noesis_nb.BatchHandle:
        handle = noesis_nb.batch(tasks, using={"agent": chatty}, root=runs_dir, batch_id="shared")
        deadline = time.monotonic() + 10  # the follower's first look: both runs held by the other process
        while handle.counts() != {"running": 2} and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert handle.counts() == {"running": 2}
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        await asyncio.wait_for(handle.wait(), 20)
        return handle

    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "READY"
        handle = asyncio.run(main())
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    assert [e.status for e in handle.entries] == ["error", "error"]
    for entry in handle.entries:
        assert entry.run_dir is not None
        assert "process_lost" in read_summary(entry.run_dir)["x-noesis_nb"]["reasons"]
        assert "its process died while it ran" in str(entry.error)
