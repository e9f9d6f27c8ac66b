"""What a person does after a run was cut short, and what the run must look like after it.

Shared by the kill -9 (one draft, or two in parallel) and the full-disk harnesses: ``recover`` resumes a run until it is sealed
(deciding what waits for a decision, marking an unknown tool outcome failed, never re-running it);
``check_recovered`` asserts the sealed run verifies, passes Noēsis' validators, holds each
once-per-run event once, and that its tool ran at most once.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import noesis_nb
from noesis_nb.store import is_sealed, read_events, verify_manifest
from noesis_nb.tools import ApprovalDecisionRequiredError, ToolOutcomeUnknownError

from ..compat.checker import check_run
from .crashkit import agent_for

#: events a run holds at most once (after recovery as before)
ONCE_PER_RUN = ("start", "plan", "act", "reflect", "learn", "terminate", "insight", "memory")
ONCE_PER_REQUEST = (
    "tool.requested",
    "tool.draft_created",
    "tool.approval.pending",
    "tool.approved",
    "tool.execution.started",
    "tool.execution.succeeded",
    "tool.execution.failed",
)


def _waiting(run: Path) -> list[str | None]:
    """What ``approve_draft`` decides when given no draft id: the one draft the run waits on."""
    return [None]


def recover(
    run: Path, scenario: str, marker: Path, tally: Counter, *, drafts: Callable[[Path], Sequence[str | None]] = _waiting
) -> None:
    """What a person does after a crash: resume; approve the ``drafts`` waiting for a decision (the paused run passing
    the validators while it waits); an unknown outcome is marked failed."""
    agent = agent_for(scenario, str(marker))
    for _ in range(6):
        if is_sealed(run):
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                noesis_nb.resume_run(run, using=agent)
        except ApprovalDecisionRequiredError:
            # the run now waits for a person, maybe for days: it must be a whole paused run meanwhile
            paused = check_run(run)
            assert not paused, f"{run.name} waits for a decision but fails the validators: {paused[:3]}"
            for draft in drafts(run):
                noesis_nb.approve_draft(run, draft, approver_id="recovery")
                tally["decided after the crash"] += 1
        except ToolOutcomeUnknownError:
            tally["outcome unknown, marked failed"] += 1
            noesis_nb.resume_run(run, using=agent, unknown_outcome="fail")


def check_recovered(run: Path, marker: Path, tally: Counter) -> None:
    assert is_sealed(run), f"{run.name} is stuck: not sealed after recovery"
    check = verify_manifest(run)
    assert check.ok, check.problems
    events = read_events(run / "events.jsonl", strict=True)
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids)), "an event id appears twice"
    phases = Counter(e["phase"] for e in events)
    for phase in ONCE_PER_RUN:
        assert phases[phase] <= 1, f"{phase} written {phases[phase]} times"
    assert phases["terminate"] == 1 and phases["insight"] == 1
    per_request = Counter(
        (e["payload"].get("request_id"), e["payload"].get("event_name")) for e in events if e["phase"] == "tool"
    )
    twice = {k: n for k, n in per_request.items() if k[1] in ONCE_PER_REQUEST and n > 1}
    assert not twice, f"tool events written twice: {twice}"
    resumes = Counter(e["payload"].get("checkpoint_id") for e in events if e.get("event_type") == "run.resume")
    assert all(n == 1 for n in resumes.values()), f"a checkpoint resumed twice: {resumes}"
    runs = [line for line in marker.read_text().splitlines()] if marker.exists() else []
    assert len(runs) <= 1, f"the tool ran {len(runs)} times"
    if runs:
        tally["tool ran once"] += 1
    succeeded = [e for e in events if e["phase"] == "tool" and e["payload"].get("event_name") == "tool.execution.succeeded"]
    if succeeded:
        assert len(runs) == 1, "a recorded success without the tool's effect"
    assert len(noesis_nb.runs_df(run, strict=True, cache=False)) == 1
    assert len(noesis_nb.events_df(run, strict=True, cache=False)) == len(events)
    for frame in (noesis_nb.tools_df, noesis_nb.usage_df):
        frame(run, strict=True, cache=False)  # loads, strictly
    violations = check_run(run)  # a recovered run is still a Noēsis run
    assert not violations, [f"{v.rule}: {v.message}" for v in violations]
    status = next(e for e in events if e["phase"] == "terminate")["payload"]["status"]
    tally[f"sealed {status}"] += 1
