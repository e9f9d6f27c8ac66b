"""Where each entry of a (recorded) batch stands on disk, and what running the batch again does with it.

- no run directory yet: queued (it never started), with the episode id the record reserved;
- sealed ``ok`` or ``vetoed``: kept; sealed ``error``/``cancelled``: kept, or re-run with ``rerun_failed=True``;
- paused, or owned by a live process (another kernel, a worker): followed on disk (:mod:`.follow`);
- unsealed with nobody owning it (its process died while it ran): ``resume_run`` recovers it (completes a seal
  cut short, or seals it ``error``/``process_lost``), then a lost one runs again as a new episode.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from .._jsonio import as_object
from ..ids import new_episode_id
from ..runtime.diskrun import DiskRun
from ..runtime.resume import resume_from_disk
from ..store import is_run_dir, is_sealed, read_events, read_summary, verify_manifest
from ..store.instants import epoch_seconds
from ..store.ownership import holder
from ..store.vocab import TOOL_EXECUTION_STARTED, Status, failed
from ..tools.repositories import PreparedInvocationRepository
from ..tools.types import EffectKind
from .claim import not_this_entry, refuse_foreign
from .handle import BatchEntry, BatchHandle
from .policy_pause import asks_a_person, undecided_policy_pause
from .record import load_record, record_lock_async, save_record
from .spec import BatchSpec

__all__ = ["EntryPlan", "entry_from_disk", "lost_and_rerun", "say_lost"]


class EntryPlan:
    """The batch's entries as the record and the disk say (see the module docstring)."""

    def __init__(self, spec: BatchSpec, record: dict[str, Any], path: Path):
        self.spec = spec
        self.record = record
        self.path = path
        self.lost: list[BatchEntry] = []
        self.entries = [self._entry(row) for row in record["entries"]]

    def _row(self, entry: BatchEntry) -> dict[str, Any]:
        row: dict[str, Any] = self.record["entries"][self.entries.index(entry)]
        return row

    def _entry(self, row: dict[str, Any]) -> BatchEntry:
        index, adapter = int(row["task_index"]), str(row["adapter"])
        entry = BatchEntry(index=index, task=self.spec.tasks[index].task, adapter=adapter, reserved_id=row["episode_id"])
        run_dir = self.spec.root / row["episode_id"]
        if run_dir.is_symlink():  # planted in a shared root: it would read (and report) another run as this entry's
            entry.status = "error"
            entry.error = (
                f"{run_dir} is a symbolic link (to {os.path.realpath(run_dir)}), not a run of this root; the batch "
                "neither follows nor continues it. Remove the link (or move the real run there) and call batch again"
            )
            return entry
        if not is_run_dir(run_dir):
            return entry  # queued: never started
        if refuse_foreign(entry, run_dir, self.spec.batch_id, self.path):
            return entry
        entry_from_disk(entry, run_dir, self.spec.adapters.get(adapter))
        if is_sealed(run_dir):  # done: its terminate event alone is not (a seal cut short is recovered below)
            changed = _said_changed(entry, run_dir, self.spec.root)  # run anew only when asked (rerun_failed)
            if failed(entry.status) and (self.spec.rerun_failed or not changed and _lost_before_a_write(entry, run_dir)):
                self._rerun(entry, row)
            return entry
        if entry.disk is not None and entry.disk.status == "paused" or holder(run_dir) is not None:
            if undecided_policy_pause(entry.disk) is not None and not asks_a_person(self.spec.episode_opts.get("approver")):
                entry.status = "running"  # left undecided by a policy: this call's policy decides it (the follower)
            return entry  # followed on disk (resumed by the batch once decided)
        entry.status = "queued"  # nobody owns it and it is not paused: its process died while it ran
        self.lost.append(entry)
        return entry

    def _rerun(self, entry: BatchEntry, row: dict[str, Any], *, adopt: bool = False) -> None:
        """Queue ``entry`` again as a new episode; ``adopt``: as the one the record names already (another call chose it)."""
        if not adopt:
            row["previous"] = [*row.get("previous", []), row["episode_id"]]
            row["episode_id"] = new_episode_id()
            self.dirty = True
        entry.reserved_id = row["episode_id"]
        entry.episode_id = entry.run_dir = entry.disk = entry.future = entry.error = None
        entry.status, entry.score, entry.usage, entry.started_at, entry.ended_at = "queued", None, {}, None, None

    dirty = False

    def save_if_changed(self) -> None:
        if self.dirty:
            save_record(self.path, self.record)
            self.dirty = False

    async def recover(self, handle: BatchHandle) -> None:
        """Recover the runs whose process died mid-way; a lost one runs again (new id), a completed seal is kept."""
        for entry in self.lost:
            assert entry.run_dir is not None
            try:
                await resume_from_disk(entry.run_dir, seal_cut_off=True)  # a tool begun: said, run anew when asked
                entry_from_disk(entry, entry.run_dir, self.spec.adapters.get(entry.adapter))
            except Exception as exc:  # a run that cannot be recovered: the entry says why, the others go on
                entry.status, entry.error = "error", f"recovering {entry.run_dir.name}: {type(exc).__name__}: {exc}"
                handle.changed(entry)
                continue
            if failed(entry.status) and (self.spec.rerun_failed or _lost_before_a_write(entry, entry.run_dir)):
                await self.rerun_recorded(entry)
            handle.changed(entry)
        self.lost = []

    def earlier_runs(self, entry: BatchEntry) -> list[Path]:
        """The sealed runs ``entry`` ran before its current episode (the record's ``previous``: lost runs run again,
        failed ones re-run), each one checked to be this entry's run: a batch copies them to ``upload_to`` too."""
        runs: list[Path] = []
        for episode_id in self._row(entry).get("previous", []):
            run_dir = self.spec.root / str(episode_id)  # validated when the record was read
            try:
                if run_dir.is_symlink() or not is_sealed(run_dir):
                    continue
            except OSError:  # a folder that cannot be read (its permissions changed): not copied, as an unsealed one
                continue
            if not_this_entry(run_dir, self.spec.batch_id, entry, self.path) is None:
                runs.append(run_dir)
        return runs

    def moved_on(self, entry: BatchEntry) -> bool:
        """Whether the record on disk names another episode for ``entry`` than the one it ran (another call of
        the batch ran it again); False when the record cannot be read (the entry keeps what it ran)."""
        try:
            record = load_record(self.path)
            row = record["entries"][self.entries.index(entry)] if record else None
        except Exception:  # damaged or taken away: the call that writes it next says so
            return False
        return isinstance(row, dict) and row.get("episode_id") != entry.episode_id

    async def rerun_recorded(self, entry: BatchEntry) -> None:
        """Re-run ``entry`` as a new episode, in the record as it is now on disk (another call of the batch may have).
        Waits for the batch's lock without blocking the loop."""
        ran = entry.episode_id
        async with record_lock_async(self.path):
            self.record = load_record(self.path) or self.record
            row = self._row(entry)
            # another call of this batch re-ran it already: the episode it chose is this entry's
            self._rerun(entry, row, adopt=row["episode_id"] != ran)
            self.save_if_changed()


