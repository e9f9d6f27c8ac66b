"""Continuing a run paused on a tool draft, from disk: decide, execute once, close, seal — each step once.

Also the two recoveries that need the tool records: completing a pause a crash cut short, and
sealing a run whose process died while its adapter ran (``process_lost``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import tools as tc
from ..errors import DecisionFileError
from ..secrets.quoted import quoted
from ..store import now_iso
from ..store.paths import check_part
from ..store.phases import DRAIN_PHASE
from ..store.vocab import DRAIN_STARTED, POLICY_PAUSE_KEY, RUN_INTERRUPT, RUN_RESUME, TOOL_APPROVAL_ABANDONED
from ..tools import ApprovalDecisionBindingError, ToolOutcomeUnknownError, codes
from ..tools import events as names
from ..tools.decisions import binding_problem, bound_decision
from ..tools.errors import CallableResolutionError
from ..tools.protocols import make_result
from ..tools.repositories import ExecutionRepository
from ..tools.types import ExecutionStatus
from . import lifecycle
from .asked import asker_gone
from .context import dispatcher, tool_repositories
from .episode import ADAPTER_ERROR_WHILE_PAUSED, Episode
from .interrupt import interrupted_before_resume, interrupts_noted, killed_by_interrupt
from .lifecycle import Outcome
from .missing_tool import missing_tool_error
from .openpause import leave_open_pause
from .pending_records import awaits_decision, draft_time
from .position import Pause, last_pause, options_from_state, payload_of
from .recorder import Recorder
from .refusals import recorded_refusal
from .resume_drafts import PausedDraft, checkpoint_of, paused_drafts
from .resume_paths import check_draft_targets, check_idempotency_target

__all__ = [
    "continue_tool_drafts",
    "open_interrupted_pause",
    "process_lost",
    "dispatched",
    "handed_to_tool",
    "refuse_undecided_unpaused",
]


class _ResumeChain:
    """Tool events of one request after a resume: ``run.resume`` is written just before the first of
    them (a resume that fails its checks writes nothing), each is caused by the one before, and
    one already on disk (from a resume a crash cut short) is not written again."""

    def __init__(
        self,
        rec: Recorder,
        checkpoint: dict[str, Any],
        resume_event: dict[str, Any] | None,
        pending_event: dict[str, Any],
        decision: Any = None,
    ):
        self.rec, self.checkpoint, self.paused_on = rec, checkpoint, pending_event.get("id")
        self.policy = _policy_of(decision)  # a draft an approver policy decided: the pause written for it is the policy's
        self.request_id = request_id = str(pending_event["payload"].get("request_id"))
        self.resume = resume_event
        self.index: int | None = None
        self.names: dict[str, str] = {}
        self.tail: str | None = None
        self.repeatable: set[str] = set()
        if resume_event is not None:
            self.index = next(i for i, e in enumerate(rec.events) if e is resume_event)
            self.tail = resume_event.get("id")
            for event in rec.events[self.index + 1 :]:
                payload = event.get("payload")
                if event.get("phase") == "tool" and isinstance(payload, dict) and payload.get("request_id") == request_id:
                    self.names[str(payload.get("event_name"))] = event["id"]
                    self.tail = event["id"]

    def ensure_resumed(self) -> None:
        if self.resume is None:
            policy = self.policy  # held behind another's pause, the draft is paused on now: the policy's pause
            interrupt: dict[str, Any] = next(
                (e for e in reversed(self.rec.events) if e.get("id") == self.checkpoint.get("last_event_id")), {}
            )
            if interrupt.get("caused_by") == self.paused_on:  # its own pause, on disk already: marked as it was written
                marked = payload_of(interrupt).get(POLICY_PAUSE_KEY)
                policy = marked if isinstance(marked, str) else None
            self.resume = self.rec.resume_pause(self.checkpoint, self.paused_on, resumed_by="resume_run", policy=policy)
            self.index = len(self.rec.events) - 1
            self.tail = self.resume["id"]

    def has(self, *names: str) -> bool:
        return any(name in self.names for name in names)

    def emit(self, event_name: str, request_id: str, **extra: Any) -> str:
        self.ensure_resumed()
        if event_name in self.names and event_name not in self.repeatable:
            return self.names[event_name]
        event = self.rec.emit(
            "tool", {"event_name": event_name, "request_id": request_id, **extra}, agent_id="tool_contract", caused_by=self.tail
        )
        self.names[event_name] = self.tail = str(event["id"])
        return self.tail


def _request_events(rec: Recorder, request_id: str) -> list[dict[str, Any]]:
    """The events of one tool request, in order."""
    return [e for e in rec.events if isinstance(e.get("payload"), dict) and e["payload"].get("request_id") == request_id]


def dispatched(rec: Recorder, draft_id: str) -> bool:
    """True when the draft was handed to its tool (claimed or executed)."""

    executions = ExecutionRepository(rec.run_dir)
    return executions.claimed(draft_id) or executions.get(draft_id) is not None


@dataclass
class _Ready:
    """A paused draft checked before anything is written: its records, its decision (None: undecided), its chain."""

    draft_id: str
    prepared: Any
    decision: Any
    chain: _ResumeChain

    @property
    def label(self) -> str:  # Noēsis' form, on disk
        tool = self.prepared.tool
        return f"{tool.namespace}.{tool.name}" + (f":{tool.version}" if tool.version else "")

    @property
    def shown(self) -> str:  # as given and as views show it
        tool = self.prepared.tool
        return f"{tool.namespace}.{tool.name}" + (f"@{tool.version}" if tool.version else "")

    @property
    def approved(self) -> bool:
        return bool(getattr(self.decision.status, "value", self.decision.status) == "approved")


@dataclass(frozen=True)
class _Ended:
    """How one draft ended: ``ok``, ``failed`` or ``rejected``, said in one line, with the tool's output."""

    kind: str
    message: str
    output: Any = None
    reason_code: str | None = None


