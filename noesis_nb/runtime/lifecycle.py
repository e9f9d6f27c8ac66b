"""The episode's public lifecycle on disk: action candidates, the act that closes an episode, and the seal.

Every step is written once: each function first looks at what the run already holds, so the
same call completes a sequence that a crash cut short (``resume_run``) without writing an event
twice. Order (Noēsis')::

    action_candidate → [governance] → act → reflect → learn
    terminate → run.state_projection → insight → summary.json → memory → final.json → manifest.json
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._jsonio import as_object, atomic_write_json, bounded_jsonable
from .._safetext import error_text
from ..errors import CheckpointNotFoundError
from ..secrets import shown_cut
from ..secrets.quoted import quoted
from ..store import write_manifest
from ..store.artifacts import sweep_transients
from ..store.paths import UnsafeRunPathError, run_path
from ..store.seal import SEAL_KEY, make_seal
from ..store.sealing import SealDocumentError, SealState, refuse_odd_seal
from ..store.vocab import (
    ACTION_CANDIDATE_SCHEMA,
    RUN_STATE_PROJECTION,
    final_outcome,
    state_status,
)
from ..tools._files import forget_written, written_here
from .openpause import leave_open_pause
from .outcomes import ANSWER_LIMIT
from .recorder import sweep_noted
from .resume_paths import Stopped, check_run_entries, check_seal_targets
from .summary import INSIGHT_KEYS, build_summary

if TYPE_CHECKING:
    from .recorder import Recorder

__all__ = [
    "Outcome",
    "emit_candidate",
    "adapter_candidate",
    "close_act",
    "next_action_id",
    "record_action",
    "seal",
    "complete_seal",
    "terminate_event",
    "SEALING_PHASES",
    "act_parent",
    "find_candidate",
    "override_veto",
]

#: phases written after ``terminate`` (and nothing else is)
SEALING_PHASES = frozenset({"terminate", "insight", "memory"})
_EXT = "x-noesis_nb"


@dataclass
class Outcome:
    """How an episode ended: what ``terminate`` says, and what the summary records."""

    status: str  # ok | error | vetoed | cancelled
    message: str
    reasons: list[str] = field(default_factory=list)
    result: Any = None
    score: float | bool | None = None  # the batch scorer's verdict on the result (summary.metrics.score)
    score_error: str | None = None  # why a scorer gave none (summary x-noesis_nb.score_error)

    @property
    def adapter_result(self) -> str:
        return {"ok": "success", "error": "error"}.get(self.status, "skipped")


# -- action candidates ---------------------------------------------------------------------------
def emit_candidate(
    rec: Recorder,
    *,
    kind: str,
    payload: dict[str, Any],
    provenance: dict[str, Any],
    caused_by: str | None,
    candidate_id: str | None = None,
    agent_id: str = "system",
    field_rules: dict[str, str] | None = None,
) -> dict[str, Any]:
    """An ``action_candidate`` event (schema ``action_candidate/1.0.0``) bound to the current ``state.json``."""
    rules = dict(field_rules or {})
    return rec.emit(
        "action_candidate",
        {
            "schema_version": ACTION_CANDIDATE_SCHEMA,
            "action_candidate_id": candidate_id or str(uuid.uuid4()),
            "kind": kind,
            "payload": payload,
            "state_ref": "state.json",
            "state_hash": rec.state_hash(),
            "redaction": {
                "mode": "field_policy" if rules else "none",
                "policy_id": "noesis_nb.redaction",
                "policy_version": "1.0.0",
                "field_rules": rules,
            },
            "provenance": provenance,
        },
        agent_id=agent_id,
        caused_by=caused_by,
    )


def adapter_candidate(rec: Recorder, *, label: str, task: str, caused_by: str | None) -> dict[str, Any]:
    """The candidate for running the adapter (emitted with governance on or off)."""
    step = (rec.state.get("plan") or {}).get("steps", [{}])[0] if (rec.state.get("plan") or {}).get("steps") else {}
    agent = f"adapter:{label}"
    return emit_candidate(
        rec,
        kind="adapter",
        caused_by=caused_by,
        agent_id=agent,
        payload={
            "adapter_label": agent,
            "goal": task,
            "plan_step_id": step.get("id", "step-1"),
            "plan_step_kind": step.get("kind", "act"),
            "plan_step_description": step.get("description", f"Execute goal: {shown_cut(task, 200)}"),
        },
        provenance={"plan_step_id": step.get("id", "step-1"), "adapter": agent},
    )


def override_veto(
    rec: Recorder,
    *,
    label: str,
    task: str,
    vetoed: dict[str, Any],
    approver_id: str,
    reason: str | None,
    caused_by: str | None,
    candidate: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """After a human overrode a veto: a new candidate for the adapter and the governance event allowing it.

    The vetoed candidate stays vetoed (Noēsis never acts on it); the act that follows is bound
    to the new candidate and caused by the human's allow. ``candidate``: one already written (a
    resume a crash cut short), so only the allow is written.
    """
    candidate = candidate or adapter_candidate(rec, label=label, task=task, caused_by=caused_by)
    previous = as_object(vetoed.get("payload"))
    allow = rec.emit(
        "governance",
        {
            "schema_version": "governance/1.0.0",
            "governance_id": f"gov-{uuid.uuid4().hex[:12]}",
            "decision_id": str(uuid.uuid4()),
            "decision": "allow",
            "rule_id": "human.override",
            "score": 0.0,
            "message": f"veto {previous.get('rule_id')} overridden by {approver_id}" + (f": {reason}" if reason else ""),
            "policy_id": "human.override",
            "policy_version": "1.0.0",
            "policy_kind": "human",
            "mode": previous.get("mode", "enforce"),
            "failure_policy": previous.get("failure_policy", "fail_closed"),
            "enforced": False,
            "overrides": previous.get("governance_id"),
            "approver_id": approver_id,
        },
        agent_id=f"human:{approver_id}",
        faculty="governance",
        caused_by=candidate["id"],
    )
    return candidate, allow


def find_candidate(rec: Recorder, kind: str = "adapter") -> dict[str, Any] | None:
    """The run's last action candidate of ``kind`` (the adapter's), or None."""
    for event in reversed(rec.by_phase["action_candidate"]):
        payload = event.get("payload")
        if isinstance(payload, dict) and payload.get("kind") == kind:
            found: dict[str, Any] = event
            return found
    return None


def is_vetoed(rec: Recorder, candidate: dict[str, Any]) -> bool:
    """True when the last governance decision on ``candidate`` is an enforced veto (nothing may act on it)."""
    decisions = [e.get("payload") for e in rec.by_phase["governance"] if e.get("caused_by") == candidate.get("id")]
    last = decisions[-1] if decisions else None
    return isinstance(last, dict) and last.get("decision") == "veto" and bool(last.get("enforced"))


def act_parent(rec: Recorder, candidate: dict[str, Any] | None) -> str | None:
    """What the adapter's act is caused by: the governance event on its candidate, else the candidate."""
    if candidate is None:
        return None
    for event in rec.by_phase["governance"]:
        if event.get("caused_by") == candidate.get("id"):
            return event.get("id")
    return candidate.get("id")


