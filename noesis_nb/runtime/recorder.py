"""One run directory being written: events, state, pauses and checkpoints, by its one owner.

A recorder owns its run (``store.ownership``) from creation or reopening until it seals the run
or leaves a pause on disk; nobody else writes the run meanwhile, in this process or another.
The sealing sequence lives in ``lifecycle``; everything here keeps Noēsis' order.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _forks
from .._jsonio import as_object, atomic_write_json, canonical_json, sha256_bytes, to_jsonable
from ..config import check_runs_folder
from ..errors import (
    DISK_REFUSALS,
    EpisodeStateError,
    EventLogIntegrityError,
    InvalidIdError,
    RunExistsError,
    RunsDirError,
    RunSealedError,
    RunWriteError,
    refusal_fix,
    refused_write,
)
from ..ids import is_minted, new_checkpoint_id, new_event_id, validate_id, validate_new_episode_id
from ..secrets import for_run as secrets_for_run
from ..secrets import redact as redact_secrets
from ..secrets.display import made_here
from ..secrets.quoted import quoted
from ..secrets.streamed import streamed_piece
from ..store import EventWriter, is_sealed, now_iso, read_events_to_continue, read_state
from ..store.casetwins import RootKey, case_twin, note_created
from ..store.ownership import OWNER_FILE, RunOwnership, acquire
from ..store.paths import refuse_too_deep, run_path
from ..store.roots import refuse_run_as_root
from ..store.runfiles import UnreadableRunFile, read_file
from ..store.staging import staging_name, sweep_once
from ..store.vocab import (
    POLICY_DEFERRED_KEY,
    POLICY_PAUSE_KEY,
    RUN_CHECKPOINT,
    RUN_INTERRUPT,
    RUN_RESUME,
    RUN_STATE_PROJECTION,
    TOOL_APPROVAL_PENDING,
)
from ..tools._files import as_written_here, note_written
from .openpause import open_pause
from .pending_records import pause_on_draft
from .recovered_streams import sweep_recovered_streams
from .summary import TALLIED_IN_DETAIL, EventTally

__all__ = ["Recorder", "artifact_digest", "INDEXED_PHASES"]

Subscriber = Callable[[dict[str, Any]], None]
_EAGER_SHARE, _EAGER_SLACK_S = 0.1, 0.05  # the time early sweeps may take: this share of the run's, and this more
INDEXED_PHASES = frozenset({"action_candidate", "governance", "act", "runtime", "terminate"})
_LOOKED_AT = INDEXED_PHASES | TALLIED_IN_DETAIL  # the phases whose events are more than counted as they are written
# agent ids the runtime writes itself, naming no user text: written as they are, with no screen
_RUNTIME_AGENTS = {a: a for a in ("system", "runtime", "tool_contract", "drain", "memory", "planner.minimal", "governance.rules")}
_monotonic = time.monotonic


def _refuse_case_twin(runs_dir: Path, episode_id: str) -> RootKey | None:
    """``RunExistsError`` when the root holds a run folder whose id differs from ``episode_id`` by case only (``ep_x``
    beside ``ep_X``): a copy of the root on macOS or Windows (case-insensitive) holds one folder for both. The root's
    names are listed once and kept while it is unchanged (``store.casetwins``); a minted id (a ULID) is never such a
    twin and is not compared. Returns the root as checked, for ``note_created``."""
    if is_minted(episode_id):
        return None
    twin, checked = case_twin(runs_dir, episode_id)
    if twin is not None:
        raise RunExistsError(
            f"run {quoted(twin)} already exists in {runs_dir}, and episode id {quoted(episode_id)} differs from it by case only: "
            "a copy of the root on macOS or Windows holds one folder for both; pick an id no run of the root has in "
            f"any case (or leave episode_id= out for a new one), or continue {quoted(twin)} with resume_run"
        )
    return checked


class Recorder:
    """Writes one episode's run directory; emits to subscribers; thread-safe ``emit``."""

    def __init__(
        self,
        run_dir: Path,
        episode_id: str,
        state: dict[str, Any],
        events: list[dict[str, Any]] | None = None,
        *,
        ownership: RunOwnership | None = None,
    ):
        self.run_dir = Path(run_dir)
        self.episode_id = episode_id
        self.state = state
        self.ownership = ownership
        self.owner = _forks.Owner()  # the process writing the run: a forked child of it writes nothing (``_forks``)
        self.events: list[dict[str, Any]] = events if events is not None else []
        self.writer = EventWriter(self.run_dir / "events.jsonl")
        self._subscribers: tuple[Subscriber, ...] = ()
        self.last_activity = time.monotonic()
        self.closed = False
        self.sealer: int | None = None  # the thread sealing the run (``begin_seal``)
        self._opened = time.monotonic()
        self._eager_spent = 0.0  # seconds the sweeps of values learned late took before the pause or seal
        self.durable = True  # documents fsynced as written; False inside a policy's pause (``pause``)
        self.note_due = False  # reopened: the owner note is written with the first write (a refused resume writes nothing)
        # reopened: lines another process wrote (maybe not noesis_nb) are in the log, never screened here, so the
        # run's final.json gets no seal (``store.seal``) and the frames screen it as they read it
        self.continued = False
        self._lock = self.writer.lock  # one lock orders ids, timestamps and lines
        self._id_base = new_event_id()[:24]
        self._ids = itertools.count(len(self.events) + 1)
        self.secrets = secrets_for_run(self.run_dir)  # secrets seen in this run: kept out of what it writes
        # each agent id as an event writes it: with its secrets redacted, as the payload's are. Many are built from what
        # a caller typed (``model:<provider>``, ``human:<sender>``, ``adapter:<label>``), and a value the run knows (an
        # environment's key) would be written in clear beside a redacted payload. Judged once per distinct id until the
        # run learns a value (ids repeat on every event); one learned later is swept from the log as any late one
        self._agents = self.secrets.memo(_RUNTIME_AGENTS)
        self.secrets.observe(state.get("goal"), (state.get("episode") or {}).get("tags"))
        # what the summary needs, kept per event (sealing stays constant time), and the token usage so far
        self._tally = EventTally.of(self.events)
        self._untallied: list[dict[str, Any]] = []  # model events written and not counted yet (``tally``)
        # a new run's start is its first event: whatever ran between its making and that event (the rest of the cell
        # that started it, a view's first import, a kernel's comm set-up) is no part of its running time
        self.starts_at_first_event = False
        # the few events the lifecycle looks up (its candidates, governance decisions, acts), in order; runtime and
        # terminate events share one list (``lifecycle_events``): a run's open pause is read from it, not from a scan
        # of the whole run (sealing stays constant time)
        self.lifecycle_events: list[dict[str, Any]] = []
        self.by_phase: dict[str, list[dict[str, Any]]] = {
            phase: self.lifecycle_events if phase in ("runtime", "terminate") else [] for phase in INDEXED_PHASES
        }
        for event in self.events:
            if event.get("phase") in INDEXED_PHASES:
                self.by_phase[event["phase"]].append(event)

    # -- creation -------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        runs_dir: Path,
        episode_id: str,
        *,
        task: str,
        seed: int,
        tags: dict[str, Any],
        adapter_label: str,
        extension: dict[str, Any],
    ) -> Recorder:
        """Make ``<runs_dir>/<episode_id>/`` whole (state.json, learn.jsonl) in one rename, and own it."""
        runs_dir = Path(runs_dir)
        validate_new_episode_id(episode_id)
        started = now_iso()
        state = {
            "version": "1.0",
            "state_schema_version": "1.0.0",
            "episode": {"id": episode_id, "seed": seed, "started_at": started, "tags": tags, "using": f"adapter:{adapter_label}"},
            "goal": {"task": task, "type": "task"},
            "beliefs": [],
            "plan": {"steps": [], "source": "planner", "updated_at": started},
            "memory": {"facts": [], "scratchpad": ""},
            "outcomes": {"status": "pending", "summary": None, "actions": [], "metrics": {}},
            "process": {"id": f"proc_{episode_id.removeprefix('ep_')}", "name": "noesis_nb", "run_index": 1, "kind": "oneshot"},
            "links": {},
            "x-noesis_nb": extension,
        }
        # what a caller gave (task, tags, a batch task's inputs) may hold a secret: redacted before it is written,
        # and learnt by the run, so no later event or document of it holds the value either
        # tags and inputs may hold any object (one whose repr raises, a cycle): stored as their JSON form
        state, hits = redact_secrets(to_jsonable(state), keep=episode_id)  # its own id stays whole (its folder)
        # stamped again from the run's first event (``emit``): the run begins there, not at this set-up
        state["episode"]["started_at"] = state["plan"]["updated_at"] = now_iso()
        refuse_run_as_root(runs_dir)  # what readers list as a run: the new run would hide inside it, listed nowhere
        refuse_too_deep(runs_dir, episode_id)  # else the run starts, then fails at its first tool draft
        checked = _refuse_case_twin(runs_dir, episode_id)  # one folder on a case-insensitive copy of the root
        staging = runs_dir / staging_name(episode_id, uuid.uuid4().hex[:8])
        ownership = None
        try:
            runs_dir.mkdir(parents=True, exist_ok=True)
            sweep_once(runs_dir)  # staging folders a killed creator left (the first creation here only)
            staging.mkdir()
            # locked from its first instant (the lock moves with the folder): another process never sees it
            # unowned, which it would take for a run whose process died (a batch call recovers such a run), and
            # the staging sweep never removes a folder whose creator lives
            ownership = acquire(staging, note=False)
            (staging / "learn.jsonl").touch()
            atomic_write_json(staging / "state.json", state)
            # the owner note moves with the folder: a run never appears without it (a kill -9 right after the
            # rename would leave one that nothing can tell lost, read "running" for ever)
            ownership.write_note()
            os.rename(staging, runs_dir / episode_id)  # a run appears whole, or not at all
            note_created(runs_dir, episode_id, checked)
        except BaseException as exc:
            if ownership is not None:
                ownership.release()
            removed = _remove_staging(staging)
            if not isinstance(exc, OSError):
                raise
            if os.path.lexists(runs_dir / episode_id):  # the id was taken while this run was being made
                raise RunExistsError(
                    f"run {episode_id} already exists in {runs_dir}: an episode started under this id before (a cell "
                    "with a fixed episode_id= run again, or another process); leave episode_id= out for a new id each "
                    "run, or continue that one with resume_run or look at it with show"
                ) from None
            raise _runs_dir_refused(runs_dir, exc, None if removed else staging) from (
                None if isinstance(exc, RunWriteError) or refused_write(exc) else exc
            )
        run_dir = runs_dir / episode_id
        ownership.run_dir = run_dir
        try:
            recorder = cls(run_dir, episode_id, state, ownership=ownership)
        except BaseException:
            ownership.release()
            raise
        recorder.secrets.learn(value for hit in hits for value in hit.values)
        made_here(episode_id)  # a name checked as new (``validate_new_episode_id``): public, kept whole in views
        recorder.starts_at_first_event = True
        return recorder

    @classmethod
    def reopen(cls, run_dir: Path) -> Recorder:
        """Take ownership of an existing, unsealed run and continue writing it (resume, recovery)."""
        run_dir = Path(run_dir)
        run_path(run_dir, "events.jsonl")  # refuses a linked run directory before anything is taken
        ownership = acquire(run_dir, note=False)
        try:
            if is_sealed(run_dir):  # the writer whose lock this call waited for sealed the run meanwhile
                ownership.release(remove=True)  # a note an older writer left when killed is no part of the run
                raise RunSealedError(f"run {run_dir.name} was sealed by the process that held it until now; it takes no more")
            state = read_state(run_dir)
            if state is None or not isinstance(state.get("episode"), dict) or not isinstance(state.get("outcomes"), dict):
                raise EpisodeStateError(
                    f"{run_dir}/state.json is {_state_problem(run_dir, state)}; this run cannot be continued until "
                    "state.json is restored from a copy of the run"
                )
            try:
                events = read_events_to_continue(run_dir / "events.jsonl", strict=True)
            except EventLogIntegrityError as exc:  # "read with strict=False" is no advice here: a run continues whole
                raise EventLogIntegrityError(
                    exc.corruption,
                    f"Run {run_dir.name} is continued only from a whole log; it stays as it is until that line is mended.",
                ) from None
            episode_id = _state_id(run_dir, state)
            recorder = cls(run_dir, episode_id, state, events, ownership=ownership)
            recorder.note_due = True
            recorder.continued = not _left_here(run_dir)
            return recorder
        except BaseException:
            ownership.release()
            raise

    # -- events ---------------------------------------------------------------------------
    def emit(
        self,
        phase: str,
        payload: dict[str, Any],
        *,
        agent_id: str = "system",
        caused_by: str | None = None,
        event_type: str | None = None,
        faculty: str | None = None,
        started: tuple[str, float] | None = None,
        timestamp: str | None = None,
    ) -> dict[str, Any]:
        """Append one event (and tell subscribers). ``started`` = (iso, perf_counter) adds ``metrics``. ``timestamp``:
        when it happened, for an event written late (a recovery's), clamped up to the last line's as any line."""
        if self.owner.generation != _forks.generation:  # a forked child's copy of the episode: one clear error
            self.owner.check(self.episode_id, f"writing a {quoted(phase)} event")
        if self.closed:
            raise self._ended()
        event_id = f"{self._id_base}{next(self._ids):012x}"  # uuid4-shaped: random per run + a counter
        event: dict[str, Any] = {
            "id": event_id,
            "episode_id": self.episode_id,
            "agent_id": self._agents[agent_id] if type(agent_id) is str else self._agents.shown(agent_id),
            "phase": phase,
            "payload": self.secrets.screen(payload, event_id=event_id, phase=phase),
            "evidence_ids": [],  # a list per event: subscribers see what is written (a shared tuple read `()`)
        }
        if caused_by:
            event["caused_by"] = caused_by
        if event_type:
            event["event_type"] = event_type
        if faculty:
            event["faculty"] = faculty
        if timestamp is not None:
            event["timestamp"] = timestamp
        if started is not None:
            completed = now_iso()
            event["timestamp"] = completed
            event["metrics"] = {
                "started_at": started[0],
                "completed_at": completed,
                "duration_ms": round((time.perf_counter() - started[1]) * 1000.0, 3),
            }
        with self._lock:
            sealer = self.sealer
            if self.closed or (sealer is not None and sealer != threading.get_ident()):
                raise self._ended()  # a thread the episode left running: nothing after the terminate but the seal's own
            if self.note_due:
                self.write_note_if_due()
            if self.secrets.late and streamed_piece(event["payload"]) is None and self._eager_sweep_due():
                # a value learned just now may be in lines written before: they are rewritten before this line is
                # written, so a kill -9 at any point leaves no line the log itself shows to hold a secret
                self._sweep_early()
            self.writer.append_locked(event)
            self.events.append(event)
            if self.starts_at_first_event:
                self.starts_at_first_event = False
                self.state["episode"]["started_at"] = self.state["plan"]["updated_at"] = event["timestamp"]
            if phase in _LOOKED_AT:
                if phase == "model":  # counted when the tally is next read: its usage row is not built on the call's path
                    self._untallied.append(event)
                else:
                    self._tally.add(event)
                if phase in INDEXED_PHASES:
                    self.by_phase[phase].append(event)
            else:  # most events (``reason``, a phase of the adapter's own): only counted (``EventTally.add``), one test
                counts = self._tally.phases
                counts[phase] = counts.get(phase, 0) + 1
            self.last_activity = _monotonic()
        if self._subscribers:  # most episodes have none
            for callback in self._subscribers:
                try:
                    callback(event)
                except Exception:  # a broken view must never break the episode
                    pass
        return event

    def _eager_sweep_due(self) -> bool:
        """Whether the sweep of a value learned late may run now rather than at the pause or seal: while the early
        sweeps took at most a tenth of the time the run has been written here, and 50 ms (a run learning a value
        every few events would rewrite its log that often); the rest wait for the pause or seal."""
        return self._eager_spent <= _EAGER_SHARE * (time.monotonic() - self._opened) + _EAGER_SLACK_S

    def _sweep_early(self) -> None:
        began = time.monotonic()
        if self.writer.check_disk():  # sealed elsewhere meanwhile: the append that follows says so, nothing is swept
            return
        try:  # (a run moved or removed meanwhile raises RunGoneError above: nothing is swept at its old place)
            sweep_noted(self, reopen=True)
        finally:
            self._eager_spent += time.monotonic() - began

    def _ended(self) -> EpisodeStateError:
        return EpisodeStateError(
            f"episode {self.episode_id} has ended (its run is sealed, or being sealed, or given up); it accepts no more "
            "events: a thread or task it left running should stop here"
        )

    def begin_seal(self) -> None:
        """From now on only this thread appends (the seal's own events): a worker thread still running gets an error."""
        with self._lock:
            self.sealer = threading.get_ident()

    def runtime(
        self, event_type: str, payload: dict[str, Any], caused_by: str | None, timestamp: str | None = None
    ) -> dict[str, Any]:
        """A ``runtime`` lifecycle event (``run.interrupt`` …): ``kind`` and ``event_type`` both name it."""
        return self.emit(
            "runtime", {"kind": event_type, **payload}, event_type=event_type, caused_by=caused_by, timestamp=timestamp
        )

    @property
    def last_event_id(self) -> str | None:
        return self.writer.last_event_id

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` after each event is written; returns the unsubscribe function."""
        with self._lock:
            self._subscribers = (*self._subscribers, callback)

        given = getattr(callback, "_noesis_nb_subscribed", callback)  # a handle's wrapper names the callback it was given

        def unsubscribe() -> None:  # every subscription of the same callback: one unsubscribe ends them all
            with self._lock:
                self._subscribers = tuple(s for s in self._subscribers if getattr(s, "_noesis_nb_subscribed", s) is not given)

        return unsubscribe

    @property
    def tally(self) -> EventTally:
        """What the summary needs from the events written so far (``EventTally``), model calls included.

        A model event is counted here, when the tally is next read (the summary, ``usage``, a view), not while the
        call that wrote it waits: the same rows and totals, in the same order, built off the model call's path."""
        if self._untallied:
            # a forked child's copy counts without the lock, which a thread of the parent may have held at the fork
            with self._lock if self.owner.generation == _forks.generation else contextlib.nullcontext():
                pending, self._untallied = self._untallied, []
                for event in pending:
                    self._tally.add(event)
        return self._tally

    @property
    def usage(self) -> dict[str, Any]:
        """``model_calls`` and the token totals so far, each None when any call did not report it (shared: copy to keep)."""
        return self.tally.usage.totals

    @property
    def usage_calls(self) -> list[dict[str, Any]]:
        """One row per model call so far (``store.facts.call_row``), shared with the summary: read, never change."""
        return self.tally.calls

    def touch(self) -> None:
        """Count as activity for the idle timeout (e.g. while a tool runs)."""
        self.last_activity = time.monotonic()

    # -- state, pause, checkpoint -----------------------------------------------------------
    def write_note_if_due(self) -> None:
        """Say who holds the reopened run (``.owner.lock``) before its first write: until then a resume may still
        refuse (no decision yet, a wrong checkpoint…) and leave the run exactly as it found it."""
        if self.note_due and self.ownership is not None:
            self.ownership.write_note()  # a refusal leaves the note due: every later write asks again
            self.note_due = False

    def check_owner(self, doing: str) -> None:
        """Raise ``ForkedChildError`` when this is a forked child of the process writing the run (``doing`` names the call)."""
        self.owner.check(self.episode_id, doing)

    def persist_state(self) -> None:
        self.check_owner("writing state.json")
        self.write_note_if_due()
        atomic_write_json(run_path(self.run_dir, "state.json"), self.secrets.scrub(self.state), durable=self.durable)

    def state_hash(self) -> str:
        """``sha256:`` of ``state.json`` as it is on disk (what action candidates and checkpoints bind to)."""
        path = str(run_path(self.run_dir, "state.json"))
        got = read_file(path, str(self.run_dir))  # a FIFO or device planted there is refused, never read
        if got is None:
            raise UnreadableRunFile(path, "missing: it was removed while the episode ran")
        return sha256_bytes(got[0])

    def project_state(self, caused_by: str | None) -> dict[str, Any]:
        """Persist ``state.json`` and emit ``run.state_projection`` (Noēsis does both together)."""
        self.persist_state()
        outcomes = self.state["outcomes"]
        return self.runtime(
            RUN_STATE_PROJECTION,
            {
                "status": outcomes["status"],
                "outcomes": {k: outcomes.get(k) for k in ("status", "summary", "metrics")},
                "links": dict(self.state["links"]),
            },
            caused_by,
        )

    def interrupt(
        self, reason: str | None, caused_by: str | None, marks: dict[str, Any] | None = None, at: str | None = None
    ) -> dict[str, Any]:
        """``run.interrupt``; the run's state becomes ``partial`` (paused) on disk. ``marks``: payload keys of the
        pause (``POLICY_PAUSE_KEY`` for a pause an approver policy decided); ``at``: when the run stopped (``pause``)."""
        interrupt = self.runtime(
            RUN_INTERRUPT,
            {"status": "interrupted", **({"reason": reason} if reason else {}), **(marks or {})},
            caused_by or self.last_event_id,
            at,
        )
        self.state["outcomes"].update(status="partial", summary=reason)
        self.state["links"] = {"events": "events.jsonl", "learn": "learn.jsonl"}
        self.persist_state()
        return interrupt

    def checkpoint(self, caused_by: str | None = None, marks: dict[str, Any] | None = None) -> dict[str, Any]:
        """Write ``checkpoints/<id>/checkpoint.json``, then emit ``run.checkpoint``; returns the record + ``event_id``."""
        record = self._write_checkpoint(caused_by or self.last_event_id or "")
        event = self.runtime(
            RUN_CHECKPOINT,
            {
                "status": "paused",
                "checkpoint_id": record["checkpoint_id"],
                "event_offset": record["event_offset"],
                "checkpoint_path": f"checkpoints/{record['checkpoint_id']}/checkpoint.json",
                **(marks or {}),
            },
            record["last_event_id"],
        )
        return {**record, "event_id": event["id"]}

    def pause(
        self,
        reason: str,
        caused_by: str | None,
        *,
        policy: str | None = None,
        deferred_by: str | None = None,
        at: str | None = None,
    ) -> dict[str, Any]:
        """``run.interrupt → run.checkpoint``, state ``partial``: all on disk (fsynced) before returning.

        Written in an order a kill -9 between any two writes leaves readable and resumable: the tool records first
        (the draft paused on becomes the run's one ``pending_approval``, the others held before it: never two), then
        the interrupt, the state, the checkpoint file and its event. ``policy`` (``policy:auto`` …): an approver
        policy decides this pause in the same breath; it is marked so (``POLICY_PAUSE_KEY``) and not fsynced: a
        killed process leaves the page cache to the disk, and only a pause that waits for a person must outlive a
        power loss. ``deferred_by``: the policy that left this pause to a person, marked (``POLICY_DEFERRED_KEY``).
        ``at``: when the run stopped, for a pause a recovery writes late (the draft's time: its wait counts from it).
        """
        marks = {POLICY_PAUSE_KEY: policy} if policy else {POLICY_DEFERRED_KEY: deferred_by} if deferred_by else None
        with self._lock, self._durable_unless(policy):  # re-entrant: no other thread's event may fall in between
            self._pause_records_on(caused_by)
            interrupt = self.interrupt(reason, caused_by, marks, at)
            sweep_noted(self, reopen=True)  # values learned late leave the files before the checkpoint digests them
            checkpoint = self.checkpoint(interrupt["id"], marks)
        if policy is None:
            self.writer.fsync()
        return checkpoint

    @contextlib.contextmanager
    def _durable_unless(self, policy: str | None) -> Any:
        """Within a policy's pause (``policy`` given), documents are written without fsync (``atomic_write_bytes``)."""
        if policy is None or not self.durable:
            yield
            return
        self.durable = False
        try:
            yield
        finally:
            self.durable = True

    def complete_pause(self, interrupt: dict[str, Any]) -> dict[str, Any]:
        """Finish a pause whose ``run.interrupt`` is on disk but whose process stopped before its checkpoint.

        The state is made ``partial`` again first: the process may have died between the interrupt and the
        state write, and a checkpoint binds the state on disk (a ``pending`` one would stay so while it waits)."""
        payload = interrupt.get("payload")
        reason = payload.get("reason") if isinstance(payload, dict) else None
        with self._lock:
            self._pause_records_on(interrupt.get("caused_by"))
            self.state["outcomes"].update(status="partial", summary=reason)
            self.state["links"] = {"events": "events.jsonl", "learn": "learn.jsonl"}
            self.persist_state()
            if self.continued:  # the killed process's late sweep never ran: its streamed heads leave before the digest
                sweep_recovered_streams(self, reopen=True)
            checkpoint = self.checkpoint(interrupt["id"])
        self.writer.fsync()
        return checkpoint

    def _pause_records_on(self, caused_by: Any) -> None:
        """A pause on a tool draft (caused by its ``tool.approval.pending``) makes that draft the run's one
        ``pending_approval`` record and holds every other (``pending_records``): Noēsis reads only one."""
        if not isinstance(caused_by, str):
            return
        event = next((e for e in reversed(self.events) if e.get("id") == caused_by), None)
        payload = as_object(event.get("payload")) if event is not None else {}
        if payload.get("event_name") == TOOL_APPROVAL_PENDING and isinstance(payload.get("draft_id"), str):
            pause_on_draft(self.run_dir, self.episode_id, payload["draft_id"], durable=self.durable)

    def _write_checkpoint(self, last_event_id: str) -> dict[str, Any]:
        self.check_owner("writing a checkpoint")
        checkpoint_id = new_checkpoint_id()
        record = {
            "schema_version": "checkpoint/1.0.0",
            "run_id": self.episode_id,
            "checkpoint_id": checkpoint_id,
            "created_at": now_iso(),
            "event_offset": self.writer.count,
            "last_event_id": last_event_id,
            "state_hash": self.state_hash(),
            # the log's part from the digest kept while it was written: a pause never reads the whole log again
            "artifact_manifest_hash": artifact_digest(self.run_dir, self.writer.count, events=self.writer.log_digest()),
            "adapter_label": self.state["episode"].get("using"),
        }
        self.write_note_if_due()
        path = run_path(self.run_dir, "checkpoints", checkpoint_id, "checkpoint.json", mkdir=True)
        atomic_write_json(path, record, durable=self.durable)
        return record

    def resume_event(
        self,
        checkpoint: dict[str, Any],
        caused_by: str | None = None,
        *,
        resumed_by: str = "episode",
        policy: str | None = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """``run.resume``, caused by the run's latest event (normally the ``run.checkpoint``), as Noēsis does; ``reason``
        says why when nobody decided the pause (its draft's call was given up: ``TOOL_APPROVAL_ABANDONED``).

        ``resumed_by`` says who continues: ``episode`` (the live adapter, in its process) or ``resume_run``; ``resume``
        (``ns.resume``) is evidence only: nothing continues the run, so it stays paused on disk, its state as its
        checkpoint bound it (a later ``resume_run``, Noēsis' or this one, still finds the state the checkpoint hashed).
        """
        event = self.runtime(
            RUN_RESUME,
            {
                "status": "resuming",
                "checkpoint_id": checkpoint["checkpoint_id"],
                "event_offset": checkpoint["event_offset"],
                "resume_strategy": "same_run_id",
                "resumed_by": resumed_by,
                **({POLICY_PAUSE_KEY: policy} if policy else {}),
                **({"reason": reason} if reason else {}),
            },
            caused_by or self.last_event_id,
        )
        if resumed_by == "resume":
            return event
        self.state["outcomes"].update(status="pending", summary=None)
        self.state["links"] = {"events": "events.jsonl", "learn": "learn.jsonl"}
        with self._durable_unless(policy):
            self.persist_state()  # no longer paused on disk either (readers would call it paused)
        return event

    def resume_pause(
        self,
        checkpoint: dict[str, Any],
        paused_on: str | None,
        *,
        resumed_by: str = "episode",
        policy: str | None = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """``run.resume`` of the pause at ``checkpoint``, whose ``run.interrupt`` was caused by ``paused_on``.

        A tool's lineage runs back from its resume through its own checkpoint and interrupt to its
        ``tool.approval.pending`` (§5), and Noēsis accepts a resume caused by the checkpoint's interrupt or by the event
        right before it (§4): see ``_resume_cause``. Only a run paused again since (several pauses open at once, as
        runs were written before pauses took turns) is paused on ``paused_on`` again first.
        """
        with self._lock:
            cause = self._resume_cause(checkpoint)
            if cause is None:
                interrupt: dict[str, Any] = next(
                    (e for e in reversed(self.events) if e.get("id") == checkpoint.get("last_event_id")), {}
                )
                # the pause's own reason (``reason``, why it is resumed, is another: an abandoned draft's)
                paused_for = str(as_object(interrupt.get("payload")).get("reason") or "paused")
                if interrupt.get("caused_by") != paused_on:  # a draft held behind that pause: its own reason
                    asked: dict[str, Any] = next((e for e in reversed(self.events) if e.get("id") == paused_on), {})
                    draft = as_object(asked.get("payload")).get("draft_id")
                    paused_for = f"tool approval required ({draft})" if isinstance(draft, str) else paused_for
                checkpoint = self.pause(paused_for, paused_on, policy=policy)
            return self.resume_event(checkpoint, cause, resumed_by=resumed_by, policy=policy, reason=reason)

    def _resume_cause(self, checkpoint: dict[str, Any]) -> str | None:
        """The event the resume of ``checkpoint`` is caused by: the run's last event when its ``caused_by`` chain leads
        back to the checkpoint's event (the checkpoint itself, when nothing followed it); else — events of other work
        were written while the run waited (a held draft prepared, a tool finishing) — a ``run.state_projection`` of the
        paused state, caused by the checkpoint and written now, right before the resume. None when the pause at
        ``checkpoint`` is no longer the run's open one (another interrupt, checkpoint or resume followed it)."""
        wanted = checkpoint.get("checkpoint_id")
        since: dict[Any, dict[str, Any]] = {}
        for event in reversed(self.events):
            kind = event.get("event_type")
            if kind == RUN_CHECKPOINT and as_object(event.get("payload")).get("checkpoint_id") == wanted:
                target = event.get("id")
                break
            if kind in (RUN_INTERRUPT, RUN_CHECKPOINT, RUN_RESUME):
                return None
            since[event.get("id")] = event
        else:
            return None
        last = self.events[-1].get("id")
        at = last
        while at in since:
            at = since[at].get("caused_by")
        if at == target:
            return str(last)
        outcomes = self.state["outcomes"]
        projection = {
            "status": outcomes["status"],
            "outcomes": {k: outcomes.get(k) for k in ("status", "summary", "metrics")},
            "links": dict(self.state["links"]),
        }
        return str(self.runtime(RUN_STATE_PROJECTION, projection, target)["id"])

    def replace_writer(self) -> None:
        """Continue on a new ``events.jsonl`` that replaced the open one (a secret sweep rewrote it); same lock."""
        self.check_owner("reopening events.jsonl")
        lock = self.writer.lock
        if not self.writer.wrote_every_byte():  # lines another process appended are in the rewritten file too:
            self.continued = True  # the new writer would count them as its own, so no seal vouches for this log
        fresh = EventWriter(self.run_dir / "events.jsonl")
        fresh.lock = lock
        self.writer = fresh

    # -- ending ---------------------------------------------------------------------------
    def close_without_sealing(self) -> None:
        """Stop writing and give the run up (a pause that outlives this process); it stays resumable."""
        self.closed = True
        self.writer.close()
        if not self.continued and self.writer.closed_as is not None:  # every line screened here: continued here, sealed
            _leave(self.run_dir)
        # a run left at its pause is no process's: the note this one wrote goes with the lock, so no message names an
        # idle process as its writer (a run left unsealed otherwise keeps it: a note nobody holds reads lost; a
        # resume that wrote nothing leaves the note it found)
        self.release(remove=_paused(self.lifecycle_events) and not self.note_due)

    def remove_owner_note(self) -> None:
        if self.ownership is not None:
            self.ownership.remove_note()

    def release(self, *, remove: bool = False) -> None:
        if self.ownership is not None:
            self.ownership.release(remove=remove)


def _paused(lifecycle_events: list[dict[str, Any]]) -> bool:
    """Whether the run's open pause is whole (its checkpoint written): a pause cut short is not left by choice."""
    pause = open_pause(lifecycle_events)
    return pause is not None and pause.get("event_type") == RUN_CHECKPOINT


def sweep_noted(rec: Recorder, *, reopen: bool = False) -> None:
    """The late secret sweep of ``rec``'s run: a tool record this process wrote, still as written, stays noted as
    written here once the sweep rewrites it; one another process wrote (only known values leave it) stays unnoted."""
    if rec.continued:  # a killed process may have left streamed heads of a key its sweep never rewrote
        sweep_recovered_streams(rec, reopen=reopen)
    mine = as_written_here(rec.run_dir)
    for path in rec.secrets.sweep(rec.run_dir, rec, reopen=reopen):
        if os.path.abspath(path) in mine:
            note_written(path)


# the logs of runs this process paused having screened every line, by run folder: the stat it left each with. A
# ``resume_run`` here of a log still so continues a run this process wrote whole (its seal vouches for it)
_LEFT: dict[str, tuple[int, int, int]] = {}


def _log_stat(run_dir: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(Path(run_dir, "events.jsonl"), follow_symlinks=False)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def _leave(run_dir: Path) -> None:
    left = _log_stat(run_dir)
    if left is not None:
        if len(_LEFT) >= 4096:  # the oldest forgotten: continued later, such a run is screened as read
            _LEFT.pop(next(iter(_LEFT)), None)
        _LEFT[os.path.abspath(run_dir)] = left


def _left_here(run_dir: Path) -> bool:
    """Whether this process paused the run, having screened every line, and its log is as it left it."""
    left = _LEFT.pop(os.path.abspath(run_dir), None)
    return left is not None and left == _log_stat(run_dir)


def _runs_dir_refused(runs_dir: Path, exc: OSError, left: Path | None = None) -> RunsDirError:
    """The one error for a run that could not be made in ``runs_dir``: the system's reason and its fix (``errno`` kept)."""
    code, reason = exc.errno, exc.reason if isinstance(exc, RunWriteError) else exc.strerror or str(exc)
    name = f", {errno.errorcode[code]}" if code is not None and code in errno.errorcode else ""
    where = quoted(str(runs_dir))
    if code == errno.EFBIG:
        said = f"refused a file of a new run as too large ({reason}{name}); {refusal_fix(code)}"
    elif code in DISK_REFUSALS:
        said = f"has no room for a new run ({reason}{name}); free space on that disk or pass runs_dir= a directory on another one"
    elif code == errno.EROFS:
        said = f"is on a read-only file system ({reason}{name}); pass runs_dir= a directory on a writable one"
    elif code in (errno.EACCES, errno.EPERM):
        said = f"may not be written by this process ({reason}{name}); {refusal_fix(code)}, or pass runs_dir= a writable directory"
    elif code in (errno.EEXIST, errno.ENOTDIR) and (in_the_way := _in_the_way(runs_dir)) is not None:
        said = in_the_way  # a file, a FIFO, a link leading nowhere: said as ns.set(runs_dir=…) says it
    elif code == errno.ENOENT and runs_dir.is_dir():  # /proc/1: a folder no folder can be made in
        said = (
            f"is a folder of a virtual file system that takes no new folders (making one in it: {reason}{name}); "
            "pass runs_dir= a folder on a disk"
        )
    else:
        said = f"is not writable ({reason}{name}); pass runs_dir= a writable directory"
    if left is None:
        written = "nothing was written"
    else:  # the folder took the staging folder but refuses its removal (append-only): said, not hidden
        written = f"its empty staging folder {left.name} could not be removed either: delete it once the folder allows"
    refused = RunsDirError(f"runs_dir {where} {said} (or set NOESIS_RUNS_DIR); {written}")
    refused.errno = code
    return refused


def _in_the_way(runs_dir: Path) -> str | None:
    """What keeps ``runs_dir`` from being a folder (it, or the first of its parents there, is a file, a FIFO, a link
    leading nowhere…), said with its fix as ``config.check_runs_folder`` says it; None when nothing is."""
    try:
        check_runs_folder(runs_dir)
    except RunsDirError as judged:
        said = str(judged)
        prefix = f"runs_dir {quoted(str(runs_dir))} "
        return said.removeprefix(prefix) if said.startswith(prefix) else said
    return None


def _state_problem(run_dir: Path, state: dict[str, Any] | None) -> str:
    """What is wrong with a run's ``state.json`` that cannot be continued from (for its error)."""
    if state is not None:
        return "not a run state (no episode or outcomes object)"
    path = os.path.join(run_dir, "state.json")
    try:
        got = read_file(path, os.fspath(run_dir))
    except UnreadableRunFile as exc:
        return exc.reason
    return "missing" if got is None else "not a JSON object"


def _state_id(run_dir: Path, state: dict[str, Any]) -> str:
    """The episode id ``state.json`` gives (the folder's name when it gives none); a damaged one is named with its file."""
    given = state["episode"].get("id")
    try:
        return validate_id(given or run_dir.name)
    except InvalidIdError as exc:
        raise EpisodeStateError(
            f"{run_dir}/state.json: episode.id {quoted(given, 80)} is no episode id ({exc}); this run cannot be continued "
            "until state.json is restored from a copy of the run"
        ) from None


def artifact_digest(run_dir: Path, event_offset: int, *, events: tuple[str, int] | None = None) -> str:
    """Digest binding a checkpoint to the first ``event_offset`` event lines and the other artifacts. ``events``:
    (sha256 hex, size) of exactly those lines when the caller knows them (``EventWriter.log_digest``): not read."""
    run_dir = Path(run_dir)
    files = []
    for name in ("events.jsonl", "prompts.jsonl", "state.json", "summary.json", "learn.jsonl"):
        if name == "events.jsonl" and events is not None:
            files.append({"name": name, "sha256": "sha256:" + events[0], "size_bytes": events[1]})
            continue
        path = run_dir / name
        if not path.is_file() or path.is_symlink():
            continue
        got = read_file(str(path), str(run_dir))  # no FIFO swapped in meanwhile, nothing past the size limits
        if got is None:
            continue
        data = got[0]
        if name == "events.jsonl":
            data = b"".join(data.splitlines(keepends=True)[:event_offset])
        files.append({"name": name, "sha256": sha256_bytes(data), "size_bytes": len(data)})
    doc = {"schema_version": "checkpoint_artifact_digest/1.0.0", "files": files}
    return "sha256:" + hashlib.sha256(canonical_json(doc)).hexdigest()


def _remove_staging(staging: Path) -> bool:
    """Remove a run's staging folder; False when it is still there (a folder that refuses removal: append-only …)."""
    for child in (staging / "state.json", staging / "learn.jsonl", staging / OWNER_FILE, staging):
        try:
            child.rmdir() if child is staging else child.unlink()
        except OSError:
            pass
    return not os.path.lexists(staging)