async def continue_tool_drafts(
    rec: Recorder,
    drafts: list[tuple[PausedDraft, dict[str, Any]]],
    *,
    tools: dict[str, Any] | None,
    unknown_outcome: str | None,
) -> None:
    """Continue every draft the run paused on (each with its checkpoint), in the order its approval was asked:
    an approved one runs once, a rejected one is recorded rejected; then the adapter's act is closed and the run
    sealed once. Every draft is checked first: one undecided, unbound or missing its records or secrets refuses
    the resume before anything runs or is written."""

    repos = tool_repositories(rec.run_dir)
    ready = [_ready(rec, repos, paused, checkpoint) for paused, checkpoint in drafts]
    undecided = [r for r in ready if r.decision is None]
    if undecided:
        raise _undecided_error(rec, ready, undecided)
    for r in ready:
        if r.approved:
            _check_binding(rec.run_dir, r.prepared, r.decision)
            tc.require_secrets(repos.prepared, r.prepared)  # a missing secret fails here, before anything is written
            check_idempotency_target(rec.run_dir, r.prepared)  # as check_draft_targets: before anything is written
    episode = Episode(None, _options(rec), rec)
    episode.loop = asyncio.get_running_loop()
    episode.candidate = lifecycle.find_candidate(rec)
    if interrupted_before_resume.get():  # the interrupt came before this resume began: no draft runs, sealed cancelled
        for r in ready:
            r.chain.ensure_resumed()
        episode.seal_cancelled()
        return
    started = (now_iso(), time.perf_counter())
    ended: list[_Ended] = []
    for r in ready:
        end = await _continue_one(rec, episode, repos, r, tools=tools, unknown_outcome=unknown_outcome)
        if end is None:  # stopped by an interrupt: sealed cancelled, the drafts after it never run
            return
        ended.append(end)
    outcome = _failed_while_paused(rec, _outcome(ended))
    if outcome.status == "ok":
        episode.result = outcome.result
    _close(episode, [r.chain for r in ready], started, ", ".join(r.label for r in ready), outcome)


def _ready(rec: Recorder, repos: Any, paused: PausedDraft, checkpoint: dict[str, Any]) -> _Ready:
    draft_id = check_part(paused.draft_id, "draft id")
    check_draft_targets(rec.run_dir, draft_id)  # a link, folder or FIFO where its records go: before anything runs
    decision = repos.approvals.get(None, draft_id)  # a malformed file raises here, before anything is written
    prepared = repos.prepared.get(rec.episode_id, draft_id)
    if prepared is None:
        raise tc.PreparedToolInvocationNotFoundError(
            f"run {rec.episode_id} paused on draft {quoted(draft_id)}, but {repos.prepared.path_for(draft_id)} is missing; "
            "restore the file from a backup (nothing was resumed)"
        )
    return _Ready(draft_id, prepared, decision, _ResumeChain(rec, checkpoint, paused.resume_event, paused.pending, decision))