def entry_from_disk(entry: BatchEntry, run_dir: Path, adapter: Any) -> None:
    """Fill ``entry`` from its run directory (status, usage, score, times); keeps the ``DiskRun`` to follow it."""
    run = entry.disk
    if run is not None and run.run_dir == run_dir:
        run.reload()
    else:
        run = DiskRun(run_dir, using=adapter)
    entry.disk, entry.run_dir, entry.episode_id = run, run_dir, run_dir.name
    entry.status, entry.usage = run.status, dict(run.usage)
    if entry.status == Status.LOST:
        # its writer died while it ran (the disk's word for it; no entry's status): the follower, or the next call's
        # plan, recovers it (sealed ``process_lost``, then the entry says how its task runs again)
        entry.status = "running"
    if entry.status == "paused" and run.can_resume:
        entry.status = "running"  # decided: it continues (the batch resumes it), it waits for nobody
    if entry.done and not is_sealed(run_dir):
        # its terminate is written but not its seal yet (the score is in the summary still to come): it ends
        # when the manifest appears, which the follower notices (or, its process gone, completes)
        entry.status = "running"
    if entry.started_at is None:
        entry.started_at = _epoch(run.started_at)
    if entry.done:
        entry.ended_at = _epoch(run.ended_at) or time.time()
        summary = read_summary(run_dir) or {}
        score = as_object(summary.get("metrics")).get("score")
        entry.score = score if isinstance(score, (bool, int, float)) else None
        score_error = as_object(summary.get("x-noesis_nb")).get("score_error")
        if isinstance(score_error, str) and entry.error is None:
            entry.error = score_error  # its scorer failed or timed out: kept as it is when the batch runs again


