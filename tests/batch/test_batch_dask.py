"""A batch on a real dask.distributed LocalCluster (2 worker processes): runs in the workers, decisions reach them."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.store import read_events, read_json
from noesis_nb.store.ownership import holder
from noesis_nb.store.vocab import RUN_RESUME

from ..compat.checker import check_run
from ..conftest import REPO
from .agents import asks, echo, exact

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_episodes_run_in_the_workers_and_are_followed_through_their_runs(client, runs_dir: Path) -> None:
    async def main():
        handle = noesis_nb.batch(["a", "b", "c", "fail d"], using=echo, root=runs_dir, executor=client, score=exact)
        await asyncio.wait_for(handle, 30)
        return handle

    handle = asyncio.run(main())
    assert [e.status for e in handle.entries] == ["ok", "ok", "ok", "error"]
    assert [e.score for e in handle.entries] == [1.0, 1.0, 1.0, None]
    assert all(e.handle is None and e.usage["input_tokens"] == 220 for e in handle.entries)
    ran_in = {read_json(e.run_dir / "summary.json")["answer"]["result"]["pid"] for e in handle.entries[:3]}
    assert ran_in <= set(client.run(os.getpid).values()) and os.getpid() not in ran_in, "the episodes ran in the workers"
    for entry in handle.entries:
        assert check_run(entry.run_dir) == []


def test_a_decision_made_here_reaches_an_episode_paused_on_a_worker_within_a_second(client, runs_dir: Path, tmp_path) -> None:
    out = tmp_path / "out.txt"
    tasks = [{"task": t, "inputs": {"out": str(out)}} for t in ("approve it", "plain")]

    async def main():
        handle = noesis_nb.batch(tasks, using=asks, root=runs_dir, executor=client, approver="ask")
        await asyncio.wait_for(handle, 30)
        assert handle.counts() == {"paused": 1, "ok": 1}
        [(entry, pending)] = handle.pending()
        assert pending.tool == "fs.append" and entry.index == 0
        decided = time.monotonic()
        noesis_nb.approve_draft(entry.run_dir, approver_id="ana")  # written into the run; the worker's episode reads it
        while not any(e.get("event_type") == RUN_RESUME for e in read_events(entry.run_dir / "events.jsonl")):
            await asyncio.sleep(0.02)
        reached = time.monotonic() - decided
        await asyncio.wait_for(handle.wait(), 20)
        return handle, reached

    handle, reached = asyncio.run(main())
    assert reached < 1.0, f"the decision reached the worker after {reached:.2f} s"
    resume = next(e for e in read_events(handle.entries[0].run_dir / "events.jsonl") if e.get("event_type") == RUN_RESUME)
    assert resume["payload"]["resumed_by"] == "episode", "the live episode on the worker continued, not a resume here"
    assert [e.status for e in handle.entries] == ["ok", "ok"] and out.read_text() == "approve it\n"


def test_a_worker_that_dies_leaves_a_run_the_batch_finishes_once_decided(client, runs_dir: Path, tmp_path) -> None:
    out = tmp_path / "out.txt"

    async def main():
        handle = noesis_nb.batch(
            [{"task": "approve it", "inputs": {"out": str(out)}}], using=asks, root=runs_dir, executor=client
        )
        await asyncio.wait_for(handle, 30)
        [entry] = handle.entries
        assert entry.status == "paused"
        owner = holder(entry.run_dir)  # "pid 1234 on host since …": the worker process waiting on the draft
        assert owner is not None and int(owner.split()[1]) != os.getpid()
        os.kill(int(owner.split()[1]), signal.SIGKILL)
        while holder(entry.run_dir) is not None:
            await asyncio.sleep(0.02)
        noesis_nb.approve_draft(entry.run_dir, approver_id="ana")  # nobody waits live now: the batch resumes it here
        await asyncio.wait_for(handle.wait(), 30)
        return entry

    entry = asyncio.run(main())
    assert entry.status == "ok" and out.read_text() == "approve it\n"
    resume = next(e for e in read_events(entry.run_dir / "events.jsonl") if e.get("event_type") == RUN_RESUME)
    assert resume["payload"]["resumed_by"] == "resume_run"
    assert check_run(entry.run_dir) == []
