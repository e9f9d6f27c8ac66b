"""Column specs: what a frame's columns are called, where their values come from, and their dtype.

Default columns are documented constants (``RUN_COLUMNS``, ``EVENT_COLUMNS``, ``TOOL_COLUMNS``,
``USAGE_COLUMNS``: name → (dtype, meaning)). Extra columns are data a user passes as
``columns=[Column(...)]``: a dotted ``path`` into the record the frame is built from, or a
function of that record, and a ``type``. This follows inspect_ai's analysis columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidOptionError
from ..secrets.quoted import quoted, typo_hint
from ..store.vocab import TOKEN_COLUMNS as VOCAB_TOKEN_COLUMNS

__all__ = [
    "Column",
    "RUN_COLUMNS",
    "EVENT_COLUMNS",
    "TOOL_COLUMNS",
    "USAGE_COLUMNS",
    "TOKEN_COLUMNS",
    "resolve_path",
    "check_columns",
]

_TYPES = {"str", "float", "int", "bool", "datetime", "category", "object"}


@dataclass(frozen=True)
class Column:
    """An extra column: ``Column("plan_adherence", path="summary.metrics.plan_adherence", type="float")``.

    ``path`` is dotted keys into the frame's record (list indices allowed: ``"steps.0"``);
    ``fn`` receives the whole record instead. ``type`` is one of str, float, int, bool,
    datetime, category, object. A missing value is NA, never an error; in an int, float or bool column a value of
    another kind (the text ``"12"``, ``12.5`` for an int, ``1`` or ``"false"`` for a bool) is NA too, never converted,
    and listed in the frame's ``attrs["errors"]`` (``strict=True`` raises on it).
    """

    name: str
    path: str | None = None
    fn: Callable[[Mapping[str, Any]], Any] | None = None
    type: str = "object"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidOptionError(
                f"Column name={quoted(self.name)}: name the column with a non-empty string, e.g. Column('plan', ...)"
            )
        if isinstance(self.fn, str) and self.fn in _TYPES:  # Column("x", "a.b", "float"): the type landed in fn
            raise InvalidOptionError(
                f"Column {quoted(self.name)}: fn={quoted(self.fn)} is a type name; pass it by keyword: "
                f"Column({quoted(self.name)}, path={quoted(self.path)}, type={quoted(self.fn)})"
            )
        if (self.path is None) == (self.fn is None):
            raise InvalidOptionError(f"Column {quoted(self.name)}: give exactly one of path='a.b.c' or fn=callable")
        if self.fn is not None and not callable(self.fn):
            raise InvalidOptionError(
                f"Column {quoted(self.name)}: fn={quoted(self.fn, 60)} is not callable; pass a function of the record"
            )
        if self.path is not None and (not isinstance(self.path, str) or not self.path.strip(".")):
            joined = ".".join(map(str, self.path)) if isinstance(self.path, (list, tuple)) else "summary.metrics.x"
            raise InvalidOptionError(
                f"Column {quoted(self.name)}: path={quoted(self.path, 60)} is no dotted path; pass a string such as "
                f"{quoted(joined)}"
            )
        if not isinstance(self.type, str) or self.type not in _TYPES:
            if isinstance(self.type, type) and self.type.__name__ in _TYPES:
                hint = f" (type={quoted(self.type.__name__)})"
            elif isinstance(self.type, str):
                hint = typo_hint(self.type, sorted(_TYPES))
            else:
                hint = ""
            raise InvalidOptionError(f"Column {quoted(self.name)}: type={quoted(self.type)} is not one of {sorted(_TYPES)}{hint}")
        if self.path is not None:
            object.__setattr__(self, "_keys", tuple(self.path.split(".")))

    def value(self, record: Mapping[str, Any]) -> Any:
        if self.fn is not None:
            try:
                return self.fn(record)
            except (KeyError, IndexError, TypeError, AttributeError):
                return None
        return resolve_path(record, self._keys)  # type: ignore[attr-defined]


def resolve_path(record: Any, keys: Sequence[str] | str) -> Any:
    """Follow dotted ``keys`` through dicts (and lists by index); None when any step is missing."""
    if isinstance(keys, str):
        keys = keys.split(".")
    value = record
    for key in keys:
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, list) and key.lstrip("-").isdigit():
            index = int(key)
            value = value[index] if -len(value) <= index < len(value) else None
        else:
            return None
        if value is None:
            return None
    return value


def check_columns(
    columns: Sequence[Column] | None, defaults: Mapping[str, Any], frame: str, roots: Sequence[str] = ()
) -> tuple[Column, ...]:
    """Validate user columns: Column instances whose names do not shadow a default column, and whose paths start
    at one of ``roots`` (the frame's record has those keys alone: ``summmary.task`` would be NA in every row)."""
    if isinstance(columns, Column):  # one spec where a list was meant: unambiguous
        columns = [columns]
    if not columns:
        return ()
    if isinstance(columns, (str, Mapping)) or not isinstance(columns, Iterable):
        raise InvalidOptionError(
            f"{frame}: columns={quoted(columns, 80)} is not a list; pass columns=[Column('name', path='a.b'), ...]"
        )
    out = []
    names: set[str] = set()
    for column in columns:
        if not isinstance(column, Column):
            raise InvalidOptionError(f"{frame}: columns= takes noesis_nb.frames.Column specs, got {quoted(column)}")
        if column.name in defaults:
            raise InvalidOptionError(f"{frame}: column {quoted(column.name)} is a default column; pick another name")
        if column.name in names:
            raise InvalidOptionError(f"{frame}: two columns are named {quoted(column.name)}; give each Column its own name")
        names.add(column.name)
        out.append(column)
    for column in out:  # the specs' names first: two named alike is said whatever their paths
        head = column.path.split(".", 1)[0] if column.path is not None else None
        if roots and head is not None and head not in roots:
            raise InvalidOptionError(
                f"{frame}: Column {quoted(column.name)} path={quoted(column.path, 80)} starts at {quoted(head, 40)}"
                f"{typo_hint(head, roots)}, which is no part of its records; start the path at one of "
                f"{', '.join(roots)}"
            )
    return tuple(out)


TOKEN_COLUMNS = VOCAB_TOKEN_COLUMNS

RUN_COLUMNS: dict[str, tuple[str, str]] = {
    "episode_id": ("str", "episode id (summary, state, or the directory name)"),
    "source": (
        "category",
        "system the run came from: tags.source when it names an integration (agui, noeta, langgraph, "
        "crewai, noetic, taisce), else noesis_nb (x-noesis_nb extension present) or noesis",
    ),
    "task": ("str", "the task text"),
    "using": ("category", "adapter label (summary.flags.using, start payload, or state)"),
    "status": ("category", "ok, error, vetoed, paused, running, cancelled, lost (noesis_nb.store.run_status)"),
    "outcome": ("category", "final.json / summary outcome (success, failed, vetoed, error, ...)"),
    "success": ("bool", "summary.metrics.success"),
    "started_at": ("datetime", "UTC start time (a time written without an offset is read as UTC)"),
    "ended_at": (
        "datetime",
        "UTC end time of a finished run: started_at + duration_s, the end it recorded (Noēsis' own runs record a "
        "duration that ends before their reflect, learn and terminate events), else NaT",
    ),
    "duration_s": (
        "float",
        "wall time, waits for people included: summary.duration_sec, else ended_at - started_at; NaN until the run "
        "ends (a frame holds what the files say: the view counts a running or paused run's time as of now)",
    ),
    "waiting_s": (
        "float",
        "time paused waiting for people (run.interrupt or run.checkpoint to run.resume); duration_s - waiting_s is the "
        "running time the view shows; <NA> while the run waits for a person now (paused), as its duration_s, and "
        "for an imported trace that records an approval (its wait is not in the run's log)",
    ),
    "governance_mode": ("category", "off, audit or enforce"),
    "act_count": (
        "int",
        "summary.metrics.act_count, else actions in state.json; <NA>, as success, veto_count and score, when a sealed "
        "run's summary.json is not as its manifest lists it",
    ),
    "veto_count": ("int", "governance vetoes (summary.metrics.veto_count)"),
    "tool_calls": (
        "int",
        "tool calls, as tools_df's rows: the drafts and each tool.requested no draft came of (a call refused before "
        "its draft, or cut off before it), from the log when it is read, else x-noesis_nb.tool_requests of the sealed "
        "summary; <NA> when neither tells (a summary without that count, changed since its seal, or counting fewer "
        "than the drafts), a tool record a sealed run's manifest lists is gone or changed, or an imported trace "
        "records more tool calls than these (its calls become no drafts: tools_df has no row for them)",
    ),
    "pending_approvals": ("int", "drafts waiting for a human decision"),
    "model_calls": (
        "int",
        "model.call events; <NA> (with the token totals and cost) when a sealed run's events.jsonl is gone or not "
        "as its manifest lists it",
    ),
    "input_tokens": (
        "int",
        "total input tokens over model calls (cached and cache-write included); each token "
        "total is <NA> when any call left it unknown",
    ),
    "cached_input_tokens": ("int", "part of input read from cache"),
    "cache_write_input_tokens": ("int", "part of input written to cache"),
    "output_tokens": ("int", "total output tokens (reasoning included)"),
    "reasoning_tokens": ("int", "part of output spent reasoning"),
    "cost_usd": ("float", "cost priced now from tokens; NaN when any call is unpriced"),
    "priced": ("bool", "every model call had a price and known token counts"),
    "batch_id": ("str", "the run's batch (x-noesis_nb.batch of summary.json, else of state.json); <NA> outside batches"),
    "task_index": ("int", "the run's task in its batch's task list"),
    "batch_adapter": ("category", "the adapter's name in its batch (the key of using={name: adapter})"),
    "score": ("float", "summary.metrics.score: the batch scorer's verdict (a bool as 1.0 / 0.0); NaN when unscored"),
    "score_is_bool": (
        "bool",
        "summary.metrics.score is a JSON true or false (the scorer returned a bool): batch_summary gives such scores "
        "Wilson's interval, any other score a t interval; <NA> when unscored",
    ),
    "sealed": (
        "bool",
        "manifest.json is a regular file of the run (written last: a run with final.json but no manifest is still being "
        "sealed; a link or folder in its place is no seal), as noesis_nb.store.is_sealed says",
    ),
    "manifest_ok": ("bool", "every file manifest.json lists exists with its size (NA: no manifest; False: unreadable)"),
    "run_dir": ("str", "where the run lives (path or URL)"),
}

EVENT_COLUMNS: dict[str, tuple[str, str]] = {
    "episode_id": ("category", "owning episode"),
    "source": ("category", "payload.source when it names an integration (agui, noeta, ...), else the run's source"),
    "seq": ("int", "0-based line order within the run's events.jsonl"),
    "event_id": ("str", "event id (older insight/memory lines have none)"),
    "timestamp": ("datetime", "UTC event time (a time written without an offset is read as UTC)"),
    "phase": ("category", "start, observe, plan, act, tool, model, integration, runtime, terminate, ..."),
    "event_name": ("category", "event_type (runtime) or payload.event_name (tool, model)"),
    "agent_id": ("category", "emitter"),
    "caused_by": ("str", "parent event id"),
    "duration_ms": ("float", "metrics.duration_ms"),
    "faculty": ("category", "intuition, direction, governance or insight"),
    "status": ("category", "payload.status (terminate, runtime, memory)"),
    "tool": ("category", "payload.tool (an act's payload.adapter when it has no tool: Noēsis' synthetic act)"),
    "draft_id": ("str", "payload.draft_id"),
    "model": ("category", "payload.model"),
    "payload": ("object", "the payload dict"),
}

TOOL_COLUMNS: dict[str, tuple[str, str]] = {
    "episode_id": ("str", "owning episode"),
    "source": ("category", "the run's source (runs_df)"),
    "draft_id": ("str", "draft:<run_id>:<request_id>; <NA> for a call that never became a draft (invalid, denied, lost)"),
    "request_id": ("str", "tool request id"),
    "tool": ("category", "namespace.name@version"),
    "protocol": ("category", "subprocess, python, http, mcp"),
    "effect_kind": ("category", "read or write"),
    "risk_tier": ("category", "low, medium, high, critical"),
    "requires_approval": ("bool", "a human had to approve"),
    "status": (
        "category",
        "pending, approved, rejected, replayed, succeeded, failed, unknown (started, no result recorded: its process died, or "
        "it runs now); prepared: not run yet; "
        "undecided: still waiting when its run ended (sealed), so it can no longer be decided; a call asked for that "
        "never became a draft: invalid (tool.rejected.invalid: a payload field or protocol refused), denied "
        "(tool.authn.failed, tool.authz.denied), requested (its draft still being made), lost (its run ended or its "
        "process died before the draft)",
    ),
    "requested_at": ("datetime", "tool.requested time"),
    "decided_at": ("datetime", "approval or rejection time"),
    "wait_s": (
        "float",
        "how long the run was paused for a person on this draft: its own pause (run.interrupt or run.checkpoint to "
        "run.resume, the last that began between its approval.pending and its decision), so a run's wait_s add up to "
        "its waiting_s (drafts asked at once pause one at a time); from approval.pending to the decision where no "
        "pause held it; an undecided draft's is the last pause that began after its approval.pending (the one its "
        "run's end closed); <NA> for a draft an approver policy decided (nobody waited), one still pending, or one "
        "undecided that no pause of its own held",
    ),
    "approver_id": ("str", "who decided"),
    "decision_reason": ("str", "the human's reason"),
    "executed_at": ("datetime", "tool.execution.started time"),
    "duration_ms": ("float", "execution time"),
    "reason_code": ("category", "tool contract reason code"),
}

USAGE_COLUMNS: dict[str, tuple[str, str]] = {
    "episode_id": ("str", "owning episode"),
    "source": ("category", "payload.source when it names an integration, else the run's source (as in events_df)"),
    "timestamp": ("datetime", "UTC time of the model call"),
    "provider": ("category", "provider id (openai, anthropic, ...)"),
    "model": ("category", "model name as the adapter reported it"),
    "input_tokens": ("int", "total input tokens (cached and cache-write included); <NA> unknown"),
    "cached_input_tokens": ("int", "part of input read from cache"),
    "cache_write_input_tokens": ("int", "part of input written to cache"),
    "output_tokens": ("int", "total output tokens (reasoning included)"),
    "reasoning_tokens": ("int", "part of output spent reasoning"),
    "cache_write_1h_input_tokens": (
        "int",
        "part of cache_write_input_tokens kept one hour (Anthropic's), priced at its own rate; <NA> none reported",
    ),
    "web_search_requests": (
        "int",
        "web searches the call ran (Anthropic's server tool, OpenAI Responses' web_search_call items), priced per "
        "search; <NA> none reported",
    ),
    "latency_ms": ("float", "call latency"),
    "cost_usd": ("float", "priced now from tokens; NaN when unpriced, never 0"),
    "priced": ("bool", "a price was found and input/output tokens are known"),
    "price_source": ("category", "user, genai-prices, or None"),
    "reported_cost_usd": ("float", "cost the provider reported at run time (not trusted)"),
    "unpriced_reason": (
        "category",
        "why cost_usd is NaN: 'no price for model', 'input tokens unknown', 'output tokens unknown', 'input and output "
        "tokens unknown', 'log changed since its seal'; <NA> when priced",
    ),
}