def _policy_of(decision: Any) -> str | None:
    """``policy:<name>`` when an approver policy made ``decision`` (its ``approver_id``), else None (a person, or none)."""
    approver = getattr(decision, "approver_id", None)
    return approver if isinstance(approver, str) and approver.startswith("policy:") else None


def _undecided_error(rec: Recorder, ready: list[_Ready], undecided: list[_Ready]) -> Exception:
    episode_id = quoted(rec.episode_id)
    if len(ready) == 1:
        draft_id = quoted(ready[0].draft_id)
        return tc.ApprovalDecisionRequiredError(
            f"draft {draft_id} has no decision yet; run noesis_nb.approve_draft({episode_id}, approver_id=...) "
            "or reject_draft(...) first, then resume_run"
        )
    decided = [f"{quoted(r.draft_id)} {'approved' if r.approved else 'rejected'}" for r in ready if r.decision is not None]
    names = ", ".join(quoted(r.draft_id) for r in undecided)
    return tc.ApprovalDecisionRequiredError(
        f"run {rec.episode_id} paused on {len(ready)} drafts at once; {names} "
        f"{'has' if len(undecided) == 1 else 'have'} no decision yet"
        + (f" (decided: {', '.join(decided)})" if decided else "")
        + f". Decide each with noesis_nb.approve_draft({episode_id}, <draft id>, approver_id=...) or reject_draft(...), "
        "then resume_run: every approved draft then runs, in the order its approval was asked (nothing ran or was "
        "written now)"
    )


async def _continue_one(
    rec: Recorder, episode: Episode, repos: Any, r: _Ready, *, tools: dict[str, Any] | None, unknown_outcome: str | None
) -> _Ended | None:
    """Decide, execute once and record one draft; None when an interrupt stopped the run (sealed cancelled)."""

    draft_id, prepared, decision, chain = r.draft_id, r.prepared, r.decision, r.chain
    request_id = chain.request_id
    if not r.approved:
        chain.emit(
            names.TOOL_REJECTED_GOVERNANCE,
            request_id,
            draft_id=draft_id,
            decision_id=decision.decision_id,
            reason_code="governance.vetoed",
            reason=getattr(decision, "reason", None),
        )
        reason = getattr(decision, "reason", None)
        return _Ended("rejected", f"tool call {r.shown} rejected by {decision.approver_id}" + (f": {reason}" if reason else ""))
    executions = ExecutionRepository(rec.run_dir)
    interrupts: int | None = None  # SIGINTs noted before the tool ran here (None: its result was on disk already)
    result = executions.get(draft_id)
    if result is None and executions.claimed(draft_id):
        if _started(rec, request_id):
            result = _unknown_outcome(rec, chain, prepared, executions, unknown_outcome)
        else:  # claimed by a process that died before handing it to its tool: it never ran, so it runs now
            executions.release(draft_id)
    gone = asker_gone(prepared) if result is None else None
    if gone is not None:  # the system that asked for this approval waited in a process that ended: nothing to run
        result = make_result(
            prepared, ExecutionStatus.FAILED, codes.TOOL_EXECUTION_FAILED, {"error": gone, "error_type": "AskerGoneError"}
        )
        executions.save(draft_id, result)
    if result is None:
        tool = prepared.tool
        fn = (tools.get(f"{tool.namespace}.{tool.name}") or tools.get(tool.name)) if tools else None
        interrupts = interrupts_noted()
        try:
            result = await tc.execute_prepared_tool_invocation_async(
                run_id=rec.episode_id,
                draft_id=draft_id,
                prepared_repository=repos.prepared,
                approval_repository=repos.approvals,
                idempotency_repository=repos.idempotency,
                dispatcher=dispatcher(),
                emit=chain.emit,
                callables={draft_id: fn} if fn else None,
                decision=decision,
                execution_repository=executions,
            )
        except asyncio.CancelledError:
            _cancelled(episode, chain, request_id, draft_id)
            raise
        except CallableResolutionError as exc:  # nothing was written for this draft: said with resume_run's own fix
            raise missing_tool_error(
                exc,
                episode_id=rec.episode_id,
                tool=r.shown,
                key=f"{tool.namespace}.{tool.name}",
                short=tool.name,
                draft_id=draft_id,
                ref=prepared.x_callable,
                given=fn,
                tools=tools,
            ) from None
    status = getattr(result.status, "value", result.status)
    if not chain.has(*names.TERMINAL_EXECUTION_EVENTS):
        final = {"succeeded": names.TOOL_EXECUTION_SUCCEEDED, "replayed": names.TOOL_REPLAYED}.get(
            status, names.TOOL_EXECUTION_FAILED
        )
        chain.emit(final, request_id, draft_id=draft_id, execution_id=result.execution_id, reason_code=result.reason_code)
    actions = rec.state["outcomes"].setdefault("actions", [])
    if not any(isinstance(a, dict) and a.get("x-tool_draft_id") == draft_id for a in actions):
        lifecycle.record_action(
            rec,
            {
                "kind": getattr(prepared.protocol, "value", prepared.protocol),
                "tool": r.label,
                "input_excerpt": str(prepared.payload.redacted_payload)[:120],
                "result_status": status,
                "timestamp": now_iso(),
                "x-tool_draft_id": draft_id,
            },
        )
    try:
        by_interrupt = interrupts is not None and await killed_by_interrupt(result, interrupts, lambda: episode.cancel_requested)
    except asyncio.CancelledError:  # the interrupt landed while it was told apart: the same ending
        episode.seal_cancelled()
        raise
    if by_interrupt:  # recorded failed (it died of SIGINT): the interrupt stops the run, as a live one
        episode.seal_cancelled()
        return None
    if status == "failed":
        said = gone or f"tool {r.shown} failed ({result.reason_code})"
        return _Ended("failed", said, result.output, result.reason_code)
    return _Ended("ok", f"the approved tool {r.shown} ran", result.output)