def _phases_since(rec: Recorder, since: int) -> set[Any]:
    """The phases among ``rec.events[since:]``: the recorder's tally less the shorter side, never a scan of a long run."""
    if since > len(rec.events) // 2:
        return {e.get("phase") for e in rec.events[since:]}
    before: dict[Any, int] = {}
    for event in rec.events[:since]:
        phase = event.get("phase")
        before[phase] = before.get(phase, 0) + 1
    return {phase for phase, n in rec.tally.phases.items() if n > before.get(phase, 0)}


# -- closing an episode's act --------------------------------------------------------------------
def next_action_id(rec: Recorder) -> str:
    """The next free ``act-N`` of ``state.outcomes.actions``: Noēsis numbers actions in order, each id once."""
    actions = rec.state["outcomes"].setdefault("actions", [])
    taken = {a.get("id") for a in actions if isinstance(a, dict)}
    n = len(actions) + 1
    while f"act-{n}" in taken:
        n += 1
    return f"act-{n}"


def record_action(rec: Recorder, action: dict[str, Any]) -> None:
    """Append one action to ``state.outcomes.actions`` (in memory; persisted with the next state write).

    Its id is ``action["id"]`` when the caller reserved one with :func:`next_action_id`, else the next free ``act-N``.
    """
    actions = rec.state["outcomes"].setdefault("actions", [])
    actions.append({**action, "id": action.get("id") or next_action_id(rec)})