def _said_changed(entry: BatchEntry, run_dir: Path, root: Path) -> bool:
    """A kept sealed run whose files are no longer those its manifest lists (the frames' quick check: sizes, and a
    hash of a file modified after the seal) is not the run it sealed: the entry ends ``error`` naming what changed,
    so it is not counted as done, and ``rerun_failed=True`` runs its task anew (the changed run is left as it is)."""
    check = verify_manifest(run_dir, quick=True)
    if check.status == "ok":
        return False
    changed = "; ".join(check.problems[:3]) + ("; …" if len(check.problems) > 3 else "")
    entry.status, entry.score = "error", None
    entry.error = (
        f"its run {run_dir} was changed after it was sealed ({changed}), so what it says is not what the run recorded. "
        f"Restore its files from a copy, or call batch(..., rerun_failed=True), which runs the task anew and leaves that "
        f"run in {root} as it is"
    )
    return True


def lost_and_rerun(entry: BatchEntry) -> bool:
    """Whether ``entry``'s run, just read as ended, was sealed lost before any tool that writes began: the batch
    runs its task again as a new episode (an entry a write began in says so instead, see ``_lost_before_a_write``)."""
    return entry.run_dir is not None and failed(entry.status) and _lost_before_a_write(entry, entry.run_dir)


def say_lost(entry: BatchEntry, batch_id: str) -> None:
    """A followed run recovered as lost (its process died while it ran), just read from disk: the entry says what
    running the batch again does."""
    if entry.error is None and lost_and_rerun(entry):
        entry.error = (
            f"its process died while it ran (sealed {entry.status}, process_lost); batch(..., batch_id={batch_id!r}) "
            "runs it again as a new episode"
        )


def _lost(run_dir: Path) -> bool:
    """Sealed ``error`` because its process died while the adapter ran (``resume_run``'s ``process_lost``)."""
    reasons = as_object(as_object(read_summary(run_dir)).get("x-noesis_nb")).get("reasons")
    return isinstance(reasons, list) and "process_lost" in reasons


def _lost_before_a_write(entry: BatchEntry, run_dir: Path) -> bool:
    """A lost run is run again by itself only when no tool that writes had begun to run in it: starting the
    task over would run that tool a second time. Otherwise the entry says so, and ``rerun_failed=True`` asks for it."""
    if not _lost(run_dir):
        return False
    # the entry's run was just read from disk (entry_from_disk): its events are at hand
    events = entry.disk.events if entry.disk is not None else read_events(run_dir / "events.jsonl", strict=False)
    writes = _write_tools_started(run_dir, events)
    if writes:
        entry.error = (
            f"its process died after {', '.join(writes)} began to run (effect write), so it is not run again by "
            "itself: starting the task over runs that tool again. Check what it did, then pass rerun_failed=True."
        )
    return not writes


def _write_tools_started(run_dir: Path, events: list[dict[str, Any]]) -> list[str]:
    """Names of the tools whose execution began in the run (its ``events``) and whose draft does not say ``effect="read"``."""
    drafts = PreparedInvocationRepository(run_dir)
    names: list[str] = []
    for event in events:
        payload = as_object(event.get("payload"))
        if event.get("phase") != "tool" or payload.get("event_name") != TOOL_EXECUTION_STARTED:
            continue
        try:
            draft = drafts.get(None, str(payload.get("draft_id")))
        except Exception:  # an unreadable draft: its effect is unknown, so it counts as a write
            draft = None
        if draft is None or draft.governance.effect_kind is not EffectKind.READ:
            name = draft.tool.name if draft is not None else str(payload.get("draft_id"))
            names.append(repr(name))
    return names


def _epoch(value: Any) -> float | None:
    """Seconds since the epoch of a stored time, by the one rule (``store.instants``: no offset is UTC)."""
    return epoch_seconds(value)