def _failed_while_paused(rec: Recorder, outcome: Outcome) -> Outcome:
    """``outcome``, unless the adapter raised after it took the pause these drafts resume (its ``error`` event,
    ``ADAPTER_ERROR_WHILE_PAUSED``, since the adapter last acted): then ``error`` (``adapter_error``) with its message,
    as a live adapter's error ends a run."""
    first = max((i for i, e in enumerate(rec.events) if e.get("phase") == "act"), default=0)
    failed = [
        e
        for e in rec.events[first:]
        if e.get("phase") == "error" and payload_of(e).get("reason_code") == ADAPTER_ERROR_WHILE_PAUSED
    ]
    if not failed:
        return outcome
    error = payload_of(failed[-1]).get("error")
    message = str(error.get("message") or error.get("type")) if isinstance(error, dict) else "the adapter raised"
    return Outcome("error", message, ["adapter_error", "resumed"], outcome.result)


def _outcome(ended: list[_Ended]) -> Outcome:
    """The run's ending: ``error`` when a tool failed, else ``vetoed`` when a draft was rejected, else ``ok``;
    with several drafts the result is the list of their outputs, in order (None for a rejected one)."""

    if len(ended) == 1:
        (end,) = ended
        if end.kind == "rejected":
            return Outcome("vetoed", end.message, ["tool_rejected"])
        if end.kind == "failed":
            return Outcome("error", end.message, ["tool_failed"], end.output)
        return Outcome("ok", _resumed_words([end]), ["adapter_ok", "resumed"], end.output)
    outputs = [e.output for e in ended]
    failed = [e.message for e in ended if e.kind == "failed"]
    rejected = [e.message for e in ended if e.kind == "rejected"]
    if failed:
        return Outcome("error", "; ".join(failed + rejected), ["tool_failed", *(["tool_rejected"] if rejected else [])], outputs)
    if rejected:
        return Outcome("vetoed", "; ".join(rejected), ["tool_rejected"], outputs)
    return Outcome("ok", _resumed_words(ended), ["adapter_ok", "resumed"], outputs)


def _resumed_words(ended: list[_Ended]) -> str:
    """What a run resumed from disk did, as its end says it: the drafts ran once and the run was sealed, so the
    adapter never saw their results (its answer, in the seal's extension, is what the tools returned)."""
    return f"resumed from disk: {'; '.join(e.message for e in ended)}; the agent did not continue"


def _cancelled(episode: Episode, chain: _ResumeChain, request_id: str, draft_id: str) -> None:
    """Stopped (an interrupt, a cancel) while the tool ran: as a live episode is, the run is sealed ``cancelled``
    with the tool's outcome recorded unknown (its effects may have happened; it is never run again)."""

    if names.TOOL_EXECUTION_STARTED in chain.names and not chain.has(*names.TERMINAL_EXECUTION_EVENTS):
        with contextlib.suppress(Exception):  # the cancellation goes on whatever the log accepts
            chain.emit(names.TOOL_EXECUTION_OUTCOME_UNKNOWN, request_id, draft_id=draft_id, reason="cancelled")
    episode.seal_cancelled()


