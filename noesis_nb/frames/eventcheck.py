"""Checking one run's events, column by column, before they become typed columns.

Every field the event frames read has a rule (``values.RULES``): ``timestamp``, ``phase`` and
``payload`` are required; ids, names and labels are text; ``metrics.duration_ms`` is a number
from 0; a ``model.call`` payload's token counts are whole numbers from 0 whose parts do not
exceed their totals; a tool event's ids and codes are text. A value that breaks its rule is
replaced by None in the column lists (so it reads as unknown) and returned as
``(event index, reason)``; the caller turns indices into line numbers.

The common case costs one ``set(map(type, column))`` per column: only a column holding an
unexpected type is walked value by value.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from itertools import chain
from typing import Any

from ..store.phases import slipped_phase
from ..store.vocab import MODEL_CALL
from .values import MAX_COUNT, RULES, TOKEN_KEYS, describe, usage_conflicts

__all__ = ["check_run", "check_calls", "FACULTIES", "slipped_call", "slip_reason"]

_NONE = type(None)
_TEXT: set[type] = {str, _NONE}
FACULTIES = frozenset({"intuition", "direction", "governance", "insight"})
# column -> (allowed types, what a good value is); None is allowed (absent) unless the column is required
_COLUMNS: dict[str, tuple[set[type], str]] = {
    "event_id": (_TEXT, "text"),
    "agent_id": (_TEXT, "text"),
    "caused_by": (_TEXT, "text"),
    "faculty": (_TEXT, "text"),
    "event_type": (_TEXT, "text"),
    "metrics": ({dict, _NONE}, "an object"),
    "event_name": (_TEXT, "text"),
    "status": (_TEXT, "text"),
    "draft_id": (_TEXT, "text"),
    "model": (_TEXT, "text"),
    "source": (_TEXT, "text"),
}
_REQUIRED: dict[str, tuple[set[type], str]] = {
    "timestamp": ({str}, "an ISO-8601 time"),
    "phase": ({str}, "text"),
    "payload": ({dict}, "an object"),
}
_FIELD = {"event_id": "id", "duration_ms": "metrics.duration_ms"}  # column -> where it is in the event line
_PAYLOAD = {"event_name", "status", "tool", "draft_id", "model", "source"}
_CALL_RULES = {
    **dict.fromkeys(TOKEN_KEYS, "count"),
    "model_calls": "count",
    "latency_ms": "nonneg",
    "cost_usd": "nonneg",
    "provider": "text",
}
_RUNS_CALL_RULES = {**_CALL_RULES, "model": "text"}
_TOOL_RULES = dict.fromkeys(("request_id", "reason_code", "protocol", "reason"), "text")  # what tools_df reads


def _where(column: str) -> str:
    return f"payload.{column}" if column in _PAYLOAD else _FIELD.get(column, column)


def check_run(cols: dict[str, list[Any]]) -> list[tuple[int, str]]:
    """Check a run's column lists in place (bad values → None); ``(index, reason)`` for each bad value, in line order."""
    bad: list[tuple[int, str]] = []
    for column, (allowed, want) in _REQUIRED.items():
        values = cols[column]
        if not set(map(type, values)) <= allowed or (column == "phase" and "" in values):
            for i, v in enumerate(values):
                if type(v) not in allowed or v == "":
                    reason = "is missing" if v is None else f"is {describe(v)}, not {want}" if v != "" else "is empty"
                    bad.append((i, f"{column} {reason}; read as unknown"))
                    values[i] = None
    for column, (allowed, want) in _COLUMNS.items():
        values = cols[column]
        if not set(map(type, values)) <= allowed:
            for i, v in enumerate(values):
                if type(v) not in allowed:
                    bad.append((i, f"{_where(column)} is {describe(v)}, not {want}; read as unknown"))
                    values[i] = None
    faculty = cols["faculty"]
    if not set(faculty) <= FACULTIES | {None}:
        for i, v in enumerate(faculty):
            if v is not None and v not in FACULTIES:
                bad.append((i, f"faculty is {describe(v)}, not one of {sorted(FACULTIES)}; read as unknown"))
                faculty[i] = None
    calls = _positions(cols["event_name"], MODEL_CALL)
    _check_slips(cols["phase"], cols["event_name"], bad, calls)
    _check_tools(cols["tool"], bad)
    _check_durations(cols["duration_ms"], bad)
    _check_payloads(cols, bad, calls)
    bad.sort(key=lambda item: item[0])
    return bad


