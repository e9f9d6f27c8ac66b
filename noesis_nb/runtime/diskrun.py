"""``DiskRun``: a run read from its directory, a :class:`~noesis_nb.runtime.source.RunSource` like a live handle.

A paused run can be approved or rejected here (``approve_draft`` / ``reject_draft``, the
decision is persisted first; a veto pause is overridden or upheld the same way) and resumed (on
the kernel's loop, or synchronously outside one); when another process owns the run (a live
kernel, another resume), it follows that one instead. :meth:`DiskRun.watch` follows the
directory while the run is unsealed — a few ``stat`` calls every half second — so a view of it
shows decisions, resumes and seals made anywhere: this kernel, another one, a script.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._envvars import approver_id_from_env
from ..errors import EpisodeStateError, EventLogCorruption, quoted_path
from ..secrets.quoted import quoted
from ..secrets.records import shown_streams
from ..secrets.revealed import scrubbed
from ..store import (
    find_run_dir,
    is_sealed,
    read_final,
    read_state,
    read_summary,
)
from ..store.eventlog import read_run_events
from ..store.facts import run_facts, shaped_events
from ..store.ownership import holder
from ..store.revealedrun import run_revealed, run_vouched
from ..store.runfiles import change_stamp, stamps_settled
from ..store.sealing import seal_state
from ..store.status import LOST_HINT, not_a_run, status_now
from ..store.vocab import TERMINAL_STATUSES, TOKEN_FIELDS, TOOL_APPROVAL_PENDING
from ..tools import (
    ApprovalDecisionRepository,
    PreparedInvocationRepository,
)
from ..tools.repositories import UNREADABLE_RECORD, record_problem
from .api import decide_draft, resume_run, run_name_shown
from .gate import PendingApproval, check_decision_options, tell_if_overruled
from .pending_records import awaits_decision
from .position import last_pause, payload_of
from .resume import resume_from_disk
from .stage import pause_continued
from .vetoes import read_veto_decision

__all__ = ["DiskRun", "gone_note"]


def gone_note(episode_id: str, run_dir: str | os.PathLike[str]) -> str:
    """What a view or an inbox says of a run whose folder is no longer there, and what to do about it."""
    return (
        f"run {episode_id}: its folder {quoted_path(run_dir)} is gone (removed, or moved away); nothing here can decide, "
        "resume or settle it any more. If it was moved, show it from where it is now: noesis_nb.show('<its new path>')"
    )


class DiskRun:
    """``status``, ``events``, ``pending``, ``decisions``, ``usage`` of a run directory, plus decide/resume."""

    summary_kind = "EpisodeRun"
    loop: asyncio.AbstractEventLoop | None = None  # set by resume() on a loop, so the view coalesces its events
    following: str | None = None  # who continues the run while this object follows it
    can_cancel = False  # nothing runs here to stop
    poll_interval = 0.5  # seconds between two looks at the directory while following it

    def __init__(self, target: str | os.PathLike[str], *, runs_dir: str | os.PathLike[str] | None = None, using: Any = None):
        self.run_dir = Path(find_run_dir(target, runs_dir))
        self.last_error: str | None = None
        self.adapter = using  # what a veto override resumes with (the run's own adapter)
        self._listeners: list[Callable[[Any], None]] = []
        self._subscribers: list[Callable[[dict[str, Any]], None]] = []
        self._resume_task: asyncio.Future[Any] | None = None
        self._watch_task: asyncio.Future[Any] | None = None
        self._veto_checkpoint: str | None = None
        self._signature: tuple[Any, ...] = ()
        self.rewrites = 0  # times the log was found rewritten in place rather than appended to (a view redraws)
        self.reload()

    def reload(self) -> None:
        # the look is taken before the files are read: a write landing while they are read changes the next look,
        # so it is read then (taken after, it would pass as read, and a follower would wait on a stale status forever)
        signature = self._look()
        if not stamps_settled(signature):
            # a stamp within the file system's timestamp tick of the look may change again and keep its value (a
            # decision's temp file made before the look, renamed in after the read, in one tick): not trusted, so
            # the next look reads the run again (git's "racily clean" rule); one more read after a change, no more
            signature = (*signature, object())
        if not self.run_dir.is_dir() and hasattr(self, "events"):  # removed or moved away since it was read: what was
            self._forget_drafts()  # read stays on show (a view keeps its timeline), nothing is offered to decide
            self._signature = signature
            return
        unread: list[EventLogCorruption] = []
        log = self.run_dir / "events.jsonl"
        events = shaped_events(read_run_events(log, sealed=lambda: seal_state(self.run_dir).ended, errors=unread))
        summary, state, final = read_summary(self.run_dir), read_state(self.run_dir), read_final(self.run_dir)
        facts = run_facts(self.run_dir.name, summary=summary, state=state, events=events, final=final, with_usage=True)
        # a secret one of its files names (``{"password": …}``), in clear in another: hidden in all that is shown
        revealed = run_revealed(self.run_dir, summary, state, final, events)
        self.revealed = revealed  # hidden in the run's id too, where a view shows it (``shown_id``)
        # a key streamed across events, hidden in each piece as the frames hide it (``shown_streams``); its drafts and
        # pauses are read from the events as written
        joined, found = (events, set()) if run_vouched(self.run_dir, final) else shown_streams(events)
        self.events = scrubbed(joined, revealed | found)
        self.problems: list[str] = _log_problems(unread)  # what of the run could not be read (a view shows the last)
        self.episode_id = facts.episode_id
        self.task = scrubbed(facts.task or "", revealed)
        self.using = scrubbed(facts.using or "", revealed)
        self._status = facts.status
        if (
            nothing := not_a_run(self.run_dir, summary, state, bool(events or unread))
        ) is not None:  # not "running": it never began
            self._status = "unknown"
            self.problems.append(f"{quoted_path(self.run_dir)} is not a run: {nothing}")
        self._lost = status_now(self.run_dir, self._status) == "lost"  # as the views were last told (``lost`` asks anew)
        self.started_at = facts.started_at or (events[0].get("timestamp") if events else None)
        self.ended_at = facts.ended_at
        self.usage, self.usage_calls = facts.usage, facts.usage_calls
        if unread and not facts.usage_calls:  # a line not read may have been a call: "none" is not known, each total unknown
            self.usage = {**facts.usage, **dict.fromkeys(TOKEN_FIELDS)}
        self.decisions = self._decisions()
        decided = {d["draft_id"] for d in self.decisions}
        self.pending = [p for p in self._drafts(events) if p.draft_id not in decided]
        self._veto_checkpoint = self._paused_veto(events) if self._status == "paused" and not self.pending else None
        self._signature = signature

    def _forget_drafts(self) -> None:
        """The folder is gone: no draft or veto of it can be decided, and the problems say why."""
        self.pending, self._veto_checkpoint = [], None
        note = gone_note(self.episode_id, self.run_dir)
        if note not in self.problems:
            self.problems.append(note)

    @property
    def gone(self) -> bool:
        """The run's folder is no longer there (removed, or moved away): asked at each call, one ``stat``."""
        return not self.run_dir.is_dir()

    @staticmethod
    def _paused_veto(events: list[dict[str, Any]]) -> str | None:
        """The checkpoint of the governance veto this run is paused on (not resumed yet, or by ``ns.resume`` only:
        evidence, nothing continued it), else None."""
        pause = last_pause(events)
        if pause is None or pause_continued(pause, events) or pause.cause is None or pause.checkpoint_event is None:
            return None
        if pause.cause.get("phase") != "governance":
            return None
        return str(payload_of(pause.checkpoint_event).get("checkpoint_id") or "") or None

    @property
    def paused_on_veto(self) -> bool:
        """Paused by an enforced governance veto: ``approve`` overrides it, ``reject`` upholds it."""
        return self._veto_checkpoint is not None and not self.resuming

    def veto_decision(self) -> dict[str, Any] | None:
        """The decision on the veto this run is paused on (``checkpoints/<id>/decision.json``), else None."""
        if self._veto_checkpoint is None:
            return None
        try:
            return read_veto_decision(self.run_dir, self._veto_checkpoint)
        except (OSError, ValueError):
            return None

    @property
    def hint(self) -> str | None:
        """What to do next when the view cannot do it itself (an override needs the run's adapter, a lost run a resume)."""
        if self.gone:
            return gone_note(self.episode_id, self.run_dir)
        if self.lost:
            return f"run {self.episode_id}: " + LOST_HINT.format(run=quoted(self.episode_id))
        decision = self.veto_decision()
        if decision is not None and decision.get("decision") == "override" and self.adapter is None:
            return (
                f"veto overridden: resume the run with its adapter — noesis_nb.resume_run({quoted(self.episode_id)}, "
                f"using=<adapter>) "
                f"— or show it with noesis_nb.show({quoted(self.episode_id)}, using=<adapter>) and click Resume"
            )
        return None

    @property
    def status(self) -> str:
        """The run's status; ``lost`` while its files say running but the process that wrote it is gone, or while its
        folder is gone before it ended (nothing can run, decide or seal it there; ``hint`` names the path)."""
        if self.resuming:
            return "running"
        if self._status not in TERMINAL_STATUSES and self.gone:
            return "lost"
        return "lost" if self.lost else self._status

    @property
    def lost(self) -> bool:
        """Unsealed, not paused, and written by no process any more (a seal cut short after ``terminate`` too): the
        lock is asked at each call (its release changes no file, so an object no view follows, an inbox's or a
        batch's, still knows)."""
        return not self.resuming and status_now(self.run_dir, self._status) == "lost"

    @property
    def resuming(self) -> bool:
        return self._resume_task is not None and not self._resume_task.done()

    @property
    def signature(self) -> tuple[Any, ...]:
        """What the directory looked like when this object last read it (see ``changed``)."""
        return self._signature

    @property
    def can_resume(self) -> bool:
        """Paused, decided (every draft, or the veto: upheld, or overridden with the adapter at hand), not resuming already."""
        if self._status != "paused" or self.pending or self.resuming or self.gone:
            return False
        if self._veto_checkpoint is not None:
            decision = self.veto_decision()
            return decision is not None and (decision.get("decision") == "uphold" or self.adapter is not None)
        return bool(self.decisions)

    def _drafts(self, events: list[dict[str, Any]]) -> list[Any]:
        ended = seal_state(self.run_dir).ended  # a run whose seal began takes no decision: none of its drafts waits
        asked = {
            str((e.get("payload") or {}).get("draft_id")): e.get("timestamp")
            for e in events
            if (e.get("payload") or {}).get("event_name") == TOOL_APPROVAL_PENDING
        }
        return [
            PendingApproval.from_prepared(p, asked.get(p.key) or "")
            for p in PreparedInvocationRepository(self.run_dir).readable(self.problems)
            if awaits_decision(p, run_ended=ended)
        ]

    def _decisions(self) -> list[dict[str, Any]]:
        repo = ApprovalDecisionRepository(self.run_dir)
        rows = []
        for path in sorted(repo.root.glob("*.json")) if repo.root.is_dir() else []:
            try:
                record = repo.get(None, path.name[:-5])
            except UNREADABLE_RECORD as exc:
                self.problems.append(record_problem(exc, repo.root, path.name))
                continue
            if record is not None:
                rows.append(
                    {
                        "draft_id": record.draft_id or path.name[:-5],
                        "status": str(getattr(record.status, "value", record.status)),
                        "approver_id": record.approver_id,
                        "decided_at": getattr(record, "decided_at", None),
                        "reason": getattr(record, "reason", None),
                    }
                )
        return sorted(rows, key=lambda r: r.get("decided_at") or "")

    # -- what the view's buttons call ---------------------------------------------------------
    def on_change(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return _remover(self._listeners, callback)

    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """``callback(event)`` for events that appear on disk when this object re-reads the run."""
        self._subscribers.append(callback)
        return _remover(self._subscribers, callback)

    def refresh(self) -> None:
        """Read the directory again and tell the views what changed (new events, status, decisions)."""
        self._changed()

    def _changed(self) -> None:
        before = self.events
        self.reload()
        if self.events[: len(before)] != before:  # rewritten in place (the seal's secret sweep, an edit): the views
            self.rewrites += 1  # draw the run again from its events, rather than add to what they showed
        else:
            for event in self.events[len(before) :]:
                for subscriber in list(self._subscribers):
                    subscriber(event)
        self._notify()

    def _notify(self) -> None:
        for callback in list(self._listeners):
            callback(self)

    # -- following the directory ------------------------------------------------------------
    def _look(self) -> tuple[Any, ...]:
        """What changes when anyone writes to the run: the event log, its state, decisions, a veto decision, the seal."""
        parts: list[Any] = []
        # state.json too: a resume's last write is the state leaving ``partial`` (after its ``run.resume`` event), and
        # a read between the two says ``paused``; without it nothing after (``ns.resume`` writes no more) says read again
        paths = ["events.jsonl", "state.json", "manifest.json", "tool_invocations/approvals"]
        if self._veto_checkpoint:
            paths.append(f"checkpoints/{self._veto_checkpoint}")
        for rel in paths:
            try:
                st = os.stat(self.run_dir / rel)
            except OSError:
                parts.append(None)
                continue
            parts.append(change_stamp(st))
        return tuple(parts)

    def changed(self) -> bool:
        """True when anyone wrote to the run since it was last read (a few ``stat`` calls)."""
        return self._look() != self._signature

    def watch(self) -> bool:
        """Follow the directory from the running loop while the run is unsealed (idempotent); False without a loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        if self._watch_task is not None and not self._watch_task.done():
            return True
        if is_sealed(self.run_dir):
            return False
        self.loop = loop
        self._watch_task = loop.create_task(self._follow(), name=f"noesis_nb:watch:{self.episode_id}")
        return True

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(self.poll_interval)
            if not self._listeners:  # every view of it closed
                return
            if self._look() != self._signature or self._lost != (status_now(self.run_dir, self._status) == "lost"):
                self._changed()  # a write, or the writer's process gone (its lock let go changes no file)
            if is_sealed(self.run_dir) and not self.resuming:
                if self._look() != self._signature:
                    self._changed()
                return

    def approve(self, draft_id: str | None = None, *, approver_id: str | None = None, reason: str | None = None) -> Any:
        """Approve a draft (or override the paused veto); a draft decided already gives that decision back (``created=False``).
        ``approver_id``: who decides; by default ``$NOESIS_NB_APPROVER_ID``, else ``"human"``."""
        approver_id = approver_id_from_env(approver_id)
        check_decision_options(draft_id, approver_id, reason)  # the caller's options before the run is read
        self._check_decidable(draft_id)
        decision = decide_draft(self.run_dir, draft_id, approve=True, approver_id=approver_id, reason=reason, runs_dir=None)
        self._changed()
        return tell_if_overruled(decision, True, stacklevel=2)

    def reject(self, draft_id: str | None = None, *, reason: str | None = None, approver_id: str | None = None) -> Any:
        """Reject a draft (or uphold the paused veto); a draft decided already gives that decision back."""
        approver_id = approver_id_from_env(approver_id)
        check_decision_options(draft_id, approver_id, reason)
        self._check_decidable(draft_id)
        decision = decide_draft(self.run_dir, draft_id, approve=False, approver_id=approver_id, reason=reason, runs_dir=None)
        self._changed()
        return tell_if_overruled(decision, False, stacklevel=2)

    def _check_decidable(self, draft_id: str | None) -> None:
        """Read the directory again first: a run that ended meanwhile takes no new decision (a decided draft still answers)."""
        self.reload()
        if self.gone:
            self._notify()
            raise EpisodeStateError(gone_note(self.episode_id, self.run_dir))
        if self._status in TERMINAL_STATUSES and not any(d["draft_id"] == draft_id for d in self.decisions):
            self._notify()
            raise EpisodeStateError(f"run {self.episode_id} has ended ({self._status}); nothing waits for a decision any more")

    def resume(self) -> None:
        """Continue the paused run: a task on the running loop (a click in a notebook), else synchronously.

        Reads the directory first; does nothing while a resume is running or when the run cannot be
        resumed (see ``can_resume``: someone else may have resumed or sealed it meanwhile)."""
        if self.resuming:
            return None
        self._changed()
        if not self.can_resume:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            resume_run(self.run_dir, using=self.adapter)
            self._changed()
            return None
        self.last_error = None
        self.loop = loop
        self._resume_task = loop.create_task(self._resume_and_follow(), name=f"noesis_nb:resume:{self.episode_id}")
        self._resume_task.add_done_callback(self._resumed)
        self._changed()
        return None

    async def _resume_and_follow(self) -> None:
        """Resume the run; when another process owns it (a live kernel, another resume), follow that one instead."""

        with run_name_shown(self.run_dir):  # its error is said by ``last_error``: the folder as views show it
            report = await resume_from_disk(self.run_dir, using=self.adapter)
        if report.action != "busy":
            return
        self.following = report.message
        while not is_sealed(self.run_dir) and holder(self.run_dir) is not None:
            await asyncio.sleep(0.5)
            self._changed()
        self.following = None

    def cancel(self) -> bool:
        """Nothing runs in this object (a run on disk); Stop is not offered for it."""
        return False

    def _resumed(self, task: asyncio.Future[Any]) -> None:
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            self.last_error = f"resume failed: {type(exc).__name__}: {exc}"
        self._changed()


def _remover(items: list[Any], item: Any) -> Callable[[], None]:
    """A function that removes ``item`` from ``items`` once (an unsubscribe)."""

    def remove() -> None:
        if item in items:
            items.remove(item)

    return remove


def _log_problems(unread: list[EventLogCorruption], shown: int = 3) -> list[str]:
    """The lines a view shows for an events file it could not read (line 0: the whole file), a few by name (its path
    as messages name it: a run folder named with a credential shows as views show it)."""
    lines = [
        f"{quoted_path(c.path)}: {c.reason}; the timeline is shown without it"
        if c.line_number == 0
        else f"{quoted_path(c.path)}, line {c.line_number}: {c.reason}; the line is left out"
        for c in unread[:shown]
    ]
    if len(unread) > shown:
        lines.append(f"{quoted_path(unread[0].path)}: {len(unread) - shown} more lines could not be read")
    return lines