def _check_binding(run_dir: Path, prepared: Any, decision: Any) -> None:
    """The approval must bind this exact draft (checked before anything is written to the run's log): one that does
    not is moved aside (``bound_decision``), so the draft can be decided anew, and the resume refused."""

    problem = binding_problem(prepared, decision)
    if problem is None:
        return
    try:
        bound_decision(run_dir, prepared.key)
        aside = ""
    except DecisionFileError:
        aside = "; the decision file was moved aside"
    raise ApprovalDecisionBindingError(
        f"the decision on draft {quoted(prepared.key)} {problem} (the draft or the decision was changed after review)"
        f"{aside}; review the draft again and decide it anew"
    )


def handed_to_tool(rec: Recorder, pending: dict[str, Any]) -> bool:
    """True when the draft of ``pending`` (its ``tool.approval.pending``) is the live episode's no more: it reached its
    tool (its result is recorded, or it was claimed and its ``tool.execution.started`` is in the log), or its live
    adapter gave its call up (``tool.approval.abandoned``: never run, nothing of it to continue). A process killed
    after the draft's approval and before that start left it approved and never run: a resume runs it, once (a claim
    alone is released then)."""
    payload = payload_of(pending)
    draft_id, request_id = str(payload.get("draft_id")), str(payload.get("request_id"))
    if any(payload_of(e).get("event_name") == TOOL_APPROVAL_ABANDONED for e in _request_events(rec, request_id)):
        return True
    executions = ExecutionRepository(rec.run_dir)
    return executions.get(draft_id) is not None or (executions.claimed(draft_id) and _started(rec, request_id))


def cut_off_in_tool(rec: Recorder, pending: dict[str, Any]) -> bool:
    """True when the draft of ``pending`` was handed to its tool (claimed, its ``tool.execution.started`` written)
    and no result was recorded, nor its call given up: its process stopped while the tool ran, so its effects are
    unknown. Continued as a resume killed mid-tool is (``_unknown_outcome``), never sealed over silently."""
    payload = payload_of(pending)
    draft_id, request_id = str(payload.get("draft_id")), str(payload.get("request_id"))
    if any(payload_of(e).get("event_name") == TOOL_APPROVAL_ABANDONED for e in _request_events(rec, request_id)):
        return False
    executions = ExecutionRepository(rec.run_dir)
    return executions.get(draft_id) is None and executions.claimed(draft_id) and _started(rec, request_id)


def _started(rec: Recorder, request_id: str) -> bool:
    """Whether the request's ``tool.execution.started`` is in the log: it is written, with one write call, before
    the tool is handed anything, so a claim without it (under the run's ownership lock) was never dispatched."""
    return any(payload_of(e).get("event_name") == names.TOOL_EXECUTION_STARTED for e in _request_events(rec, request_id))


def _unknown_outcome(rec: Recorder, chain: _ResumeChain, prepared: Any, executions: Any, choice: str | None) -> Any:
    """A claim without a result: say so and stop, or do what the caller chose."""

    draft_id = prepared.key
    claim = executions.claim_path(draft_id)
    try:
        claimed_at = datetime.fromtimestamp(claim.stat().st_mtime, UTC).isoformat()
    except OSError:
        claimed_at = None
    if choice is None:
        chain.emit(names.TOOL_EXECUTION_OUTCOME_UNKNOWN, prepared.request_id, draft_id=draft_id, claimed_at=claimed_at)
        raise ToolOutcomeUnknownError(
            f"draft {quoted(draft_id)} of run {rec.episode_id} was handed to its tool at {claimed_at} by a process that "
            f"stopped before "
            "recording the result, so its effects may or may not have happened. Check them, then call "
            f"resume_run({quoted(rec.episode_id)}, unknown_outcome='retry') to run it again, or unknown_outcome='fail' "
            f"to record it "
            "as failed and seal the run."
        )
    if choice == "retry":
        chain.repeatable.update({names.TOOL_EXECUTION_STARTED})
        executions.release(draft_id)
        return None
    result = make_result(
        prepared,
        ExecutionStatus.FAILED,
        codes.TOOL_EXECUTION_FAILED,
        {"error": f"outcome unknown (dispatched at {claimed_at} by a process that stopped); recorded as failed"},
    )
    executions.save(draft_id, result)
    executions.release(draft_id)
    return result


