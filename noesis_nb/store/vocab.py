"""The run vocabulary, defined once: statuses, lifecycle event types, token fields."""

from __future__ import annotations

from enum import Enum


class Status(str, Enum):
    """A run's status, as every reader reports it (a ``str``, so it compares equal to its value)."""

    RUNNING = "running"
    PAUSED = "paused"
    OK = "ok"
    ERROR = "error"
    VETOED = "vetoed"
    CANCELLED = "cancelled"
    #: unsealed, its files say running, and the process that wrote it is gone (``resume_run`` seals it ``error``)
    LOST = "lost"

    @property
    def terminal(self) -> bool:
        return self.value in TERMINAL_STATUSES


#: a run that ended: sealed, or being sealed
TERMINAL_STATUSES = frozenset({Status.OK.value, Status.ERROR.value, Status.VETOED.value, Status.CANCELLED.value})
#: every status a run can report
STATUSES = tuple(status.value for status in Status)

RUN_INTERRUPT = "run.interrupt"
RUN_CHECKPOINT = "run.checkpoint"
RUN_RESUME = "run.resume"
RUN_STATE_PROJECTION = "run.state_projection"
#: payload key of the ``run.interrupt``, ``run.checkpoint`` and ``run.resume`` of a pause an approver policy decided
#: (``approver="auto"``, ``"deny"``, a callable): its value names the policy (``policy:auto``). Such a pause waits for
#: nobody: readers count it as the policy's, never as a wait for a person (``policy_pause``)
POLICY_PAUSE_KEY = "decided_by_policy"
# tags an earlier release's import of a whole recorded trace gave its run (beside its ``trace_digest``): the tool
# calls and approvals the trace records, which became no drafts then. runs_df still reads them so in such a run (its
# tool_calls and waiting_s unknown, never a wrong 0); a user's tag of that name in any other run is only a tag
RECORDED_TOOL_CALLS_TAG = "recorded_tool_calls"
RECORDED_APPROVALS_TAG = "recorded_approvals"
# an imported trace's row starting a tool call that became no draft (the trace does not show it whole), and its
# approval request: the run's summary counts them (``x-noesis_nb.undrafted_tool_calls`` / ``undrafted_approvals``)
UNDRAFTED_CALL = "undrafted_call"
UNDRAFTED_APPROVAL = "undrafted_approval"
#: payload key of the ``run.interrupt`` and ``run.checkpoint`` of a pause an approver policy left to a person (it
#: answered None): its value names the policy. The pause waits for a person; nobody asks the policy about it again
POLICY_DEFERRED_KEY = "deferred_by_policy"

#: token counts of a model call; input/output are totals, the others are parts of them
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")
#: the same fields in the order tables show them (each total next to its parts)
TOKEN_COLUMNS = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_tokens")
#: a model call's billed counts beyond its tokens, kept in its event when the provider reports them and priced as
#: genai-prices prices them: the part of ``cache_write_input_tokens`` written for one hour (Anthropic's
#: ``cache_creation.ephemeral_1h_input_tokens``, at its own rate) and the server-side web searches it ran
#: (Anthropic's ``server_tool_use.web_search_requests``, the ``web_search_call`` items of an OpenAI Responses
#: call; per search); absent or null: none reported, priced as none
BILLED_COUNTS = ("cache_write_1h_input_tokens", "web_search_requests")
#: the counts that price a call, in the order ``TOKEN_COLUMNS`` then ``BILLED_COUNTS``
PRICED_COUNTS = (*TOKEN_COLUMNS, *BILLED_COUNTS)

#: ``payload.event_name`` of a ``model`` event (one model call)
MODEL_CALL = "model.call"

