"""``resume_run``: continue a run from what its directory holds, whatever stopped it.

Rules (the README's "Recovery" section says the same):

- One writer at a time: resuming takes the run's ownership lock; if a live episode or another
  resume holds it, this call changes nothing and says who continues the run.
- A sealed run is left as it is; a run whose seal was cut short (``terminate`` written, or
  ``final.json`` without ``manifest.json``) has its seal completed.
- A run paused on tool drafts (parallel calls pause on several at once) executes every approved draft once, in
  the order its approval was asked, records the rejected ones, and is sealed; an undecided one refuses the
  resume. On a veto, the human's override re-runs the adapter (``using=``), an uphold seals it ``vetoed``.
- A pause cut short by a crash (draft written, checkpoint not yet) is completed, then continued.
- A draft dispatched by a process that died before recording its result is never run again
  silently: the run records that its outcome is unknown and ``unknown_outcome="retry"`` or
  ``"fail"`` decides.
- A run whose process died while its adapter ran (no pause) cannot be continued (the adapter's
  memory is gone): it is sealed ``error`` with reason ``process_lost``.
Nothing writes an event twice, and nothing ever needs a file deleted by hand.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._jsonio import as_object, sha256_bytes
from ..errors import (
    CheckpointConsistencyError,
    CheckpointNotFoundError,
    EpisodeInterrupted,
    EventLogCorruption,
    InvalidIdError,
    InvalidOptionError,
    ResumeAdapterMismatchError,
    ResumeAdapterRequiredError,
    RunSealedError,
)
from ..ids import validate_id
from ..secrets.quoted import quoted, quoted_text
from ..store import is_sealed, read_events_to_continue, read_final, read_json
from ..store.listing import status_of
from ..store.ownership import RunBusyError, holder, remove_stale_note
from ..store.paths import check_part
from ..store.runfiles import UnreadableRunFile, read_file
from ..store.sealing import refuse_odd_seal, seal_state
from ..store.vocab import (
    RUN_CHECKPOINT,
    RUN_INTERRUPT,
    RUN_RESUME,
    TOOL_APPROVAL_ABANDONED,
    TOOL_APPROVAL_PENDING,
    TOOL_EXECUTION_OUTCOME_UNKNOWN,
)
from ..tools import ApprovalDecisionRequiredError
from ..tools.repositories import ExecutionRepository
from . import lifecycle
from .abandoned import finish_abandonment
from .episode import Episode
from .interrupt import held_interrupts, interrupted_before_resume
from .lifecycle import Outcome
from .pause import EpisodePaused
from .position import Pause, last_pause, options_from_state, payload_of
from .recorder import Recorder, artifact_digest
from .refusals import recorded_refusal
from .registry import live_handles
from .resolve import minimal_adapter, refuse_non_adapter, resolve_using
from .resume_drafts import pause_checkpoint_id, paused_drafts, unpaused_requests
from .resume_paths import check_run_entries, check_seal_targets, checkpoint_problem
from .resume_tool import (
    continue_tool_drafts,
    cut_off_in_tool,
    handed_to_tool,
    open_interrupted_pause,
    process_lost,
    refuse_undecided_unpaused,
)
from .stage import pause_continued
from .vetoes import read_veto_decision

__all__ = [
    "resume_from_disk",
    "NothingToResume",
    "ResumeReport",
    "find_checkpoint",
    "validate_checkpoint",
    "paused_on",
    "pause_in",
    "interrupted_resume",
]

_APPROVAL_PENDING = TOOL_APPROVAL_PENDING


class NothingToResume(UserWarning):
    """``resume_run`` found nothing to do (sealed already, or another live writer continues the run)."""


@dataclass(frozen=True)
class ResumeReport:
    """What a resume did: ``resumed``, ``seal_completed``, ``sealed_lost``, ``already_sealed``, ``stray_manifest`` (a
    manifest.json beside a paused log: no seal; the message says what to do), ``live_here`` or ``busy``."""

    episode_id: str
    action: str
    message: str = ""

    @property
    def changed_nothing(self) -> bool:
        return self.action in {"already_sealed", "stray_manifest", "live_here", "busy"}


def find_checkpoint(rec: Recorder, checkpoint_id: str | None) -> dict[str, Any]:
    events = [e for e in rec.events if e.get("event_type") == RUN_CHECKPOINT and isinstance(e.get("payload"), dict)]
    if checkpoint_id is None:
        if not events:
            raise CheckpointNotFoundError(
                f"run {rec.episode_id} has no checkpoint; it was never paused, so there is nothing to resume"
            )
        checkpoint_id = events[-1]["payload"].get("checkpoint_id")
    checkpoint_id = check_part(checkpoint_id, "checkpoint id")  # read from a file: untrusted
    path = rec.run_dir / "checkpoints" / checkpoint_id / "checkpoint.json"
    record = read_json(path, within=rec.run_dir)
    if record is None:
        known = [e["payload"].get("checkpoint_id") for e in events]
        problem = checkpoint_problem(rec.run_dir, checkpoint_id)
        if problem is not None and (checkpoint_id in known or os.path.lexists(path.parent)):
            raise CheckpointNotFoundError(problem)
        raise CheckpointNotFoundError(_not_found(rec.run_dir, checkpoint_id, known))
    event = next((e for e in events if e["payload"].get("checkpoint_id") == checkpoint_id), None)
    return {**record, "checkpoint_id": checkpoint_id, "event_id": event["id"] if event else None}


def _not_found(run_dir: Path, checkpoint_id: str, known: list[Any]) -> str:
    return (
        f"checkpoint {quoted(checkpoint_id)} not found in {run_dir}/checkpoints; known: {known}. Pass one of them, or "
        "leave checkpoint_id out to resume from the last one"
    )


def check_named_checkpoint(run_dir: Path, checkpoint_id: str | None) -> None:
    """A checkpoint id the caller names must be one of the run's, whatever the run is (paused, sealed, held by
    another writer): a mistaken id is said in one line, never passed over because the run needs no resume."""
    if checkpoint_id is None or os.path.lexists(run_dir / "checkpoints" / checkpoint_id / "checkpoint.json"):
        return  # there (what it holds is checked when a resume reads it)
    events = read_events_to_continue(run_dir / "events.jsonl", strict=False)
    known = [
        e["payload"].get("checkpoint_id")
        for e in events
        if e.get("event_type") == RUN_CHECKPOINT and isinstance(e.get("payload"), dict)
    ]
    if checkpoint_id not in known:
        raise CheckpointNotFoundError(_not_found(run_dir, checkpoint_id, known))


def validate_checkpoint(rec: Recorder, checkpoint: dict[str, Any]) -> None:
    """Noēsis' checks: the event at ``event_offset`` is ``last_event_id``; state and artifacts unchanged."""
    offset = checkpoint.get("event_offset")
    events = rec.events
    where = f"checkpoint {checkpoint.get('checkpoint_id')} of run {rec.run_dir}"
    if (
        type(offset) is not int
        or offset < 1
        or offset > len(events)
        or events[offset - 1].get("id") != checkpoint.get("last_event_id")
    ):
        raise CheckpointConsistencyError(
            f"{where}: event {offset} is not {quoted(checkpoint.get('last_event_id'))}; events.jsonl was changed after "
            f"the pause. "
            f"{_RESTORE}"
        )
    try:  # through the run-file reader: a FIFO, a device, a link out of the run or a huge file is refused, not read
        state = read_file(str(rec.run_dir / "state.json"), str(rec.run_dir))
        bound = artifact_digest(rec.run_dir, offset) if checkpoint.get("artifact_manifest_hash") else None
    except UnreadableRunFile as exc:
        raise CheckpointConsistencyError(
            f"{where}: {exc.path} cannot be read as the run's file ({exc.reason}). {_RESTORE}"
        ) from None
    if state is None:
        raise CheckpointConsistencyError(f"{where}: state.json is missing. {_RESTORE}")
    if sha256_bytes(state[0]) != checkpoint.get("state_hash"):
        raise CheckpointConsistencyError(f"{where}: state.json changed since the pause. {_RESTORE}")
    if bound is not None and bound != checkpoint["artifact_manifest_hash"]:
        raise CheckpointConsistencyError(
            f"{where}: a file it binds changed since the pause (events.jsonl up to event {offset}, prompts.jsonl, "
            f"state.json, summary.json or learn.jsonl). {_RESTORE}"
        )