def _close(episode: Episode, chains: list[_ResumeChain], started: tuple[str, float], label: str, outcome: Outcome) -> None:
    rec = episode.recorder
    for chain in chains:
        chain.ensure_resumed()
    candidate = episode.candidate
    lifecycle.close_act(
        rec,
        status=outcome.status,
        reasons=outcome.reasons,
        candidate=candidate,
        caused_by=lifecycle.act_parent(rec, candidate),
        started=started,
        extra={"x-resumed_tool": label},
        since=min(chain.index or 0 for chain in chains),
    )
    episode.finish(outcome)


def _options(rec: Recorder) -> Any:
    return options_from_state(rec)


# -- recoveries ----------------------------------------------------------------------------------
def open_interrupted_pause(rec: Recorder, pause: Pause | None, *, decided_only: bool = False) -> Pause | None:
    """Drafts left pending without a checkpoint (a crash between a draft and its pause, or drafts held behind
    another's pause): each gets its ``tool.approval.pending`` where missing, and the run pauses on the first one
    asked (the others wait held and pause in their turn: ``resume_drafts.paused_drafts``); the pause, or None when
    there was none to complete. ``decided_only``: beside an open pause, which stays the run's one pause (nothing is
    paused on here), only drafts someone decided (an approved draft is never dropped, while one the episode stopped
    before asking about stays as the adapter left it).

    Not when the adapter finished after the draft (its ``act`` is written): the draft's writes failed
    while the process lived on (a full disk), the adapter got the error and ended, and the draft was
    given up; such a run is sealed with the adapter's outcome, never continued into its tool.
    """

    repos = tool_repositories(rec.run_dir)
    found = _unpaused(rec, repos, pause)
    if found is None:
        return None
    first_seen, unpaused = found
    waiting = [p for p in unpaused if not decided_only or repos.approvals.get(None, p.key) is not None]
    if not waiting:
        return None
    # one pause at a time on disk: beside an open pause none; else on the first asked (or the one already paused on)
    made = [_pause_on(rec, p, pause=not decided_only and n == 0) for n, p in enumerate(waiting)]
    return last_pause(rec.events) if any(made) else None


def refuse_undecided_unpaused(rec: Recorder, pause: Pause) -> None:
    """Refuse the resume, before anything runs or is written, when a draft whose approval was asked but never paused
    on (a crash between its request and its pause) has no decision: it would otherwise be dropped and the run sealed
    as if it never existed. Names every undecided draft of the pause, paused on or not, and how to decide it."""

    repos = tool_repositories(rec.run_dir)
    found = _unpaused(rec, repos, pause)
    if found is None:
        return
    unpaused = found[1]
    paused = [check_part(d.draft_id, "draft id") for d in paused_drafts(rec.events, pause.cause or {})]
    every = paused + [p.key for p in unpaused if p.key not in paused]
    decisions = {draft_id: repos.approvals.get(None, draft_id) for draft_id in every}
    if all(decision is not None for decision in decisions.values()):  # the one paused on too: pausing the others
        return  # would be written before its refusal
    undecided = [quoted(d) for d in every if decisions[d] is None]
    decided = [f"{quoted(d)} {getattr(v.status, 'value', v.status)}" for d, v in decisions.items() if v is not None]
    episode_id = quoted(rec.episode_id)
    raise tc.ApprovalDecisionRequiredError(
        f"run {rec.episode_id} stopped while pausing on {len(every)} drafts at once; {', '.join(undecided)} "
        f"{'has' if len(undecided) == 1 else 'have'} no decision yet"
        + (f" (decided: {', '.join(decided)})" if decided else "")
        + f". Decide each with noesis_nb.approve_draft({episode_id}, <draft id>, approver_id=...) or reject_draft(...), "
        "then resume_run: every approved draft then runs, in the order its approval was asked (nothing ran or was "
        "written now)"
    )