# ``payload.event_name`` of the Noēsis tool contract's ``tool`` events (``tool_contract/event_names.py``)
TOOL_REQUESTED = "tool.requested"
TOOL_VALIDATED = "tool.validated"
TOOL_REJECTED_INVALID = "tool.rejected.invalid"
TOOL_AUTHN_PASSED = "tool.authn.passed"
TOOL_AUTHN_FAILED = "tool.authn.failed"
TOOL_AUTHZ_PASSED = "tool.authz.passed"
TOOL_AUTHZ_DENIED = "tool.authz.denied"
ACTION_CANDIDATE_EMITTED = "action.candidate_emitted"
TOOL_DRAFT_CREATED = "tool.draft_created"
TOOL_PREFLIGHT_COMPUTED = "tool.preflight.computed"
TOOL_PREFLIGHT_MISMATCH = "tool.preflight.mismatch"
TOOL_PRECONDITION_FAILED = "tool.precondition.failed"
TOOL_APPROVAL_PENDING = "tool.approval.pending"
TOOL_APPROVED = "tool.approved"
TOOL_REJECTED_GOVERNANCE = "tool.rejected.governance"
TOOL_EXECUTION_STARTED = "tool.execution.started"
TOOL_EXECUTION_SUCCEEDED = "tool.execution.succeeded"
TOOL_EXECUTION_FAILED = "tool.execution.failed"
TOOL_REPLAYED = "tool.replayed"
TOOL_RATE_LIMITED = "tool.rate_limited"
# noesis_nb extension: a dispatched draft whose result was never recorded (its process stopped)
TOOL_EXECUTION_OUTCOME_UNKNOWN = "tool.execution.outcome_unknown"
# noesis_nb extension: a draft whose call the adapter gave up while its approval was awaited (cancelled, timed out):
# never run; its pause is resumed, saying so, and its decision recorded rejected by ``ABANDONED_BY`` unless one was made
TOOL_APPROVAL_ABANDONED = "tool.approval.abandoned"
#: the approver a draft given up is recorded rejected by (a later approval changes nothing, and says why)
ABANDONED_BY = "adapter"
TERMINAL_EXECUTION_EVENTS = (TOOL_EXECUTION_SUCCEEDED, TOOL_EXECUTION_FAILED, TOOL_REPLAYED)

# noesis_nb extension phases ``steer`` and ``drain`` (``store.phases``): their ``payload.event_name``
STEER_SENT = "steer.sent"  # a person told the running agent something
STEER_APPLIED = "steer.applied"  # the adapter took it (``ctx.steers()`` / ``ctx.next_steer``)
STEER_UNHEARD = "steer.unheard"  # the run ended with it still queued: the adapter never took it
DRAIN_STARTED = "drain.started"  # a graceful stop began: nothing new starts
DRAIN_REFUSED = "drain.refused"  # a tool or model call asked for while draining, never started
DRAIN_REPORT = "drain.report"  # how the drain ended: what finished, what was cut off
#: when a steer reaches the adapter: at its next item (tool call, model call, message) or only between rounds
STEER_MODES = ("next-item", "between-rounds")

ACTION_CANDIDATE_SCHEMA = "action_candidate/1.0.0"

#: the values Noēsis writes in a run's outcome fields (final/2.0.0 and its summary), by file and field: a reader
#: reports any other value (kept as read)
OUTCOME_VALUES = {
    "final.json": {
        "outcome": ("success", "failed", "vetoed", "cancelled", "interrupted", "error"),
        "verification_status": ("verified", "unverified", "not_applicable"),
    },
    "summary.json": {
        "outcome": ("success", "goal_not_achieved", "success_unverified", "error"),
        "adapter_result": ("success", "error", "skipped"),
    },
}

_FINAL_OUTCOME = {"ok": "success", "error": "error", "vetoed": "vetoed", "cancelled": "cancelled"}


def final_outcome(status: str) -> str:
    """``final.json``'s ``outcome`` for a run status."""
    return _FINAL_OUTCOME.get(status, "error")


def policy_pause(payload: object) -> bool:
    """Whether a lifecycle event's payload marks a pause an approver policy decided (``POLICY_PAUSE_KEY``)."""
    return isinstance(payload, dict) and isinstance(payload.get(POLICY_PAUSE_KEY), str)


def state_status(status: str) -> str:
    """``state.outcomes.status`` for a run status (Noēsis' state has no ``cancelled``: it says ``aborted``)."""
    return status if status in TERMINAL_STATUSES and status != "cancelled" else "aborted"


def failed(status: str) -> bool:
    """A terminal status other than ``ok``."""
    return status in TERMINAL_STATUSES and status != "ok"


__all__ = [name for name in dir() if name.isupper()] + ["Status", "final_outcome", "state_status", "failed", "policy_pause"]