_RESTORE = "The run stays paused as it is; restore the changed file from a copy of the run to resume it"


def paused_on(
    run_dir: Path, *, resumed_too: bool = False, errors: list[EventLogCorruption] | None = None
) -> tuple[str, str] | None:
    """What an unresumed run on disk waits for (read only): ``("veto", checkpoint_id)``, ``("draft", draft_id)`` or None.

    ``resumed_too`` also answers for a pause already resumed (what a late decision refers to).
    ``errors`` receives the lines of ``events.jsonl`` that could not be read (line 0: the whole
    file): the pause may be on one of them.
    """
    return pause_in(read_events_to_continue(Path(run_dir) / "events.jsonl", strict=False, errors=errors), resumed_too=resumed_too)


def pause_in(events: list[dict[str, Any]], *, resumed_too: bool = False) -> tuple[str, str] | None:
    """``paused_on`` of a log already read. A pause ``ns.resume`` resumed (evidence only) still waits."""
    pause = last_pause(events)
    if pause is None or (pause_continued(pause, events) and not resumed_too) or pause.cause is None:
        return None
    if pause.cause.get("phase") == "governance":
        return "veto", str(payload_of(pause.checkpoint_event).get("checkpoint_id"))
    if payload_of(pause.cause).get("event_name") == _APPROVAL_PENDING:
        return "draft", str(payload_of(pause.cause).get("draft_id"))
    return None