def _unpaused(rec: Recorder, repos: Any, pause: Pause | None) -> tuple[dict[str, int], list[Any]] | None:
    """Drafts pending approval after ``pause``'s resume, with no checkpoint and never handed to their tool, in the
    order they were asked (with each request's first index); None when the adapter finished after them."""

    after = pause.resume_index if pause is not None and pause.resume_index is not None else -1
    first_seen: dict[str, int] = {}
    for index, event in enumerate(rec.events):
        payload = event.get("payload")
        if not isinstance(payload, dict):
            continue
        if event.get("phase") == "tool" and isinstance(payload.get("request_id"), str):
            first_seen.setdefault(payload["request_id"], index)
        elif index > after and event.get("phase") == "act" and payload.get("kind") == "adapter":
            return None
    paused = {  # drafts a checkpoint already waits on: nothing of theirs is read here (their files are checked later)
        payload_of(e).get("request_id")
        for e in rec.events
        if payload_of(e).get("event_name") == names.TOOL_APPROVAL_PENDING and checkpoint_of(rec.events, e.get("id"))
    }
    waiting = [
        p
        for p in repos.prepared.list()
        if p.run_id == rec.episode_id
        and awaits_decision(p)
        and first_seen.get(p.request_id, -1) > after
        and p.request_id not in paused
        and not dispatched(rec, p.key)
    ]
    return first_seen, sorted(waiting, key=lambda p: first_seen[p.request_id])


def _pause_on(rec: Recorder, prepared: Any, *, pause: bool = True) -> bool:
    """Pause on a draft left pending without its checkpoint (its ``tool.approval.pending`` and interrupt are
    written where missing); False for a draft paused on already, left as it is. ``pause=False``: only its
    ``tool.approval.pending`` is written where missing (a draft held behind another's pause; an interrupt its
    process wrote before it was killed is completed all the same); True when a pause was completed."""
    request_events = _request_events(rec, prepared.request_id)
    pending = next((e for e in request_events if e["payload"].get("event_name") == names.TOOL_APPROVAL_PENDING), None)
    if pending is not None and checkpoint_of(rec.events, pending.get("id")) is not None:
        return False
    asked = None
    if pending is None:
        # announced as the live episode would have, at the draft's own time (its wait counts from it): a write's
        # ``tool.draft_created`` first, where its process died between saving the draft and announcing it
        asked = draft_time(tool_repositories(rec.run_dir).prepared, prepared.key)
        announced = {e["payload"].get("event_name") for e in request_events}
        if prepared.governance.effect_kind == "write" and names.TOOL_DRAFT_CREATED not in announced:
            request_events.append(
                rec.emit(
                    "tool",
                    {"event_name": names.TOOL_DRAFT_CREATED, "request_id": prepared.request_id, "draft_id": prepared.key},
                    agent_id="tool_contract",
                    caused_by=request_events[-1]["id"] if request_events else None,
                    timestamp=asked,
                )
            )
        pending = rec.emit(
            "tool",
            {
                "event_name": names.TOOL_APPROVAL_PENDING,
                "request_id": prepared.request_id,
                "draft_id": prepared.key,
                "candidate_id": prepared.governance.candidate_id,
                "reason_code": codes.GOVERNANCE_APPROVAL_REQUIRED,
            },
            agent_id="tool_contract",
            caused_by=request_events[-1]["id"] if request_events else None,
            timestamp=asked,
        )
    last = rec.events[-1]
    # decided by an approver policy (its pause never written): the pause is the policy's, marked as the live one is
    policy = _policy_of(tool_repositories(rec.run_dir).approvals.get(None, prepared.key))
    reason = f"tool approval {f'decided by approver {policy}' if policy else 'required'}: {prepared.tool.key} ({prepared.key})"
    if last.get("event_type") == RUN_INTERRUPT and last.get("caused_by") == pending["id"]:
        rec.complete_pause(last)
    elif pause:
        rec.pause(reason, pending["id"], policy=policy, at=asked)  # stopped at the draft: its wait counts from it
    else:
        return False
    return True


