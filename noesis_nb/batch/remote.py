"""Running a batch on an executor (a ``dask.distributed.Client`` or a ``concurrent.futures.Executor``).

At most ``concurrency`` jobs are out at once; a job's entry is followed through its run directory
(:mod:`.follow`), and a paused one gives its slot up like a paused episode on the loop.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from .follow import Follower
from .handle import WAITING, BatchEntry
from .spec import BatchSpec
from .worker import run_job

__all__ = ["submit_entry", "job_for"]

_JOB_POLL_S = 0.01  # how often a held slot looks whether its job has ended (``future.done()``: no I/O)


def job_for(spec: BatchSpec, entry: BatchEntry) -> dict[str, Any]:
    """Everything a worker needs for one entry (picklable when the adapters and the scorer are)."""
    task = spec.tasks[entry.index]
    options = dict(spec.episode_opts)
    options["tags"] = {**(options.get("tags") or {}), **task.tags}
    if options.get("approver") is None:  # the notebook's policy, not whatever a worker's environment says
        options["approver"] = os.environ.get("NOESIS_NB_APPROVER", "ask")
    return {
        "task": task.task,
        "using": spec.adapters[entry.adapter],
        "runs_dir": str(spec.root),
        "episode_id": entry.reserved_id,
        "score": spec.score,
        "score_timeout_s": spec.score_timeout_s,
        "inputs": task.inputs,
        "batch": {"batch_id": spec.batch_id, "task_index": entry.index, "adapter": entry.adapter},
        "options": options,
        "upload_to": spec.upload_to,
    }


async def submit_entry(spec: BatchSpec, entry: BatchEntry, follower: Follower, slots: asyncio.Semaphore) -> None:
    """Hand one entry to the executor and hold a slot until it has finished or paused."""
    async with slots:
        if follower.cancelled:
            return
        executor = spec.executor
        job = job_for(spec, entry)
        try:
            if type(executor).__module__.split(".")[0] == "distributed":
                entry.future = executor.submit(run_job, job, pure=False)
            else:
                entry.future = executor.submit(run_job, job)
        except Exception as exc:  # shut down, closed, broken: the entry says so (it never started)
            entry.status, entry.ended_at = "error", time.time()
            entry.error = (
                f"the executor did not take the job ({type(exc).__name__}: {exc}); pass a running executor "
                "(or none, to run on this notebook's loop) and call the batch again: it starts the entries never started"
            )
            follower.handle.changed(entry)
            return
        future = entry.future
        follower.add(entry)
        # until the job ends (or the entry is queued again as another episode, with a job of its own)
        while entry.future is future and entry.status in WAITING and not follower.cancelled:
            if future.done():  # the job ended: read its run now rather than at the follower's next look
                follower.tick_one(entry)
                break
            await asyncio.sleep(_JOB_POLL_S)