# -- resuming ------------------------------------------------------------------------------------
async def resume_from_disk(
    run_dir: Path,
    *,
    checkpoint_id: str | None = None,
    using: Any = None,
    tools: dict[str, Any] | None = None,
    unknown_outcome: str | None = None,
    seal_cut_off: bool = False,
) -> ResumeReport:
    """Continue the run in ``run_dir`` as far as its directory allows (see the module's rules).

    ``seal_cut_off``: a live run whose process stopped while its tool ran is sealed lost (``process_lost``), not
    left unsealed with ``ToolOutcomeUnknownError``: a batch's way, which says the tool began and runs the task anew
    only when asked (``rerun_failed=True``)."""

    checkpoint_id = check_resume_options(checkpoint_id=checkpoint_id, using=using, tools=tools, unknown_outcome=unknown_outcome)
    episode_id = run_dir.name
    check_named_checkpoint(run_dir, checkpoint_id)  # read only: an id the run does not have is refused, sealed or not
    if refuse_odd_seal(run_dir).sealed:  # a seal document in a shape noesis_nb never writes: refused, nothing written
        remove_stale_note(run_dir)
        return _already_sealed(run_dir)
    live = live_handles().get(episode_id)
    if live is not None and not live.done() and live.run_dir.resolve() == run_dir.resolve():
        waits = (
            "it continues by itself once its draft is decided"
            if live.status == "paused"
            else f"it is {live.status}, nothing to resume (`await` its handle to wait for it)"
        )
        return ResumeReport(episode_id, "live_here", f"episode {episode_id} is live in this process; {waits}")
    try:
        rec = Recorder.reopen(run_dir)
    except RunBusyError as exc:
        return await _held_elsewhere(run_dir, exc.holder)
    except RunSealedError:  # another resume held the run and sealed it while this one waited for its lock
        return _already_sealed(run_dir)
    try:
        refuse_odd_seal(run_dir)  # planted while this call took the run's lock: still nothing written
        return await _continue(
            rec, checkpoint_id=checkpoint_id, using=using, tools=tools, unknown_outcome=unknown_outcome, seal_cut_off=seal_cut_off
        )
    finally:
        if not rec.closed:
            rec.close_without_sealing()