def close_act(
    rec: Recorder,
    *,
    status: str,
    reasons: list[str],
    candidate: dict[str, Any] | None,
    caused_by: str | None,
    started: tuple[str, float] | None = None,
    error: BaseException | None = None,
    extra: dict[str, Any] | None = None,
    since: int = 0,
) -> None:
    """``act → reflect → learn`` for the adapter, each written once among ``rec.events[since:]``; a pause still open
    (the run lost or stopped while paused) is resumed first, saying why: nothing acts on a paused run."""
    leave_open_pause(rec, f"closed while paused: {', '.join(reasons) or status}")
    present = _phases_since(rec, since)
    using = str(rec.state["episode"].get("using") or "adapter:core.minimal")
    task = str(rec.state["goal"].get("task", ""))
    act_id = None
    if "act" not in present:
        action_id = next_action_id(rec)
        payload: dict[str, Any] = {
            "input_excerpt": task[:120],
            "outcome": status,
            "result_status": status,
            "tool": using,
            "kind": "adapter",
            "action_id": action_id,
            "step_id": "step-1",
            "step_status": "done" if status == "ok" else "failed",
            "reasons": reasons,
        }
        if candidate is not None:
            payload["action_candidate_id"] = candidate["payload"]["action_candidate_id"]
        if error is not None:
            payload["error"] = {"type": type(error).__name__, "message": error_text(error, 2000)}
        payload.update(extra or {})
        act = rec.emit("act", payload, agent_id=using, caused_by=caused_by, started=started)
        act_id = act["id"]
        steps = (rec.state.get("plan") or {}).get("steps") or []
        if steps:
            steps[0]["status"] = payload["step_status"]
        # among the state's actions as among the act events (act_count), a ``synthetic`` act (closing a run no action
        # of it made) too: marked so, as its event is
        record_action(
            rec,
            {
                "id": action_id,
                "kind": "adapter",
                "tool": using,
                "input_excerpt": task[:120],
                "result_status": status,
                "timestamp": act["timestamp"],
                "step_id": "step-1",
                **({"synthetic": True} if payload.get("synthetic") is True else {}),
            },
        )
    else:
        act_id = rec.by_phase["act"][-1].get("id")
    reflect_id = None
    if "reflect" not in present:
        reflect_id = rec.emit("reflect", {"success": status == "ok", "reasons": reasons}, caused_by=act_id)["id"]
    if "learn" not in present:
        rec.emit(
            "learn",
            {"learn_path": "learn.jsonl", "learn_schema": "learn/1.0", "proposal_ids": [], "proposal_count": 0, "applied": False},
            caused_by=reflect_id or act_id,
        )


# -- the seal ------------------------------------------------------------------------------------
def terminate_event(events: list[dict[str, Any]]) -> int | None:
    """Index of the run's ``terminate`` event, looking back only over the sealing tail (constant time)."""
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        phase = event.get("phase")
        if phase == "terminate":
            return index
        if phase in SEALING_PHASES or event.get("event_type") == RUN_STATE_PROJECTION:
            continue
        return None
    return None


