"""Running a batch on the notebook's loop: at most ``concurrency`` episodes at once, each a live episode here.

A paused episode gives its slot up (otherwise pauses nobody has decided yet would stop the batch);
it continues by itself once decided. Entries found on disk when a recorded batch is run again are
followed there (:mod:`.follow`): paused ones continue once decided, the others are left to their owner;
so is an entry another call of the batch started first (its episode id was taken as this one began it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from ..errors import EpisodeInterrupted, RunExistsError, RunWriteError
from ..runtime.api import create_and_launch
from ..runtime.handle import EpisodeHandle
from ..store.vocab import TERMINAL_STATUSES, failed
from .claim import refuse_foreign
from .follow import Follower
from .handle import BatchEntry, BatchHandle
from .plan import EntryPlan, entry_from_disk, lost_and_rerun
from .record import record_lock_async
from .remote import submit_entry
from .spec import BatchSpec
from .upload import copy_ended

__all__ = ["Runner"]

_JOB_POLL_S = 0.05  # how often the end of a job whose run has ended is looked for (``future.done()``: no I/O)


class Runner:
    """Runs a batch's entries and keeps each :class:`BatchEntry` true (see the module docstring)."""

    def __init__(
        self,
        handle: BatchHandle,
        spec: BatchSpec,
        plan: EntryPlan | None,
        make_plan: Callable[[], EntryPlan] | None = None,
    ):
        self.handle = handle
        self.spec = spec
        self.plan: EntryPlan = plan  # type: ignore[assignment]  # None until ``_planned`` (the lock was busy)
        self._make_plan = make_plan  # plans the batch while its lock is held (``plan`` is None)
        self.slots = asyncio.Semaphore(spec.concurrency)
        self.follower = Follower(handle, spec, self.slots, requeue=self._requeue)
        self.cancelled = False
        self._again: list[asyncio.Future[None]] = []  # entries queued again while the batch ran (``_requeue``)
        self._copies: dict[tuple[int, str], asyncio.Task[None]] = {}  # (entry, episode): its run's copy to ``upload_to``

    def start(self) -> asyncio.Future[Any]:
        self.handle._canceller = self.cancel
        return self.handle.loop.create_task(self.run(), name=f"noesis_nb:batch:{self.handle.batch_id}")

    async def run(self) -> None:
        try:
            if self.plan is None:
                await self._planned()
            await self._run()
        finally:  # whatever happened, no entry stays queued (``await batch`` would wait for it forever)
            for entry in self.handle.entries:
                if entry.status == "queued":
                    entry.status = "cancelled" if self.cancelled else "error"
                    entry.error = entry.error or "the batch stopped before this entry started"
                    self.handle.changed(entry)

    async def _planned(self) -> None:
        """Plan the batch once the process planning it now gives its lock up, waiting without blocking the loop;
        then the handle's entries are the plan's (the same list: a view of the batch shows them)."""
        assert self._make_plan is not None
        try:
            async with record_lock_async(self.handle.record_path):
                self.plan = await asyncio.to_thread(self._make_plan)
        except Exception as exc:  # the record changed meanwhile (another task list …): each entry names why
            for entry in self.handle.entries:
                entry.status, entry.ended_at = "error", time.time()
                entry.error = f"the batch could not be planned: {type(exc).__name__}: {exc}"
                self.handle.changed(entry)
            raise
        self.handle.entries[:] = self.plan.entries
        cancelled, self.follower = self.follower.cancelled, Follower(self.handle, self.spec, self.slots, requeue=self._requeue)
        self.follower.cancelled = cancelled
        self.handle.recount()
        for entry in self.handle.entries:
            self.handle.changed(entry)

    async def _run(self) -> None:
        await self.plan.recover(self.handle)  # runs whose process died mid-way: sealed, and lost ones queued anew
        todo = [e for e in self.handle.entries if e.status == "queued"]
        jobs = [self.follower.run()] if self.follower.entries else []
        if self.spec.upload_to is not None:
            jobs.append(self._upload_kept([e for e in self.handle.entries if e.done]))
        await asyncio.gather(*jobs, *(self._job(e) for e in todo))
        # entries queued again meanwhile, and the following started by a job that found its run begun elsewhere
        while pending := [f for f in (*self._again, self.follower.task) if f is not None and not f.done()]:
            done, _ = await asyncio.wait(pending)
            for future in done:
                future.result()
        await asyncio.gather(*self._copies.values())  # each ended episode's copy (awaited by its job, unless it stopped)
        if self.spec.executor is not None:
            await self._jobs_ended()

    async def _jobs_ended(self) -> None:
        """On an executor a job goes on after its run is sealed (it copies the run to ``upload_to``): wait for the jobs
        of ended entries, so ``batch.wait()`` returns once the copies are done, and name what a job raised (its
        upload failed) in its entry, which said nothing of it."""
        for entry in self.handle.entries:
            future = entry.future
            if future is None or not entry.done:
                continue
            while not future.done():
                await asyncio.sleep(_JOB_POLL_S)
            error = None if future.cancelled() else future.exception()
            if error is not None and entry.error is None:
                entry.error = f"its job on the executor failed after its run ended: {type(error).__name__}: {error}"
                self.handle.changed(entry)

    async def _upload_kept(self, entries: list[BatchEntry]) -> None:
        """Runs sealed before this call are copied to ``upload_to`` unless their copy there is whole: a process
        killed mid-upload left it without its manifest, and ``upload_to`` may name a new place on this call. So are
        the runs each entry ran before its current episode (a lost run run again, a failed one re-run)."""
        assert self.spec.upload_to is not None
        for entry in entries:
            error = await copy_ended(entry.run_dir, self.spec.upload_to, entry.error)
            if error != entry.error:
                entry.error = error
                self.handle.changed(entry)
        for entry in self.handle.entries:
            for run_dir in await asyncio.to_thread(self.plan.earlier_runs, entry):
                await self._copy_earlier(entry, run_dir)

    async def _copy_earlier(self, entry: BatchEntry, run_dir: Path | None) -> None:
        """Copy a run ``entry`` ran before its current episode to ``upload_to`` (unless its copy is whole); a failure
        is added to the entry's error, naming that run."""
        if self.spec.upload_to is None or run_dir is None:
            return
        said = await copy_ended(run_dir, self.spec.upload_to, None)
        if said is not None:
            said = f"{_EARLIER}{run_dir.name}: {said}"
            entry.error = f"{entry.error}; {said}" if entry.error else said
            self.handle.changed(entry)

    def _job(self, entry: BatchEntry) -> Coroutine[Any, Any, None]:
        if self.spec.executor is not None:
            return self._guarded(entry, submit_entry(self.spec, entry, self.follower, self.slots))
        return self._guarded(entry, self._run_one(entry))

    def _requeue(self, entry: BatchEntry, *, moved_only: bool = False) -> bool:
        """Run ``entry``'s task again as the episode the record names next, when its run just ended failed and
        the record names another episode for it already (another call of this batch ran it again), or (unless
        ``moved_only``) the run was sealed lost before a write began: started here, or followed where the other
        call started it first. False when neither holds (the entry ends as its run did)."""
        if self.cancelled or not failed(entry.status):
            return False
        if not self.plan.moved_on(entry) and (moved_only or not lost_and_rerun(entry)):
            return False
        entry.status = "queued"  # until its new episode is recorded: the batch waits for it
        self.handle.changed(entry)
        self._again.append(asyncio.ensure_future(self._again_job(entry, entry.episode_id)))
        return True

    async def _again_job(self, entry: BatchEntry, ran: str | None) -> None:
        """Record ``entry``'s next episode (the batch's lock awaited, never blocking the loop), then run it; the run
        it ran before (sealed lost, or failed) is copied to ``upload_to`` meanwhile."""
        earlier = entry.run_dir
        try:
            await self.plan.rerun_recorded(entry)
        except Exception as exc:  # the record could not be read or written: the entry says so, the batch ends
            entry.status, entry.ended_at = "error", time.time()
            entry.error = (
                f"its run {ran} ended lost and could not be queued again ({type(exc).__name__}: {exc}); "
                f"batch(..., batch_id={self.handle.batch_id!r}) runs it again"
            )
            self.handle.changed(entry)
            return
        self.handle.changed(entry)
        await asyncio.gather(self._job(entry), self._copy_earlier(entry, earlier))

    def cancel(self) -> None:
        self.cancelled = self.handle.cancelled = True
        self.follower.cancelled = True
        for entry in self.handle.entries:
            if entry.status == "queued" and entry.handle is None:
                entry.status = "cancelled"
                self.handle.changed(entry)
            elif entry.handle is not None and not entry.handle.done():
                entry.handle.cancel()
            elif entry.future is not None and not entry.done:
                entry.future.cancel()  # a job not started yet never starts; a running one runs to its end
        self.handle.recount()  # its live paused episodes are ending: ``await batch`` waits for them

    async def _guarded(self, entry: BatchEntry, job: Coroutine[Any, Any, None]) -> None:
        """Run ``entry``'s job; what it raises is the entry's error, never the batch's (``batch.wait()`` would raise
        it, and every other entry would read "the batch stopped before this entry started")."""
        try:
            await job
        except Exception as exc:  # a bug here must not leave the entry queued (and ``await batch`` waiting) forever
            if not entry.done:
                entry.status, entry.error, entry.ended_at = "error", f"{type(exc).__name__}: {exc}", time.time()
                self.handle.changed(entry)

    async def _run_one(self, entry: BatchEntry) -> None:
        async with self.slots:
            if self.cancelled:
                return
            try:
                handle = self._start(entry)
            except RunExistsError:  # another call of this batch (another kernel) started it first: follow it there
                run_dir = self.spec.root / str(entry.reserved_id)
                if refuse_foreign(entry, run_dir, self.spec.batch_id, self.handle.record_path):
                    entry.ended_at = time.time()
                    self.handle.changed(entry)
                    return
                entry_from_disk(entry, run_dir, self.spec.adapters.get(entry.adapter))
                if entry.done and self._requeue(entry):  # lost already, and recovered by another call
                    return
                self.handle.changed(entry)
                self.follower.add(entry)
                return
            except EpisodeInterrupted as exc:  # Ctrl-C while its run was made, on a loop whose SIGINT raises
                self._interrupted_making(entry, exc)
                raise KeyboardInterrupt from None  # as anywhere else on such a loop: the script stops here
            except Exception as exc:  # e.g. the runs root is not writable: the entry says why
                entry.status, entry.error, entry.ended_at = "error", f"{type(exc).__name__}: {exc}", time.time()
                self.handle.changed(entry)
                return
            await handle.settled()  # finished, or paused for a human: the slot is free again (no view drawn)
        await self._when_done(entry, handle)

    def _interrupted_making(self, entry: BatchEntry, exc: EpisodeInterrupted) -> None:
        """The interrupt landed while ``entry``'s run was made: that run is sealed ``cancelled`` (the entry names it,
        never "not started": a later call would take its reserved id for free) and the batch stops as ``cancel()``."""
        entry.episode_id, entry.run_dir = exc.episode_id, self.spec.root / exc.episode_id
        entry.status, entry.ended_at = "cancelled", time.time()
        self.handle.changed(entry)
        self.cancel()

    def _start(self, entry: BatchEntry) -> EpisodeHandle:
        spec, task = self.spec, self.spec.tasks[entry.index]
        opts = dict(spec.episode_opts)
        tags = {**(opts.pop("tags", None) or {}), **task.tags}
        handle = create_and_launch(  # under one hold: a Ctrl-C on a loop whose SIGINT raises never leaves it unowned
            task.task,
            spec.adapters[entry.adapter],
            self.handle.loop,
            runs_dir=spec.root,
            episode_id=entry.reserved_id,
            score=spec.score,
            score_timeout_s=spec.score_timeout_s,
            inputs=task.inputs,
            tags=tags,
            batch={"batch_id": spec.batch_id, "task_index": entry.index, "adapter": entry.adapter},
            **opts,
        )
        entry.handle, entry.episode_id, entry.run_dir, entry.started_at = handle, handle.episode_id, handle.run_dir, time.time()
        self._follow_handle(entry, handle)
        return handle

    def _follow_handle(self, entry: BatchEntry, handle: EpisodeHandle) -> None:
        batch = self.handle

        def on_status(_: Any) -> None:
            if entry.disk is not None:  # ended paused, followed on disk since
                return
            if handle.ended_paused:  # its adapter ended while its run waited for a person: the run is followed on disk,
                entry_from_disk(entry, handle.run_dir, self.spec.adapters.get(entry.adapter))
                batch.changed(entry)
                self.follower.add(entry)  # and once decided (the handle, the inbox, approve_draft) resume_run continues it
                return
            status = "paused" if handle.status == "paused" else handle.status
            if status == entry.status and entry.score == handle.score:
                return
            entry.status, entry.score = status, handle.score
            if status in TERMINAL_STATUSES:
                entry.ended_at, entry.usage = handle.ended_at, handle.usage
                if isinstance(handle.error, RunWriteError):  # its run could not be written to say so
                    entry.error = _after_earlier(entry.error, str(handle.error))
                elif handle.score_error is not None:  # the run is sealed with its result; its scorer failed
                    entry.error = _after_earlier(entry.error, handle.score_error)
                self._copy_when_ended(entry, handle)
            batch.changed(entry)

        def on_event(event: dict[str, Any]) -> None:
            if event.get("phase") == "model":  # tokens changed (from the adapter's thread, maybe)
                entry.usage = handle.usage
                batch.changed(entry)

        handle.on_change(on_status)
        handle.subscribe(on_event)
        entry.status = handle.status
        batch.changed(entry)

    async def _when_done(self, entry: BatchEntry, handle: EpisodeHandle) -> None:
        """After a pause the episode goes on by itself; once sealed, its run is copied to ``upload_to``."""
        if self.spec.upload_to is None:
            return
        await handle.wait()
        task = self._copies.get((id(entry), handle.episode_id))
        if task is None and handle.status in TERMINAL_STATUSES:  # ended before it was followed
            task = self._copy_when_ended(entry, handle)
        if task is not None:
            await task

    def _copy_when_ended(self, entry: BatchEntry, handle: EpisodeHandle) -> asyncio.Task[None] | None:
        """Begin copying ``handle``'s run once it is sealed, from the step its episode ended in (before the batch is
        told): ``await batch`` then waits for the copy."""
        key = (id(entry), handle.episode_id)
        if self.spec.upload_to is None or key in self._copies:
            return self._copies.get(key)
        task = self._copies[key] = self.handle.copy_task(self._copy_sealed(entry, handle))
        return task

    async def _copy_sealed(self, entry: BatchEntry, handle: EpisodeHandle) -> None:
        assert self.spec.upload_to is not None
        await handle.wait()  # its status is final before its run is sealed
        if handle.status in TERMINAL_STATUSES:
            error = await copy_ended(handle.run_dir, self.spec.upload_to, entry.error)
            if error != entry.error:
                entry.error = error
                self.handle.changed(entry)


def _after_earlier(error: str | None, said: str) -> str:
    """An entry's error once its episode ended saying ``said``: after what the copies of the entry's earlier runs said
    while it ran (``_copy_earlier``), which it must not overwrite."""
    return f"{error}; {said}" if error and error.startswith(_EARLIER) else said


_EARLIER = "its earlier run "