def process_lost(rec: Recorder) -> str:
    """Seal a run whose process died while its adapter ran; drafts it left mid-dispatch are marked unknown.
    Returns the status it was sealed with."""

    executions = ExecutionRepository(rec.run_dir)
    repos = tool_repositories(rec.run_dir)
    last = rec.events[-1] if rec.events else {}  # the dead process's last event, before this call writes any
    ended = {*names.TERMINAL_EXECUTION_EVENTS, names.TOOL_EXECUTION_OUTCOME_UNKNOWN}
    for prepared in repos.prepared.list():
        if prepared.run_id != rec.episode_id:
            continue
        request = _request_events(rec, prepared.request_id)
        steps = {e["payload"].get("event_name") for e in request}
        if steps & ended:
            continue
        result = executions.get(prepared.key)
        if result is not None:  # its result was recorded, its ending event not written: written now, from the record
            if names.TOOL_EXECUTION_STARTED in steps:
                status = getattr(result.status, "value", result.status)
                final = {"succeeded": names.TOOL_EXECUTION_SUCCEEDED, "replayed": names.TOOL_REPLAYED}.get(
                    status, names.TOOL_EXECUTION_FAILED
                )
                rec.emit(
                    "tool",
                    {
                        "event_name": final,
                        "request_id": prepared.request_id,
                        "draft_id": prepared.key,
                        "execution_id": result.execution_id,
                        "reason_code": result.reason_code,
                    },
                    agent_id="tool_contract",
                    caused_by=request[-1]["id"] if request else None,
                )
            continue
        if not executions.claimed(prepared.key) and names.TOOL_EXECUTION_STARTED not in steps:
            continue  # never handed to its tool
        rec.emit(
            "tool",
            {"event_name": names.TOOL_EXECUTION_OUTCOME_UNKNOWN, "request_id": prepared.request_id, "draft_id": prepared.key},
            agent_id="tool_contract",
            caused_by=request[-1]["id"] if request else None,
        )
    resumed = [i for i, e in enumerate(rec.events) if e.get("event_type") == RUN_RESUME]
    refused = recorded_refusal(rec.events, resumed[-1] if resumed else 0)
    if refused is not None:  # its process was alive: it could not write the run, and said so in it
        message = f"the process running this episode could not write its run ({refused}); resume_run sealed it"
    else:
        message = (
            f"the process running this episode stopped (it died, or could not write its run) (last event: "
            f"{_event_name(last)} at {last.get('timestamp', '?')}); resume_run sealed it"
        )
    # a pause its lost process left open is resumed by this resume_run (saying why), before anything closes the run
    leave_open_pause(rec, f"closed while paused: {message}", resumed_by="resume_run")
    episode = Episode(None, _options(rec), rec)
    candidate = lifecycle.find_candidate(rec)
    resumes = [i for i, e in enumerate(rec.events) if e.get("event_type") == RUN_RESUME]
    if _stopping(rec, resumes[-1] if resumes else 0):  # a graceful stop had begun: it could only end cancelled
        said = "the episode was stopping (a drain had begun) when its process stopped; resume_run sealed it"
        episode.finish(Outcome("cancelled", said, ["cancelled", "sealed_after_process_lost"]))
        return "cancelled"
    outcome = Outcome("error", message, ["process_lost"])
    if candidate is not None and not lifecycle.is_vetoed(rec, candidate):  # nothing ever acts on a vetoed candidate
        since = max([next(i for i, e in enumerate(rec.events) if e is candidate), *resumes])
        act = next((e for e in rec.events[since:] if e.get("phase") == "act" and isinstance(e.get("payload"), dict)), None)
        if act is not None and act["payload"].get("outcome") in {"ok", "error"}:  # the adapter had finished
            reasons = (
                [str(r) for r in act["payload"].get("reasons") or []] if isinstance(act["payload"].get("reasons"), list) else []
            )
            outcome = Outcome(
                act["payload"]["outcome"],
                "the adapter finished, but its process stopped before sealing; resume_run sealed it",
                [*reasons, "sealed_after_process_lost"],
            )
        lifecycle.close_act(
            rec,
            status=outcome.status,
            reasons=outcome.reasons,
            candidate=candidate,
            caused_by=lifecycle.act_parent(rec, candidate),
            since=since,
            # an act written now closes the run (the adapter never acted): ``synthetic``, no action of the episode,
            # so its time (the seal's, maybe days after the death) is not the run's first action
            extra={"synthetic": True},
        )
    episode.finish(outcome)
    return outcome.status


def _stopping(rec: Recorder, since: int) -> bool:
    """A drain began in the run since ``since`` (its last resume): once it has, the episode ends ``cancelled``."""
    return any(
        e.get("phase") == DRAIN_PHASE and isinstance(e.get("payload"), dict) and e["payload"].get("event_name") == DRAIN_STARTED
        for e in rec.events[since:]
    )


def _event_name(event: dict[str, Any]) -> str:
    """How a message names an event: a tool event by its step (``tool.execution.started``), others by phase."""
    payload = event.get("payload")
    if event.get("phase") == "tool" and isinstance(payload, dict) and isinstance(payload.get("event_name"), str):
        return str(payload["event_name"])
    return str(event.get("phase", "none"))