def seal(rec: Recorder, outcome: Outcome) -> None:
    """Seal the run with ``outcome``: every step not yet on disk, in order; then give the run up."""
    rec.check_owner("sealing the run")  # a forked child's copy of the episode seals nothing
    rec.writer.check_disk()  # a run moved or removed meanwhile is not sealed (nor made again) at the old place
    _seal_state_or_give_up(rec)  # a folder or link where final.json or manifest.json goes: nothing written
    rec.begin_seal()
    if terminate_event(rec.events) is None:
        leave_open_pause(rec, f"closed while paused: {', '.join(outcome.reasons) or outcome.status}")  # never from a pause
        ext: dict[str, Any] = {"reasons": list(outcome.reasons), "adapter_result": outcome.adapter_result}
        if outcome.result is not None:
            ext["answer"] = rec.secrets.redact_any(bounded_jsonable(outcome.result, ANSWER_LIMIT))
        if outcome.score is not None:
            ext["score"] = outcome.score
        if outcome.score_error is not None:
            ext["score_error"] = rec.secrets.redact(outcome.score_error)[:400]
        rec.emit("terminate", {"status": outcome.status, "message": rec.secrets.redact(str(outcome.message))[:400], _EXT: ext})
    complete_seal(rec)


def complete_seal(rec: Recorder) -> bool:
    """Finish sealing a run whose ``terminate`` is written; False when it has none (nothing done)."""
    rec.check_owner("sealing the run")
    index = terminate_event(rec.events)
    final_path = run_path(rec.run_dir, "final.json")
    if index is None:
        return False
    sealing = _seal_state_or_give_up(rec)  # before anything is written: a seal document planted is never written over
    if not sealing.final:
        _targets_or_give_up(rec)
    if not sealing.sealed:
        _entries_or_give_up(rec)
    rec.begin_seal()
    terminate = rec.events[index]
    payload = as_object(terminate.get("payload"))
    status = str(payload.get("status") or "error")
    message = str(payload.get("message") or "")
    ext = as_object(payload.get(_EXT))
    reasons = [str(r) for r in ext.get("reasons") or []] if isinstance(ext.get("reasons"), list) else []
    tail = rec.events[index + 1 :]
    if not sealing.final:
        if not any(e.get("event_type") == RUN_STATE_PROJECTION for e in tail):
            rec.state["outcomes"].update(status=state_status(status), summary=message[:400])
            rec.state["links"] = {
                "events": "events.jsonl",
                "summary": "summary.json",
                "learn": "learn.jsonl",
                "manifest": "manifest.json",
            }
            rec.project_state(caused_by=None)
        _learn_log_made(rec.run_dir)
        insight_at = next((i for i in range(index + 1, len(rec.events)) if rec.events[i].get("phase") == "insight"), None)
        # the basis is every event before the insight; the recorder's tally covers them all while none is written
        basis = rec.events[:insight_at] if insight_at is not None else rec.events
        summary = build_summary(
            rec.episode_id,
            rec.state,
            basis,
            status=status,
            reasons=reasons,
            result=ext.get("answer"),
            adapter_result=str(ext.get("adapter_result") or "error"),
            score=ext.get("score"),
            score_error=ext.get("score_error"),
            tally=None if insight_at is not None else rec.tally,
        )
        if insight_at is None:
            rec.emit(
                "insight",
                {"metrics": {k: summary["metrics"][k] for k in INSIGHT_KEYS}, "summary_path": "summary.json"},
                faculty="insight",
            )
        atomic_write_json(run_path(rec.run_dir, "summary.json"), rec.secrets.scrub(summary))
        if not any(e.get("phase") == "memory" for e in rec.events[index + 1 :]):
            rec.emit(
                "memory", {"status": "skipped", "reason": "port_missing", "capability": "long_term_memory"}, agent_id="memory"
            )
        rec.closed = True
        rec.writer.close()
        sweep_noted(rec)  # values learned late leave the lines written before them
        process = as_object(rec.state.get("process"))
        atomic_write_json(
            final_path,
            {
                "schema_version": "final/2.0.0",
                "episode_id": rec.episode_id,
                "process_id": process.get("id", f"proc_{rec.episode_id.removeprefix('ep_')}"),
                "run_index": process.get("run_index", 1),
                "finalized_at": rec.writer.run_now(),  # an imported run's recorded end, as its last event
                "outcome": final_outcome(status),
                "verification_status": "unverified" if status == "ok" else "not_applicable",
                # after the log's last line and the sweep: the frames read this run as written while it is as sealed
                _EXT: {SEAL_KEY: make_seal(rec.run_dir, rec.episode_id, _written_here)} if _screened_here(rec) else {},
            },
        )
    rec.closed = True
    rec.writer.close()
    rec.writer.seal()
    if not _seal_state_or_give_up(rec).sealed:
        sweep_transients(rec.run_dir)  # temp files a killed writer left: not part of the run
        rec.remove_owner_note()  # before the manifest: a kill after it leaves no unlisted file
        kept = rec.writer.closed_as
        known = {"events.jsonl": kept} if kept is not None else None
        write_manifest(rec.run_dir, rec.episode_id, known=known, created_at=rec.writer.run_now())
    rec.release(remove=True)
    forget_written(rec.run_dir)  # its records are sealed: the table keeps only runs still being written
    return True