def _check_slips(phases: list[Any], names: list[Any], bad: list[tuple[int, str]], calls: list[int]) -> None:
    """A phase or ``event_name`` that is a known one but for a slip (``model.call ``, ``Model.Call``, ``tool\u200b``).

    Nothing counts it as the name it looks like (a model call that is no ``model.call`` is in no usage sum), so
    it is reported where it is. Checked per distinct value: a run writes few names. ``calls``: where ``names``
    says ``model.call``.
    """
    slips = {p: meant for p in set(phases) if type(p) is str and (meant := slipped_phase(p)) is not None}
    distinct = set(names)
    slips_named = {n: MODEL_CALL for n in distinct if type(n) is str and n != MODEL_CALL and slipped_call(n)}
    for column, values, found in (("phase", phases, slips), ("payload.event_name", names, slips_named)):
        if found:
            for i, v in enumerate(values):
                if v in found:
                    bad.append((i, slip_reason(column, v, found[v])))
    if calls:
        misplaced = (i for i in calls if phases[i] != "model" and phases[i] not in slips)
        bad.extend((i, misplaced_call_reason(phases[i])) for i in misplaced)


def misplaced_call_reason(phase: Any) -> str:
    """What every frame says of a ``model.call`` event under a phase other than ``model`` (counted by no view); a
    phase that is a known one but for a slip is said as such (``_check_slips``)."""
    meant = slipped_phase(phase) if type(phase) is str else None
    if meant is not None:
        return slip_reason("phase", phase, meant)
    return (
        f"payload.event_name is 'model.call' under phase {describe(phase)}: a model call is a 'model' event; not counted as one"
    )


def slip_reason(column: str, value: str, meant: str) -> str:
    """What to say of a name ``value`` in ``column`` that is ``meant`` but for a slip (every frame says it alike)."""
    return f"{column} is {describe(value)}, close to {meant!r} but not it; not counted as {meant!r}"


@functools.lru_cache(maxsize=512)
def slipped_call(name: str) -> bool:
    """Whether ``name`` is ``model.call`` but for case, spaces, invisible characters or its separator."""
    visible = "".join(c for c in name if unicodedata.category(c) not in ("Cf", "Cc", "Zl", "Zp", "Zs"))
    return visible.lower().replace("_", ".").replace("-", ".").replace(":", ".").replace("/", ".") in _CALL_SPELLINGS


_CALL_SPELLINGS = frozenset({MODEL_CALL, MODEL_CALL.replace(".", "")})


def _check_tools(tools: list[Any], bad: list[tuple[int, str]]) -> None:
    kinds = set(map(type, tools))
    if kinds <= _TEXT:
        return
    rule = RULES["tool"]
    for i, v in enumerate(tools):
        if v is not None and not rule.ok(v):
            bad.append((i, f"payload.tool is {describe(v)}, not {rule.want}; read as unknown"))
            tools[i] = None


def _check_durations(durations: list[Any], bad: list[tuple[int, str]]) -> None:
    kinds = set(map(type, durations))
    if kinds <= {int, float, _NONE}:
        numbers = [v for v in durations if v is not None]
        if not numbers or (min(numbers) >= 0 and max(numbers) < MAX_COUNT and math.isfinite(min(numbers))):
            return
    rule = RULES["nonneg"]
    for i, v in enumerate(durations):
        if v is not None and not rule.ok(v):
            bad.append((i, f"metrics.duration_ms is {describe(v)}, not {rule.want}; read as unknown"))
            durations[i] = None


def _check_payloads(cols: dict[str, list[Any]], bad: list[tuple[int, str]], calls: list[int]) -> None:
    """Fields that ``usage_df`` and ``tools_df`` read from model-call (at ``calls``) and tool payloads, field by field."""
    payloads, phases = cols["payloads"], cols["phase"]
    for targets, rules in ((calls, _CALL_RULES), (_positions(phases, "tool"), _TOOL_RULES)):
        if not targets:
            continue
        chosen = [payloads[i] for i in targets]
        if rules is _TOOL_RULES and set(map(type, chain.from_iterable(map(dict.values, chosen)))) <= _TEXT:
            continue  # every value of these payloads is text or null: each text field fits (the usual tool event)
        _check_fields(chosen, targets, rules, bad)


