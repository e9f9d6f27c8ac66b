"""The run vocabulary, defined once: statuses, lifecycle event types, token fields."""

from __future__ import annotations

__all__ = [
    "TERMINAL_STATUSES", "STATUSES", "RUN_INTERRUPT", "RUN_CHECKPOINT", "RUN_RESUME", "RUN_STATE_PROJECTION",
    "TOKEN_FIELDS", "ACTION_CANDIDATE_SCHEMA", "final_outcome",
]

#: a run that ended: sealed, or being sealed
TERMINAL_STATUSES = frozenset({"ok", "error", "vetoed", "cancelled"})
#: every status a run can report
STATUSES = ("running", "paused", *sorted(TERMINAL_STATUSES))

RUN_INTERRUPT = "run.interrupt"
RUN_CHECKPOINT = "run.checkpoint"
RUN_RESUME = "run.resume"
RUN_STATE_PROJECTION = "run.state_projection"

#: token counts of a model call; input/output are totals, the others are parts of them
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")

ACTION_CANDIDATE_SCHEMA = "action_candidate/1.0.0"

_FINAL_OUTCOME = {"ok": "success", "error": "error", "vetoed": "vetoed", "cancelled": "cancelled"}


def final_outcome(status: str) -> str:
    """``final.json``'s ``outcome`` for a run status."""
    return _FINAL_OUTCOME.get(status, "error")