def _seal_state_or_give_up(rec: Recorder) -> SealState:
    """The run's seal documents, before the seal writes one. One in a shape noesis_nb never writes (a folder, a
    FIFO, a link) stops the seal with ``SealDocumentError``, and the run is given up as it stands: its lock let go
    (it reads lost), nothing written, so that ``resume_run`` seals it once the file is removed."""
    try:
        return refuse_odd_seal(rec.run_dir)
    except SealDocumentError:
        rec.close_without_sealing()
        raise


def _targets_or_give_up(rec: Recorder) -> None:
    """The files the seal writes before ``final.json`` (``summary.json``, ``learn.jsonl``), looked at before any is
    written: a link, folder or FIFO planted there gives the run up as ``_seal_state_or_give_up`` does (the log keeps
    its ``terminate``), with the path named, so that ``resume_run`` seals it once the thing is removed."""
    try:
        check_seal_targets(rec.run_dir, Stopped("the seal", f"resume_run({quoted(rec.episode_id)}) seals the run"))
    except UnsafeRunPathError:
        rec.close_without_sealing()
        raise


def _entries_or_give_up(rec: Recorder) -> None:
    """The run's entries, looked at before the seal writes anything: a link, FIFO, socket or device anywhere in the
    run (``check_run_entries``; the manifest would not list it) gives the run up as ``_targets_or_give_up`` does, with
    the path named, so that ``resume_run`` seals it once the thing is moved out."""
    try:
        check_run_entries(rec.run_dir, Stopped("the seal", f"resume_run({quoted(rec.episode_id)}) seals the run"))
    except (UnsafeRunPathError, CheckpointNotFoundError):  # (an odd entry in a checkpoint's folder is said as such)
        rec.close_without_sealing()
        raise


def _screened_here(rec: Recorder) -> bool:
    """Whether every line of the run's log was screened by this process as it wrote it, so a seal may vouch for
    it: not when the run was continued from a log this process did not leave (its earlier lines another process
    wrote, maybe not noesis_nb), nor when the log is longer than what its writer appended (another process
    appended to the live run). Like the seal itself, this goes by sizes: bytes overwritten in place at the
    same size are not seen."""
    return not rec.continued and rec.writer.closed_as is not None


def _written_here(path: Path, size: int, mtime_ns: int) -> bool:
    """Whether this process wrote the tool record at ``path`` and it is as written (``make_seal``'s ``keep``)."""
    return written_here(path) == (size, mtime_ns)


def _learn_log_made(run_dir: Path) -> None:
    """Make an empty ``learn.jsonl`` when there is none; one that is there is left as it is (never ``touch``ed:
    in a crafted run it may be a hard link to a file elsewhere, whose time a touch would set)."""
    try:
        os.close(
            os.open(run_path(run_dir, "learn.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
        )
    except FileExistsError:
        pass