async def _held_elsewhere(run_dir: Path, named: str) -> ResumeReport:
    """What a resume_run that found the run held by another process says: who holds it (a resume that took it an
    instant before names itself at its first write: waited for, briefly), or that it was sealed meanwhile."""
    deadline = time.monotonic() + _NAMED_WITHIN_S
    while named == "another process" and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        now = holder(run_dir)
        if now is None:  # let go meanwhile: sealed, or left at a pause again
            if is_sealed(run_dir):
                return _already_sealed(run_dir)
            break
        named = now
    return ResumeReport(
        run_dir.name,
        "busy",
        f"run {run_dir.name} is being written by {quoted_text(named, 200)} (a resume_run that took it first, or the "
        "episode writing it); resume_run changed nothing: that process continues it. If it waits on a draft, decide "
        "it with approve_draft/reject_draft and that process picks the decision up; otherwise look at the run once "
        "it is let go (show, runs_df)",
    )


#: how long a resume that found the run held waits for its holder to say who it is
_NAMED_WITHIN_S = 1.0


def check_resume_options(*, checkpoint_id: object, using: Any, tools: Any, unknown_outcome: object) -> str | None:
    """The one check of a resume's options (every resume entry calls it first); the checkpoint id to use.

    The caller's options are checked before any run is looked up: a wrong value is refused even when the run
    is unknown, or turns out to need none of them (sealed, live, busy), rather than passed over."""
    if unknown_outcome not in (None, "retry", "fail"):
        raise InvalidOptionError(
            f"unknown_outcome={quoted(unknown_outcome)}: use 'retry' (run the draft again) or 'fail' (record it failed)"
        )
    if tools is not None and (
        not isinstance(tools, dict) or not all(isinstance(k, str) and callable(v) for k, v in tools.items())
    ):  # a wrong kind would fail only when its draft came to run
        raise InvalidOptionError(
            f"tools={quoted(tools, 80)}: pass a dict of tool name -> callable, e.g. {{'fs.write_file': write_file}}, "
            "for python-protocol drafts whose callable is not importable"
        )
    given = _given_checkpoint_id(checkpoint_id)
    refuse_non_adapter(using)
    return given


def _given_checkpoint_id(checkpoint_id: object) -> str | None:
    """The caller's ``checkpoint_id`` if it is None or a plain id; one error naming it and the fix otherwise."""
    if checkpoint_id is None:
        return None
    fix = (
        "pass the id of one of the run's checkpoints as a string (e.g. 'chk_0123456789ab', the checkpoint_id "
        "of its run.checkpoint events), or leave checkpoint_id out to resume from the last one"
    )
    if not isinstance(checkpoint_id, str) or not checkpoint_id.strip():
        raise InvalidOptionError(f"checkpoint_id={quoted(checkpoint_id)} ({type(checkpoint_id).__name__}): {fix}")
    try:
        return validate_id(checkpoint_id, what="checkpoint_id")
    except InvalidIdError as exc:
        raise InvalidIdError(f"{exc}; {fix}") from None


def _already_sealed(run_dir: Path) -> ResumeReport:
    if not seal_state(run_dir).final and status_of(run_dir) == "paused":
        # a seal writes final.json first: a manifest.json beside a log that ends paused is none of its writing
        return ResumeReport(
            run_dir.name,
            "stray_manifest",
            f"run {run_dir.name} is paused (its log ends at a pause, with no terminate and no final.json), but "
            f"{run_dir / 'manifest.json'} is there: not a seal noesis_nb wrote (a seal writes final.json before it), "
            "and while it is there nothing may be appended to the run, so resume_run changed nothing. Move that "
            "manifest.json out of the run folder (or restore the run from a copy), then call resume_run again: the "
            "seal writes the run's own manifest",
        )
    final = read_json(run_dir / "final.json", within=run_dir) or {}
    return ResumeReport(
        run_dir.name,
        "already_sealed",
        f"run {run_dir.name} is already sealed (outcome {final.get('outcome', 'unknown')}); resume_run changed nothing",
    )


