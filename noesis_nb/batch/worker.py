"""What an executor's worker runs: one episode of a batch, on a fresh loop, writing its run to the shared root.

The episode waits for a human like one started in the notebook: its pause is on disk first, and
it reads a decision written into its run directory (``approve_draft`` from the notebook, the
batch's inbox) within a quarter of a second. On a Dask worker the job leaves the worker's thread
pool while it runs (``secede``), so paused episodes never hold the pool: the batch's
``concurrency`` is the one bound.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..runtime.api import create_episode
from ..store import is_run_dir
from ..store.vocab import TERMINAL_STATUSES
from .upload import upload_missing_async

__all__ = ["run_job"]


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run the episode ``job`` describes (see ``remote.job_for``) to its end; its id, status and score."""
    _leave_dask_pool()
    return asyncio.run(_run(job))


async def _run(job: dict[str, Any]) -> dict[str, Any]:
    if is_run_dir(Path(job["runs_dir"]) / job["episode_id"]):
        # the job ran before (Dask retries a job whose worker died): its run is on disk, and the notebook's batch
        # continues it from there once decided (resume_run) — starting it again would run the task twice
        return {"episode_id": job["episode_id"], "status": "on_disk", "score": None}
    episode = create_episode(
        job["task"],
        job["using"],
        runs_dir=job["runs_dir"],
        wait_for_human=True,
        episode_id=job["episode_id"],
        score=job.get("score"),
        score_timeout_s=job.get("score_timeout_s"),
        inputs=job.get("inputs"),
        batch=job.get("batch"),
        **job.get("options", {}),
    )
    await episode.run()
    run_dir = Path(episode.recorder.run_dir)
    if job.get("upload_to") and episode.status in TERMINAL_STATUSES:
        await upload_missing_async(run_dir, job["upload_to"])  # unless the batch that follows it copied it first
    return {"episode_id": episode.recorder.episode_id, "status": episode.status, "score": episode.score}


def _leave_dask_pool() -> None:
    try:
        from distributed import get_worker, secede
    except ImportError:
        return
    try:
        get_worker()
    except ValueError:  # not inside a Dask worker (a concurrent.futures executor)
        return
    secede()  # type: ignore[no-untyped-call]
