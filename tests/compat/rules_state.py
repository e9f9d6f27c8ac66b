"""``state.json`` against Noēsis' state schema (``noesis/state/state.schema.json``, draft-07): no top-level key
outside the schema (``x-*`` allowed), the versions, the goal type, the outcome status and the links it knows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .rundata import Run, Violation

TOP_LEVEL = frozenset(
    {"version", "state_schema_version", "episode", "goal", "beliefs", "plan", "memory", "outcomes", "process", "links"}
)
REQUIRED = ("version", "state_schema_version", "episode", "goal", "plan", "outcomes")
STATUSES = ("ok", "error", "vetoed", "aborted", "partial", "pending")
LINKS = frozenset({"events", "summary", "learn", "manifest"})


def check(run: Run) -> Iterator[Violation]:
    state = run.docs.get("state.json")
    if isinstance(state, dict):
        yield from (Violation("state.schema", "state.json", f"{problem} (state schema 1.0.0)") for problem in _problems(state))


def _problems(state: dict[str, Any]) -> Iterator[str]:
    extra = sorted(k for k in state if k not in TOP_LEVEL and not k.startswith("x-"))
    if extra:
        yield f"keys {extra} are not in the schema (additionalProperties is false; an extension is named x-…)"
    missing = [k for k in REQUIRED if k not in state]
    if missing:
        yield f"missing {missing}"
    if "version" in state and state["version"] != "1.0":
        yield f"version is {state['version']!r}, expected '1.0'"
    if "state_schema_version" in state and state["state_schema_version"] != "1.0.0":
        yield f"state_schema_version is {state['state_schema_version']!r}, expected '1.0.0'"
    for key in ("episode", "goal", "plan", "outcomes", "links", "memory"):
        if key in state and not isinstance(state[key], dict):
            yield f"{key} must be an object, got {type(state[key]).__name__}"
    goal = state.get("goal")
    if isinstance(goal, dict) and (goal.get("type") != "task" or not isinstance(goal.get("task"), str)):
        yield f"goal must be {{task: str, type: 'task'}}, got {goal!r}"
    outcomes = state.get("outcomes")
    if isinstance(outcomes, dict) and outcomes.get("status") not in STATUSES:
        yield f"outcomes.status is {outcomes.get('status')!r}, not one of {list(STATUSES)}"
    if isinstance(outcomes, dict) and "actions" in outcomes and not isinstance(outcomes["actions"], list):
        yield "outcomes.actions must be a list"
    links = state.get("links")
    if isinstance(links, dict):
        unknown = sorted(k for k in links if k not in LINKS and not k.startswith("x-"))
        if unknown or not all(isinstance(v, str) for v in links.values()):
            yield f"links must map {sorted(LINKS)} to file names, got {links!r}"
    if "beliefs" in state and not isinstance(state["beliefs"], list):
        yield "beliefs must be a list"