async def _continue(
    rec: Recorder,
    *,
    checkpoint_id: str | None,
    using: Any,
    tools: dict[str, Any] | None,
    unknown_outcome: str | None,
    seal_cut_off: bool = False,
) -> ResumeReport:

    episode_id = rec.episode_id
    check_run_entries(rec.run_dir)  # a link or FIFO anywhere in the run: its seal would not list it (nothing written)
    # a link, folder or FIFO where the seal writes is refused before anything runs or is written (a paused run's
    # files are first checked against its checkpoint: one changed since the pause is to be restored, not removed)
    if lifecycle.terminate_event(rec.events) is not None:
        check_seal_targets(rec.run_dir)
    with held_interrupts(carried=False) as held:  # a Ctrl-C lands once the seal's writes are done
        completed = lifecycle.complete_seal(rec)
    held.deliver()
    if completed:
        return ResumeReport(episode_id, "seal_completed", f"run {episode_id} had its seal cut short; it is now sealed")
    pause = last_pause(rec.events)
    if pause is None or pause.resume_event is not None:
        reopened = open_interrupted_pause(rec, pause)
        if reopened is not None:
            pause = reopened
    if pause is None or pause.cause is None:
        check_seal_targets(rec.run_dir)
        vetoed = _interrupted_veto(rec)
        if vetoed is not None:
            return _finish_interrupted_veto(rec, vetoed)
        if pause is not None and pause.resume_event is None:  # ns.checkpoint alone, of a run whose process was lost:
            # the checkpoint named (or the last) is checked as Noēsis does; sealing it lost resumes it first (its
            # run.resume saying why: ``openpause``), after what the lost process wrote is read
            validate_checkpoint(rec, find_checkpoint(rec, pause_checkpoint_id(rec.events, pause, checkpoint_id)))
        said = _stopped_while_running(rec)
        sealed = process_lost(rec)
        return ResumeReport(episode_id, "sealed_lost", f"{said}; sealed as {sealed}")
    if checkpoint_id is not None:
        find_checkpoint(rec, checkpoint_id)  # the named one is readable, whichever of the pause's checkpoints it is
    checkpoint = find_checkpoint(rec, pause_checkpoint_id(rec.events, pause, checkpoint_id))
    if pause.resume_event is None:
        validate_checkpoint(rec, checkpoint)
    check_seal_targets(rec.run_dir)
    cause = pause.cause
    if payload_of(cause).get("event_name") == _APPROVAL_PENDING:
        if finish_abandonment(rec, pause):  # killed while recording its draft abandoned: those writes completed
            pause = last_pause(rec.events) or pause
        abandoned = pause.resume_event is not None and any(
            payload_of(e).get("event_name") == TOOL_APPROVAL_ABANDONED
            and payload_of(e).get("request_id") == payload_of(cause).get("request_id")
            for e in rec.events
        )
        if pause.resume_event is not None and (payload_of(pause.resume_event).get("resumed_by") == "episode" or abandoned):
            cut_off = not seal_cut_off and cut_off_in_tool(rec, cause)  # its effects for a person to check
            if handed_to_tool(rec, cause) and not _still_waiting(rec, pause, cause) and not cut_off:
                # the live adapter went on after its tool (no other draft of its held it back)
                sealed = process_lost(rec)
                return ResumeReport(
                    episode_id, "sealed_lost", f"run {episode_id} lost its process after a tool ran; sealed as {sealed}"
                )
        if pause.resume_event is None and unpaused_requests(rec.events):  # parallel drafts, some never paused on
            refuse_undecided_unpaused(rec, pause)  # an undecided one is never dropped: decide it first
            open_interrupted_pause(rec, pause, decided_only=True)
        drafts = [
            (paused, find_checkpoint(rec, payload_of(paused.checkpoint_event).get("checkpoint_id")))
            for paused in paused_drafts(rec.events, cause)
        ]
        await continue_tool_drafts(rec, drafts, tools=tools, unknown_outcome=unknown_outcome)
        return ResumeReport(episode_id, "resumed")
    if cause.get("phase") == "governance":
        if pause.resume_event is not None and _adapter_started_after(rec, pause.resume_index or 0):
            said = _stopped_while_running(rec)
            sealed = process_lost(rec)  # the adapter was running again when its process stopped
            return ResumeReport(episode_id, "sealed_lost", f"{said}; sealed as {sealed}")
        await _resume_after_veto(rec, checkpoint, cause, using, resumed=pause.resume_event is not None)
        return ResumeReport(episode_id, "resumed")
    # A pause made through the lifecycle calls (ns.interrupt + ns.checkpoint) while nothing ran the adapter:
    # nothing can continue it (the adapter's memory is gone), so it is resumed and sealed as process_lost.
    if pause.resume_event is None:
        rec.resume_event(checkpoint, resumed_by="resume_run")
    sealed = process_lost(rec)
    return ResumeReport(episode_id, "sealed_lost", f"run {episode_id} was paused while no process ran it; sealed as {sealed}")