def check_calls(payloads: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """``(index, reason)`` for each field of these ``model.call`` payloads that ``usage_df`` would read as unknown.

    ``runs_df`` sums and prices the calls it scans from a log without the other frames' columns; this is the
    same check (and words) as theirs, so a bad count is reported by every frame. ``model`` is checked here
    too: for the event frames it is a column of every event (``check_run``).
    """
    bad: list[tuple[int, str]] = []
    if payloads and not _plain_calls(payloads):
        _check_fields(payloads, list(range(len(payloads))), _RUNS_CALL_RULES, bad)
        bad.sort(key=lambda item: item[0])
    return bad


_COUNT_KEYS = tuple(k for k, rule in _RUNS_CALL_RULES.items() if rule == "count")
_NONNEG_KEYS = tuple(k for k, rule in _RUNS_CALL_RULES.items() if rule == "nonneg")
_TEXT_KEYS = tuple(k for k, rule in _RUNS_CALL_RULES.items() if rule == "text")


def _plain_calls(payloads: list[dict[str, Any]]) -> bool:
    """The common case of ``check_calls``, one list per kind of field rather than per field: every count,
    number and text plainly fits, and no part exceeds its total (then nothing is reported)."""
    if not (
        _plain([p.get(k) for p in payloads for k in _COUNT_KEYS], "count")
        and _plain([p.get(k) for p in payloads for k in _NONNEG_KEYS], "nonneg")
        and _plain([p.get(k) for p in payloads for k in _TEXT_KEYS], "text")
    ):
        return False
    get = dict.get
    for p in payloads:
        total, output, reasoning = get(p, "input_tokens"), get(p, "output_tokens"), get(p, "reasoning_tokens")
        if total is not None and (get(p, "cached_input_tokens") or 0) + (get(p, "cache_write_input_tokens") or 0) > total:
            return False
        if output is not None and reasoning is not None and reasoning > output:
            return False
    return True


def _check_fields(chosen: list[dict[str, Any]], targets: list[int], rules: dict[str, str], bad: list[tuple[int, str]]) -> None:
    """Check ``rules``' fields of the ``chosen`` payloads (event ``targets[j]`` each), column by column."""
    fields = {key: [p.get(key) for p in chosen] for key in rules}
    for key, rule_name in rules.items():
        values = fields[key]
        if _plain(values, rule_name):
            continue
        rule = RULES[rule_name]
        for j, value in enumerate(values):
            if value is not None and not rule.ok(value):
                bad.append((targets[j], f"payload.{key} is {describe(value)}, not {rule.want}; read as unknown"))
                values[j] = None
    if "input_tokens" in rules:
        _check_parts(targets, fields, bad)


def _plain(values: list[Any], rule: str) -> bool:
    """The common case, decided without a call per value: every value is None or plainly fits ``rule``."""
    kinds = set(map(type, values))
    if rule == "text":
        return kinds <= _TEXT
    if not kinds <= {int, _NONE} and not (rule == "nonneg" and kinds <= {int, float, _NONE}):
        return False
    numbers: list[float] = [v for v in values if v is not None]  # ints (and floats for "nonneg") by now
    if not numbers:
        return True
    low, high = min(numbers), max(numbers)
    return low >= 0 and high < MAX_COUNT


def _check_parts(targets: list[int], fields: dict[str, list[Any]], bad: list[tuple[int, str]]) -> None:
    """Parts above their totals (cached + cache-write > input, reasoning > output); bad values are None by now."""
    total, cached, written = fields["input_tokens"], fields["cached_input_tokens"], fields["cache_write_input_tokens"]
    output, reasoning = fields["output_tokens"], fields["reasoning_tokens"]
    for j, whole in enumerate(total):
        over_in = whole is not None and (cached[j] or 0) + (written[j] or 0) > whole
        over_out = output[j] is not None and reasoning[j] is not None and reasoning[j] > output[j]
        if over_in or over_out:
            usage = {k: fields[k][j] for k in TOKEN_KEYS}
            bad.extend(
                (targets[j], f"payload: {conflict}; these counts are read as unknown") for conflict in usage_conflicts(usage)
            )


def _positions(values: list[Any], wanted: str) -> list[int]:
    """Indices of ``wanted`` in ``values`` (often many: one comprehension beats a ``list.index`` call per hit)."""
    if wanted not in values:
        return []
    return [i for i, v in enumerate(values) if v == wanted]
