"""``batch(tasks, using=…)``: many episodes in one call, on the notebook's loop or an executor, resumable."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from .. import config
from .._jsonio import to_jsonable
from ..errors import EpisodeStateError, InvalidOptionError
from ..runtime.api import SCORE_TIMEOUT_S, check_episode_options, check_score_timeout, in_thread
from ..secrets.quoted import quoted
from .handle import BatchEntry, BatchHandle
from .plan import EntryPlan
from .record import check_same_batch, load_record, new_record, record_lock_now, record_path, save_record
from .runner import Runner
from .spec import BatchSpec, check_batch_options, check_executor, parse_tasks, parse_using

__all__ = ["batch"]


def batch(
    tasks: Any,
    using: Any,
    *,
    concurrency: int = 8,
    executor: Any = None,
    score: Any = None,
    score_timeout_s: float | None = SCORE_TIMEOUT_S,
    batch_id: str | None = None,
    root: Any = None,
    rerun_failed: bool = False,
    upload_to: str | None = None,
    **episode_opts: Any,
) -> BatchHandle:
    """Run every task with every adapter of ``using`` (one, a list, or a dict of name → adapter); returns at once.

    Episodes run on the running loop (a notebook cell's), ``concurrency`` at a time, or on ``executor``
    (a ``dask.distributed.Client`` or a ``concurrent.futures.Executor``) writing to the shared ``root``.
    ``score(task, result)`` (sync or async) is recorded as ``summary.metrics.score``; a scorer that raises, returns
    no number or takes longer than ``score_timeout_s`` seconds (default 300: far longer than an LLM judge's call with
    its retries, short enough that a hung scorer does not hold ``await batch`` for good; None: no limit) leaves the
    entry ``ok`` with no score and ``entry.error`` saying why (also ``x-noesis_nb.score_error`` in its summary). A
    sync scorer runs on a thread of its own, which Python cannot stop: one that hangs runs on in the background
    (its result dropped). A batch run again keeps that entry as it is (a sealed run is neither re-run nor re-scored),
    and ``score_timeout_s`` may differ between calls of one batch: it changes no episode. The batch is recorded
    under ``<root>/batches/<batch_id>.json``: calling ``batch`` again with that ``batch_id`` (and the same
    tasks and adapters) skips sealed episodes, continues paused ones once decided, re-runs runs whose
    process died, and failed ones only with ``rerun_failed=True``. ``runs_dir=`` is another name for ``root=``.
    ``upload_to`` copies each sealed run to an fsspec URL, its manifest verified.
    ``episode_opts`` are ``start``'s (seed, tags, governance, approver…).
    """
    runs_dir = config.check_path(episode_opts.pop("runs_dir", None))  # the name start/solve/show use for the same folder
    if runs_dir is not None:
        if root is not None and os.fspath(root) != os.fspath(runs_dir):
            raise InvalidOptionError(
                f"root={quoted(root, 80)} and runs_dir={quoted(runs_dir, 80)} name two folders; pass one of them"
            )
        root = runs_dir
    if not isinstance(rerun_failed, bool):  # bool("no") is True: a string would re-run every failed entry
        raise InvalidOptionError(
            f"rerun_failed={quoted(rerun_failed, 60)}: pass True or False (True starts the batch's failed and cancelled "
            "entries over; the default, False, keeps them)"
        )
    concurrency, chosen, runs_root = check_batch_options(
        concurrency=concurrency,
        score=score,
        score_timeout_s=score_timeout_s,
        batch_id=batch_id,
        root=root,
        upload_to=upload_to,
        episode_opts=episode_opts,
    )
    check_episode_options(**episode_opts)
    spec = BatchSpec(
        batch_id=chosen,
        root=runs_root,
        tasks=parse_tasks(tasks),
        adapters=parse_using(using),
        concurrency=concurrency,
        score=score,
        score_timeout_s=check_score_timeout(score_timeout_s),
        episode_opts=dict(episode_opts),
        rerun_failed=rerun_failed,
        upload_to=upload_to,
        executor=check_executor(executor),
    )
    loop = _running_loop()  # after the options: a wrong one is named whatever the caller's loop
    path = record_path(runs_root, chosen)
    with record_lock_now(path) as taken:  # another call of this batch plans before or after this one, never at once
        plan = plan_batch(spec, path) if taken else None
    if plan is None:
        # another process plans this batch now: this call plans once it is done, on the loop without blocking it
        # (``Runner`` waits for the lock with ``record_lock_async``); a record already there is checked at once
        record = load_record(path)
        if record is not None:
            check_same_batch(record, spec, path, _options(spec))
    entries = plan.entries if plan is not None else unplanned_entries(spec)
    handle = BatchHandle(chosen, runs_root, path, entries, loop)
    handle.executor = None if spec.executor is None else type(spec.executor).__name__
    handle._runner = Runner(handle, spec, plan, make_plan=lambda: plan_batch(spec, path)).start()
    return handle


def plan_batch(spec: BatchSpec, path: Path) -> EntryPlan:
    """Read (or write) the batch's record and plan its entries; the caller holds the batch's lock."""
    record = load_record(path)
    if record is None:
        record = new_record(spec, _options(spec))
        save_record(path, record)
    else:
        check_same_batch(record, spec, path, _options(spec))
    plan = EntryPlan(spec, record, path)
    plan.save_if_changed()
    return plan


def unplanned_entries(spec: BatchSpec) -> list[BatchEntry]:
    """The batch's entries before its plan (one per task and adapter, queued): replaced by the plan's once made."""
    return [BatchEntry(index=i, task=t.task, adapter=name) for i, t in enumerate(spec.tasks) for name in spec.adapters]


def _options(spec: BatchSpec) -> dict[str, Any]:
    """The batch's options as recorded (callables by name: a record is JSON)."""
    opts = {k: (getattr(v, "__name__", type(v).__name__) if callable(v) else v) for k, v in spec.episode_opts.items()}
    options: dict[str, Any] = to_jsonable(
        {
            "concurrency": spec.concurrency,
            "score": getattr(spec.score, "__name__", None) if spec.score is not None else None,
            "score_timeout_s": spec.score_timeout_s,
            "upload_to": spec.upload_to,
            "executor": None if spec.executor is None else type(spec.executor).__name__,
            **opts,
        }
    )
    return options


def _running_loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise EpisodeStateError(
            "batch() needs a running event loop (a notebook cell, or inside `async def`); "
            + (
                in_thread("run asyncio.run(main()) there with `await noesis_nb.batch(...)` inside")
                or "from a script: asyncio.run(main()) with `await noesis_nb.batch(...)` inside"
            )
        ) from None