def _stopped_while_running(rec: Recorder) -> str:
    """Why the run's process left it unsealed while its adapter ran: the write refusal it recorded (its disk
    filled …), or a process that stopped without a word (it died, or could not write even that)."""
    resumes = [i for i, e in enumerate(rec.events) if e.get("event_type") == RUN_RESUME]
    refused = recorded_refusal(rec.events, resumes[-1] if resumes else 0)
    if refused is not None:
        return f"run {rec.episode_id} was left unsealed by its process, which could not write it ({refused})"
    return f"run {rec.episode_id} lost its process while running (it died, or could not write its run)"


def _still_waiting(rec: Recorder, pause: Pause, cause: dict[str, Any]) -> bool:
    """True when the live episode, after the tool of ``cause`` ran, still waited on another draft it paused on (one
    with no result and no resume; parallel calls) and did nothing else: those drafts are continued from disk."""

    request_id = payload_of(cause).get("request_id")
    waiting = {d.pending.get("id") for d in paused_drafts(rec.events, cause) if d.pending is not cause and d.resume_event is None}
    for event in rec.events[(pause.resume_index or 0) + 1 :]:
        if event.get("phase") == "tool" and payload_of(event).get("request_id") == request_id:
            continue  # the tool of ``cause``, run by the episode
        if event.get("event_type") == RUN_INTERRUPT and event.get("caused_by") in waiting:
            continue  # a resume from disk cut short as it paused on a waiting draft again (its checkpoint unwritten)
        return False
    return bool(waiting)


def _adapter_started_after(rec: Recorder, index: int) -> bool:
    """True when anything beyond a new candidate and its allow was written after event ``index`` (the resume)."""
    return any(e.get("phase") not in ("action_candidate", "governance") for e in rec.events[index + 1 :])


def _interrupted_veto(rec: Recorder) -> dict[str, Any] | None:
    """The enforced veto on the adapter's candidate, when the process stopped before pausing or sealing on it."""
    candidate = lifecycle.find_candidate(rec)
    if candidate is None:
        return None
    index = next(i for i, e in enumerate(rec.events) if e is candidate)
    later = rec.events[index + 1 :]
    governance = [e for e in later if e.get("phase") == "governance" and e.get("caused_by") == candidate.get("id")]
    if not governance or any(e.get("phase") == "act" or e.get("event_type") == RUN_CHECKPOINT for e in later):
        return None
    decision = payload_of(governance[-1])
    return governance[-1] if decision.get("decision") == "veto" and decision.get("enforced") else None


