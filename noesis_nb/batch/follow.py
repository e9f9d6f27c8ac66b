"""Following a batch's runs through their directories: runs of other processes (workers, a kernel) and pauses on disk.

Every ``poll_s`` the follower ``stat``s each unfinished run (as a view of a run on disk does) and
re-reads the ones that changed. A run paused on disk that nobody owns continues here once decided
(``approve_draft`` on its run directory, the batch's inbox): ``resume_run`` executes the decision once.
A run that a live worker owns is left to it: the worker's waiting episode reads the decision itself. A run whose
owner died while it ran (another kernel killed, a worker lost) is recovered here, so ``await batch`` ends: sealed
``error`` (``process_lost``), and the entry says how the batch runs it again. A run another call of the batch
recovered while this one followed it is run again as that call does (``requeue``): the episode the record names
next is this entry's, started here or followed where the other call started it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from ..runtime.resume import resume_from_disk
from ..store import is_run_dir
from ..store.ownership import holder
from ..store.vocab import TERMINAL_STATUSES
from ..tools.errors import ToolOutcomeUnknownError
from .claim import refuse_foreign
from .handle import BatchEntry, BatchHandle
from .plan import entry_from_disk, say_lost
from .policy_pause import asks_a_person, decide_by_policy, policy_id, undecided_policy_pause, why_it_waits
from .spec import BatchSpec
from .upload import copy_ended

__all__ = ["Follower"]


class Follower:
    """Keeps the batch's disk-followed entries true (see the module docstring)."""

    poll_s = 0.25

    def __init__(
        self,
        handle: BatchHandle,
        spec: BatchSpec,
        slots: asyncio.Semaphore,
        requeue: Callable[..., bool] | None = None,
    ):
        self.handle = handle
        self.requeue = requeue  # runs an entry's task again as a new episode (the runner's ``_requeue``)
        self.spec = spec
        self.slots = slots
        self.cancelled = False
        self.entries: list[BatchEntry] = [e for e in handle.entries if e.disk is not None and not e.done]
        self._resuming: set[int] = set()
        # entries whose decided run could not be resumed (a file changed since the pause …): the run's signature then;
        # tried again once the run changes (a person restored the file), not every look
        self._refused: dict[int, Any] = {}
        self._task: asyncio.Future[Any] | None = None  # the following loop, once started by ``add``
        self._active = False
        self._pending: set[asyncio.Future[Any]] = set()  # resumes and copies under way: the loop ends after them
        self._copied: set[tuple[int, str]] = set()  # (entry, episode) whose ended run was handed to ``copy_ended``
        self._policy_asked: set[int] = set()  # entries whose pause a dead policy left undecided, decided here once

    @property
    def task(self) -> asyncio.Future[Any] | None:
        """The following loop ``add`` started (None before): the runner waits for it."""
        return self._task

    def add(self, entry: BatchEntry) -> None:
        """Follow one more entry (a job just handed to an executor, a run begun elsewhere); starts following when it
        was idle. An entry already ended is not followed, but its run is copied (``upload_to``)."""
        self.entries.append(entry)
        self._copy_if_ended(entry)
        if not self._active:
            self._task = asyncio.ensure_future(self.run())

    def _spawn(self, job: Any) -> None:
        future = asyncio.ensure_future(job)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)

    def _copy_if_ended(self, entry: BatchEntry) -> None:
        """Copy ``entry``'s sealed run to ``upload_to`` once, whoever sealed it: a worker or a kernel the batch
        followed, another process that resumed a pause (``resume_run``), this follower."""
        run_dir, episode = entry.run_dir, entry.episode_id
        if self.spec.upload_to is None or not entry.done or run_dir is None or episode is None:
            return
        if (id(entry), episode) in self._copied:
            return
        self._copied.add((id(entry), episode))
        self._spawn(self.handle.copy_task(self._copy(entry, run_dir)))  # counted now: ``await batch`` waits

    async def _copy(self, entry: BatchEntry, run_dir: Any) -> None:
        assert self.spec.upload_to is not None
        future = entry.future
        while future is not None and not future.done():  # its job copies the run itself first: then it is whole
            await asyncio.sleep(self.poll_s)
        error = await copy_ended(run_dir, self.spec.upload_to, entry.error)
        if error != entry.error and entry.run_dir == run_dir:
            entry.error = error
            self.handle.changed(entry)

    async def run(self) -> None:
        if self._active:
            return
        self._active = True
        try:
            while self.entries or self._pending:  # after a cancel too: runs of other processes end there, lost ones are recovered
                self.tick()
                # after a cancel a run paused on disk stays paused (nothing here continues it): no longer followed
                self.entries = [e for e in self.entries if not e.done and not (self.cancelled and e.status == "paused")]
                await asyncio.sleep(self.poll_s)
        finally:
            self._active = False

    def tick(self) -> None:
        for entry in list(self.entries):
            self.tick_one(entry)

    def tick_one(self, entry: BatchEntry) -> None:
        try:
            self._look(entry)
        except Exception as exc:  # a run directory half-written or removed: say so, keep following the others
            entry.error = f"{type(exc).__name__}: {exc}"
        self._copy_if_ended(entry)  # ended here or by another process (an entry run again is queued: not ended)

    def _look(self, entry: BatchEntry) -> None:
        run = entry.disk
        if run is None:
            run_dir = self.spec.root / str(entry.reserved_id)
            if not is_run_dir(run_dir):
                self._job_failed(entry)
                return
            if refuse_foreign(entry, run_dir, self.spec.batch_id, self.handle.record_path):
                self.handle.changed(entry)
                return
            entry_from_disk(entry, run_dir, self.spec.adapters.get(entry.adapter))
            if entry.done and self._run_again(entry):
                return
            self.handle.changed(entry)
            return
        if not is_run_dir(run.run_dir):  # removed (or moved) while followed: nothing is left to follow or recover
            entry.status, entry.ended_at = "error", time.time()
            entry.error = (
                f"its run folder {run.run_dir} was removed while the batch followed it; "
                f"batch(..., batch_id={self.spec.batch_id!r}) runs the task again"
            )
            self.handle.changed(entry)
            return
        if run.changed():
            seen = (entry.status, dict(entry.usage))
            entry_from_disk(entry, run.run_dir, run.adapter)
            if run.status == "paused" and self._refused.get(id(entry)) == _stamps(run):
                entry.status = "paused"  # read again, its files as they were when its resume was refused: it still waits
            if entry.done and seen[0] not in TERMINAL_STATUSES:
                if self._run_again(entry):
                    return
                say_lost(entry, self.spec.batch_id)  # not run again (a cancel): it says how to
            if (entry.status, entry.usage) != seen or entry.done:
                self.handle.changed(entry)
        if id(entry) in self._resuming:
            return
        if run.status == "paused":
            left = None if self.cancelled or holder(run.run_dir) is not None else undecided_policy_pause(run)
            if self.cancelled and entry.status != "paused":  # decided, but the batch stopped: it stays paused on disk
                entry.status = "paused"
                self.handle.changed(entry)
            elif left is not None and id(entry) not in self._policy_asked:
                self._by_policy(entry, *left)
            elif (
                not self.cancelled
                and run.can_resume
                and holder(run.run_dir) is None
                and self._refused.get(id(entry)) != _stamps(run)  # unchanged since its resume was refused: not again
            ):
                self._resuming.add(id(entry))
                self._spawn(self._resume(entry))
        elif entry.status == "running" and (entry.future is None or entry.future.done()) and holder(run.run_dir) is None:
            # its process (a kernel killed, a worker lost) died while it ran: a seal cut short is completed, else
            # it is sealed process_lost (no episode runs: no slot taken, and done after a cancel too)
            self._resuming.add(id(entry))
            self._spawn(self._resume(entry, lost=True))

    def _by_policy(self, entry: BatchEntry, draft_id: str, marked: str) -> None:
        """A pause a policy decided whose decision never reached disk (its process died in between): this call's policy
        decides it, then it continues as a decided pause; asking a person, the entry says why it waits (once)."""
        self._policy_asked.add(id(entry))
        policy = self.spec.episode_opts.get("approver")
        if asks_a_person(policy):
            said = why_it_waits(str(entry.episode_id), draft_id, marked, "this call of the batch (approver='ask')")
            entry.status, entry.error = "paused", said
            self.handle.changed(entry)
            return
        # decided at once by the policy: it waits for nobody (what recovering its lost run said is out of date)
        entry.status, entry.error = "running", None
        self._resuming.add(id(entry))
        self.handle.changed(entry)
        self._spawn(self._decide_by_policy(entry, draft_id, marked, policy))

    async def _decide_by_policy(self, entry: BatchEntry, draft_id: str, marked: str, policy: Any) -> None:
        run = entry.disk
        assert run is not None
        try:
            decided = await decide_by_policy(run.run_dir, draft_id, policy)
        except Exception as exc:  # the policy raised, or the decision could not be written: the entry says so
            decided, entry.error = False, f"its approver policy could not decide draft {draft_id}: {type(exc).__name__}: {exc}"
        finally:
            self._resuming.discard(id(entry))
        entry_from_disk(entry, run.run_dir, run.adapter)
        if not decided and entry.error is None:  # the policy answered None: a person decides it
            entry.error = why_it_waits(str(entry.episode_id), draft_id, marked, f"approver {policy_id(policy)}")
        self.handle.changed(entry)

    def _run_again(self, entry: BatchEntry, *, moved_only: bool = False) -> bool:
        """A followed run that ended failed while another call of the batch ran its task again (the record names
        the new episode), or sealed lost before a write began: its task runs again as that call runs it (both
        take the episode the record names next: one starts it, the other follows it). ``moved_only``: only the
        first (this follower recovered the run itself: the entry says how the batch runs it again)."""
        if self.requeue is None or id(entry) in self._resuming:
            return False
        try:
            if not self.requeue(entry, moved_only=moved_only):
                return False
        except Exception as exc:  # the entry says why; never an entry no longer followed and never ended
            entry.status, entry.ended_at = "error", time.time()
            entry.error = f"its task could not be queued again ({type(exc).__name__}: {exc})"
            self.handle.changed(entry)
        if entry in self.entries:
            self.entries.remove(entry)
        return True

    def _job_failed(self, entry: BatchEntry) -> None:
        """A job that ended without ever creating its run (the worker could not start it): the entry says why."""
        future = entry.future
        if future is None or not future.done() or entry.done:
            return
        if future.cancelled():  # the batch was cancelled before its job started
            entry.status, entry.error = "cancelled", entry.error or "the batch stopped before this entry started"
            self.handle.changed(entry)
            return
        error = future.exception()
        entry.status, entry.error = ("error", f"{type(error).__name__}: {error}") if error else ("error", "the job ended early")
        self.handle.changed(entry)

    def _unrecoverable(self, entry: BatchEntry, why: str | None) -> None:
        """A run whose process is gone, still unsealed after ``resume_run`` (a crafted or damaged run: say a folder
        where its manifest goes): the entry ends ``error`` naming it, rather than being recovered again for ever."""
        run_dir = entry.run_dir
        entry.status, entry.ended_at = "error", time.time()
        entry.error = (
            f"its run {run_dir} cannot be sealed: its process is gone and resume_run left it unsealed ({why}). "
            f"Check that run's files; or move it out of {self.spec.root} and call the batch again, which runs the task anew"
        )

    def _outcome_unknown(self, entry: BatchEntry, exc: ToolOutcomeUnknownError) -> None:
        """A run whose process died while a tool ran: the entry ends ``error`` saying so; the batch neither seals it
        nor runs the task again (either could repeat or hide an effect). ``resume_run`` with ``unknown_outcome``
        decides it once a person has checked."""
        entry.status, entry.ended_at = "error", time.time()
        entry.error = (
            f"{type(exc).__name__}: {exc} The batch leaves this run as it is; once resume_run has sealed it, call the "
            "batch again to go on"
        )

    async def _resume_in_slot(self, entry: BatchEntry, run: Any) -> None:
        """Continue a decided pause in one of the batch's slots (nothing once the batch is cancelled)."""
        async with self.slots:
            if self.cancelled:
                return
            if self._refused.pop(id(entry), None) is not None:
                entry.error = None  # tried again, its files changed: what the refusal said may no longer hold
            entry.status = "running"
            self.handle.changed(entry)
            await resume_from_disk(run.run_dir, using=run.adapter)

    async def _resume(self, entry: BatchEntry, *, lost: bool = False) -> None:
        """Continue a run paused on disk once decided (in a slot, not after a cancel); ``lost``: recover a run whose
        process died."""
        run = entry.disk
        assert run is not None
        said: str | None = None  # what resume_run answered for a lost run
        action = ""  # its action: ``already_sealed`` (another call sealed it first) or ``busy`` (it is sealing it now)
        refused = False
        unknown: ToolOutcomeUnknownError | None = None  # cut while a tool ran: its effects are for a person to check
        try:
            if lost:
                report = await resume_from_disk(run.run_dir, using=run.adapter, seal_cut_off=True)
                said, action = report.message or report.action, report.action
            else:
                await self._resume_in_slot(entry, run)
        except Exception as exc:
            entry.error = f"{type(exc).__name__}: {exc}"
            refused = not lost  # a decided pause refused: it waits for its files to change (below)
            if lost and isinstance(exc, ToolOutcomeUnknownError):  # a resume of it was cut in its tool before
                unknown = exc
        finally:
            self._resuming.discard(id(entry))
            entry_from_disk(entry, run.run_dir, run.adapter)
            say_lost(entry, self.spec.batch_id)
            if refused and run.status == "paused" and holder(run.run_dir) is None:
                # still paused on disk: it waits for a person (the error says what to repair), as an undecided pause
                # does — ``await batch`` returns — and is resumed again once its files change
                entry.status = "paused"
                entry.error = f"{entry.error}; the batch resumes it once the run's files change"
                self._refused[id(entry)] = _stamps(run)
            # ``busy``: read while its sealer still held it, which may have let it go since: the next look reads it again
            if unknown is not None and entry.status == "running" and holder(run.run_dir) is None:
                self._outcome_unknown(entry, unknown)
            elif lost and action != "busy" and entry.status == "running" and holder(run.run_dir) is None:
                self._unrecoverable(entry, said or entry.error)
            self.handle.changed(entry)
        # sealed here: the entry says how the batch runs it again (unless another call ran it again already); sealed
        # by another call first (it recovered the run as it planned the batch, and records the run again next, maybe
        # not yet): run again as a run found sealed on a look is, the episode the record names next
        if entry.done and self._run_again(entry, moved_only=action != "already_sealed"):
            return
        self._copy_if_ended(entry)


def _stamps(run: Any) -> tuple[Any, ...]:
    """The stamps of a run's files as its ``DiskRun`` last read them, without the mark it adds to a look too recent to
    trust (so it reads the run again): that mark differs at every read, and the run would count as changed."""
    return tuple(part for part in run.signature if type(part) is not object)