def _finish_interrupted_veto(rec: Recorder, governance: dict[str, Any]) -> ResumeReport:
    """Finish what a vetoed episode was doing when its process stopped: pause for a human (pause-on-veto) or seal vetoed."""

    decision = payload_of(governance)
    ext = as_object(rec.state.get("x-noesis_nb"))
    message = str(decision.get("message") or "vetoed by governance")
    if ext.get("pause_on_veto"):
        last = rec.events[-1]
        if last.get("event_type") == RUN_INTERRUPT and last.get("caused_by") == governance["id"]:
            checkpoint = rec.complete_pause(last)  # the interrupt is on disk: its state write may be missing, its checkpoint is
        else:
            checkpoint = rec.pause(f"{message} Governance veto; awaiting approval", governance["id"])
        raise ApprovalDecisionRequiredError(
            f"run {rec.episode_id} was vetoed by governance ({decision.get('rule_id')}) and its process stopped before it "
            f"paused; it is now paused (checkpoint {checkpoint['checkpoint_id']}). Override with "
            f"approve_draft({quoted(rec.episode_id)}, approver_id=…) or uphold with reject_draft(…), then resume_run"
        )
    Episode(None, options_from_state(rec), rec).finish(Outcome("vetoed", message, [str(decision.get("rule_id"))]))
    return ResumeReport(rec.episode_id, "seal_completed", f"run {rec.episode_id} was vetoed; its seal is now complete")


async def _resume_after_veto(
    rec: Recorder, checkpoint: dict[str, Any], governance: dict[str, Any], using: Any, *, resumed: bool
) -> None:

    # No decision file: calling resume_run with the adapter is the go-ahead, as in Noēsis.
    decision = read_veto_decision(rec.run_dir, checkpoint["checkpoint_id"]) or {"decision": "override"}  # malformed: raises
    episode = Episode(None, options_from_state(rec), rec)
    episode.candidate = lifecycle.find_candidate(rec)
    if decision.get("decision") == "uphold":
        if not resumed:
            rec.resume_event(checkpoint, resumed_by="resume_run")
        episode.finish(Outcome("vetoed", f"veto upheld by {decision.get('approver_id')}", ["veto_upheld"]))
        return
    adapter = _resume_adapter(rec, using)
    if interrupted_before_resume.get():  # the interrupt came before this resume began: the adapter does not run again
        if not resumed:
            rec.resume_event(checkpoint, resumed_by="resume_run")
        episode.seal_cancelled()
        return

    episode.adapter = adapter
    episode.loop = asyncio.get_running_loop()
    resume = pause_resume = None
    if not resumed:
        pause_resume = rec.resume_event(checkpoint, resumed_by="resume_run")
    resume = pause_resume or next(e for e in reversed(rec.events) if e.get("event_type") == RUN_RESUME)
    after = rec.events[next(i for i, e in enumerate(rec.events) if e is resume) + 1 :]
    written = next((e for e in after if e.get("phase") == "action_candidate"), None)  # by a resume a crash cut short
    allow = next(
        (e for e in after if written and e.get("phase") == "governance" and e.get("caused_by") == written.get("id")), None
    )
    if allow is None:
        written, allow = lifecycle.override_veto(
            rec,
            label=adapter.label,
            task=episode.options.task,
            vetoed=governance,
            candidate=written,
            approver_id=str(decision.get("approver_id") or "resume_run"),
            reason=decision.get("reason"),
            caused_by=resume["id"],
        )
    episode.candidate = written
    try:
        await episode.act(allow["id"])
    except BaseException as exc:
        if isinstance(exc, EpisodePaused):
            rec.close_without_sealing()
            return
        if isinstance(exc, asyncio.CancelledError):  # stopped while the adapter ran again: sealed as a live episode is
            episode.seal_cancelled()
        raise


_MINIMAL = "adapter:core.minimal"


def _resume_adapter(rec: Recorder, using: Any) -> Any:
    """The adapter a veto's override re-runs: ``using``, which must be the one the run was started with. As in
    Noēsis, leaving ``using`` out means ``core.minimal`` (what ``ns.run`` runs), and that adapter is also named
    by its label, with or without ``adapter:``; any other adapter must be passed again."""

    label = str(rec.state["episode"].get("using", ""))
    if using is None and label == _MINIMAL or isinstance(using, str) and using.strip() in ("core.minimal", _MINIMAL):
        adapter = minimal_adapter()
    elif using is None:
        raise ResumeAdapterRequiredError(
            f"run {rec.episode_id} paused before its adapter {quoted(label)} ran; pass using=<the same adapter> to resume_run"
        )
    else:
        adapter = resolve_using(using)
    if f"adapter:{adapter.label}" != label:
        raise ResumeAdapterMismatchError(
            f"run {rec.episode_id} was started with {quoted(label)}, not 'adapter:{adapter.label}'; pass "
            + ("using=None (or leave it out)" if label == _MINIMAL else "using=<the adapter it was started with>")
        )
    return adapter


def interrupted_resume(run_dir: Path) -> EpisodeInterrupted:
    """The one line a cell ends with when the interrupt stopped ``resume_run`` of the run in ``run_dir``
    (read from its directory once the resume has wound up: what is on disk is what became of it)."""
    episode_id = run_dir.name
    try:
        sealed = is_sealed(run_dir)
        outcome = (read_final(run_dir) or {}).get("outcome", "unknown") if sealed else None
    except Exception:  # a crafted or unreadable run: say only what is sure (an interrupt is being handled)
        sealed = False
    if sealed:
        try:
            cut = _draft_cut_off(run_dir) if outcome == "cancelled" else None
        except Exception:  # an unreadable log or draft folder: say only what is sure
            cut = None
        if cut is not None:
            said = (
                f"resume_run({quoted(episode_id)}) stopped by the interrupt while the tool of draft {quoted(cut)} ran; "
                f"its run is "
                "sealed cancelled and the tool's outcome is unknown (recorded so, never run again): check its effects"
            )
        else:
            said = f"resume_run({quoted(episode_id)}) stopped by the interrupt; its run is sealed ({outcome})"
        status = "cancelled" if outcome == "cancelled" else "sealed"
    else:
        try:
            waiting = paused_on(run_dir)
        except Exception:  # an unreadable log: say only what is sure
            waiting = None
        if waiting is not None:
            what = f"draft {waiting[1]}" if waiting[0] == "draft" else f"a governance veto (checkpoint {waiting[1]})"
            said = (
                f"resume_run({quoted(episode_id)}) stopped by the interrupt; the run is still paused on {what}: "
                f"decide it (approve_draft / reject_draft) if need be, then call resume_run({quoted(episode_id)}) again"
            )
            status = "paused"
        else:
            try:
                running = _draft_without_result(run_dir)
            except Exception:  # an unreadable log or draft folder: say only what is sure
                running = None
            if running is not None:
                said = (
                    f"resume_run({quoted(episode_id)}) stopped by the interrupt while the tool of draft "
                    f"{quoted(running)} ran, its run "
                    "left unsealed and the tool's outcome unknown: check its effects, then call "
                    f"resume_run({quoted(episode_id)}, unknown_outcome='retry') to run it again or unknown_outcome='fail' to "
                    "record it failed"
                )
            else:
                said = (
                    f"resume_run({quoted(episode_id)}) stopped by the interrupt, its run left unsealed; "
                    f"resume_run({quoted(episode_id)}) again continues or seals it"
                )
            status = "interrupted"
    return EpisodeInterrupted(said, episode_id=episode_id, status=status)


def _draft_cut_off(run_dir: Path) -> str | None:
    """The draft of the run's last pause when its tool was recorded cut off (``outcome_unknown``; read only)."""

    waiting = paused_on(run_dir, resumed_too=True)
    if waiting is None or waiting[0] != "draft":
        return None
    events = read_events_to_continue(run_dir / "events.jsonl", strict=False)
    cut = any(
        payload_of(e).get("event_name") == TOOL_EXECUTION_OUTCOME_UNKNOWN and payload_of(e).get("draft_id") == waiting[1]
        for e in events
    )
    return waiting[1] if cut else None


def _draft_without_result(run_dir: Path) -> str | None:
    """The draft of the run's last pause when it was handed to its tool and no result was recorded (read only)."""

    waiting = paused_on(run_dir, resumed_too=True)
    if waiting is None or waiting[0] != "draft":
        return None
    draft_id = check_part(waiting[1], "draft id")
    executions = ExecutionRepository(run_dir)
    if executions.claimed(draft_id) and executions.get(draft_id) is None:
        return draft_id
    return None
