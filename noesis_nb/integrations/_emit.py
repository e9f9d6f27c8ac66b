"""The one row shape every integration writes, and how rows become episode events.

A row is ``(phase, payload)``. Its phase is ``integration`` (noesis_nb's extension phase for
events of other agent systems), ``reason`` or ``memory`` (Noēsis phases without a payload
minimum), or ``model`` for usage. A Noēsis verb phase (``observe``, ``act``, …) is written
only with that verb's payload minimum. Every payload carries ``event_name`` (``"<source>.<name>"``),
``kind`` (one small vocabulary across systems: ``run_started``, ``message``, ``tool_call``,
``approval_requested``, ``memory_injection``, ``custom`` …) and ``source`` (``"agui"``,
``"noeta"``, …), so the events frame can tell systems apart and compare them.
Usage rows are ``model`` events in the shape ``EpisodeContext.model_call`` writes, plus
``source``: input/output are totals, cached/cache-write/reasoning are parts, unknown is None.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .._safetext import safe_repr
from .._unstarted import to_await
from ..capture.usage import fitted_counts
from ..capture.usage import text as cut_text
from ..runtime.handreport import peer_text
from ..secrets.quoted import quoted
from ..store.phases import INTEGRATION_PHASE, missing_verb_minimum
from ..store.replayclock import iso_of, recorded_micros
from ..store.vocab import MODEL_CALL, TOKEN_FIELDS

if TYPE_CHECKING:
    from ..runtime.context import EpisodeContext

__all__ = [
    "Row",
    "PHASE",
    "RECORDED_AT",
    "DURATION_MS",
    "row",
    "usage_row",
    "emit_row",
    "emit_rows",
    "token_count",
    "recorded_at",
    "recorded_duration",
    "apply_output",
    "as_object",
]

Row = tuple[str, dict[str, Any]]
PHASE = INTEGRATION_PHASE  # the phase of an integration's own rows
_COUNTS = TOKEN_FIELDS


# when the source recorded the row (ISO 8601, UTC): an import stamps the row's event with it (``store.replayclock``)
RECORDED_AT = "recorded_at"
# what the source says the row's step lasted (ms): an import gives its event ``metrics.duration_ms``
DURATION_MS = "duration_ms"


def recorded_at(value: Any, unit: float = 1.0) -> str | None:
    """A source's time in ``unit`` seconds since the epoch (Noeta's ``occurred_at``: 1; AG-UI's ``timestamp``:
    0.001) as a row's ``recorded_at``; None when it is no such time (the row then carries the last known one)."""
    micros = recorded_micros(value, unit)
    return None if micros is None else iso_of(micros)


def recorded_duration(value: Any) -> float | None:
    """A source's duration in ms as a row's ``duration_ms`` (a finite number from 0); None otherwise."""
    return float(value) if type(value) in (int, float) and 0 <= value < 2**53 else None


_TEXT_FIELDS = frozenset(("tool", "model", "provider", "status", "draft_id"))  # every frame reads them as text


def as_text(value: Any, *, sort_keys: bool = True) -> Any:
    """A value another system sent where text belongs, as text: JSON text for a number, list or object (so a
    frame reads a name, not an unknown), ``repr`` when JSON cannot hold it; None stays None. ``sort_keys=False``
    keeps a document's own key order (a message's content parts)."""
    if value is None or isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=sort_keys, default=str)
    except (ValueError, TypeError, RecursionError):  # a circular or too deeply nested value, keys of mixed types
        return safe_repr(value, limit=2000)


def row(phase: str, source: str, name: str, kind: str, /, **fields: Any) -> Row:
    """A timeline row; fields that are None are left out (absent means "not reported"). Fields every frame
    reads as text (``tool``, ``model``, ``provider``, ``status``, ``draft_id``) are made text."""
    payload: dict[str, Any] = {"event_name": f"{source}.{as_text(name)}", "kind": kind}
    payload.update((k, as_text(v) if k in _TEXT_FIELDS else v) for k, v in fields.items() if v is not None)
    payload["source"] = source
    return phase, payload


def as_object(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object (a dict), else ``{}``: another system's nested field, read defensively."""
    return value if isinstance(value, dict) else {}


def token_count(value: Any) -> int | None:
    """A token count as an int from 0 to 2**53 (what every view reads as one), or None when unknown (never a made-up 0)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return int(value) if isinstance(value, int) and 0 <= value < 2**53 else None


def usage_row(
    source: str,
    *,
    model: str | None,
    provider: str | None = None,
    input_tokens: Any = None,
    output_tokens: Any = None,
    cached_input_tokens: Any = None,
    cache_write_input_tokens: Any = None,
    reasoning_tokens: Any = None,
    latency_ms: Any = None,
    cost_usd: Any = None,
    total_tokens: Any = None,
    **extra: Any,
) -> Row:
    """A ``model`` row (``event_name`` ``model.call``) following the parts-of-totals rule.

    A count the system did not report stays None. A part larger than its total follows the rule captured
    calls follow (``capture.usage.fitted_counts``): the total kept, the part unknown, said in ``usage_warning``
    (written as given, it made the frames read the total unknown too, and the call's cost). ``total_tokens`` is
    input + output (AG-UI's rule, the one every count here follows): with one of them unknown, it
    gives that one; alone, it is kept and both stay unknown (so is the cost); disagreeing with
    them, the two are kept and the disagreement is flagged.
    """
    counts = dict(
        zip(
            _COUNTS,
            map(token_count, (input_tokens, output_tokens, cached_input_tokens, cache_write_input_tokens, reasoning_tokens)),
        )
    )
    warnings: list[str] = []
    total = _total(total_tokens, counts, warnings)
    given = (input_tokens, output_tokens, cached_input_tokens, cache_write_input_tokens, reasoning_tokens)
    if refused := [k for k, v in zip(_COUNTS, given) if v is not None and counts[k] is None]:
        # a count that is none (10**33, -5, text) leaves the call's cost unknown: the source's own figure was
        # worked from it, so it is kept in the row's raw data only, never a $0 next to unknown tokens
        warnings.append(f"{', '.join(refused)} reported as no token count; left out, and the reported cost with them")
        cost_usd = None
    payload: dict[str, Any] = {
        "event_name": MODEL_CALL,
        "kind": "usage",
        "model": peer_text(as_text(model)) or None,
        "provider": peer_text(as_text(provider)),
        **counts,
        **({} if total is None else {"total_tokens": total}),
        "latency_ms": _amount(latency_ms, "latency_ms", warnings),
        "cost_usd": _amount(cost_usd, "cost_usd", warnings),
    }
    parts = sum(counts[k] or 0 for k in ("cached_input_tokens", "cache_write_input_tokens"))
    if counts["input_tokens"] is not None and parts > counts["input_tokens"]:
        warnings.append(f"cached + cache-write input ({parts}) exceeds input_tokens ({counts['input_tokens']})")
    output, reasoning = counts["output_tokens"], counts["reasoning_tokens"]
    if output is not None and reasoning is not None and reasoning > output:
        warnings.append(f"reasoning_tokens ({reasoning}) exceeds output_tokens ({output})")
    # the rule captured calls follow: the totals kept, the part that does not fit them unknown
    fitted = fitted_counts(*(counts[k] for k in _COUNTS), lone_write=True)
    if lost := [k for k in _COUNTS if counts[k] is not None and fitted[k] is None]:
        warnings.append(f"{' and '.join(lost)} left unknown, the totals kept")
        payload.update((k, fitted[k]) for k in _COUNTS)
    if warnings:  # every inconsistency, joined: a later one must not hide an earlier one
        payload["usage_warning"] = "; ".join(warnings)
    payload.update((k, v) for k, v in extra.items() if v is not None)
    if "request_id" in payload:  # a peer's control character is shown escaped: ``ctx.emit`` refuses it in these names
        payload["request_id"] = peer_text(payload["request_id"])
    payload["source"] = source
    return "model", payload


def _total(value: Any, counts: dict[str, int | None], warnings: list[str]) -> int | None:
    """A reported ``total_tokens`` checked against input + output (``usage_row``); fills the one of them unknown."""
    total = token_count(value)
    if value is not None and total is None:
        warnings.append(f"total_tokens reported as {safe_repr(value, limit=60)}, not a token count; left out")
    if total is None:
        return None
    inp, out = counts["input_tokens"], counts["output_tokens"]
    if inp is None and out is None:
        warnings.append(f"only total_tokens ({total}) reported: input and output tokens unknown, so is the cost")
    elif inp is not None and out is not None:
        if inp + out != total:
            warnings.append(f"total_tokens ({total}) is not input_tokens + output_tokens ({inp + out}); both kept")
    else:  # one of them known: the other is the rest of the total
        known, missing = ("input_tokens", "output_tokens") if inp is not None else ("output_tokens", "input_tokens")
        part = counts[known] or 0
        if total >= part:
            counts[missing] = total - part
        else:
            warnings.append(f"total_tokens ({total}) is less than {known} ({part}); {missing} left unknown")
    return total


def _amount(value: Any, name: str, warnings: list[str]) -> Any:
    """A latency or cost: a finite number from 0 to 2**53 as reported, None when unknown; anything else is left
    out and said in ``warnings`` (a frame would read it as unknown anyway, without saying what was sent)."""
    if value is None or (type(value) in (int, float) and 0 <= value < 2**53):  # NaN fails the comparison
        return value
    warnings.append(f"{name} reported as {safe_repr(value, limit=60)}, not a number from 0 up; left out")
    return None


def emit_row(ctx: EpisodeContext, item: Row) -> str:
    """Append one row to the episode; usage rows go out as ``model:<provider>`` like ``ctx.model_call``.

    A row in a Noēsis verb phase without that verb's payload minimum is refused (Noēsis would not
    write the line): such rows belong in the ``integration`` phase.
    """
    phase, payload = item
    missing = missing_verb_minimum(phase, payload) if isinstance(payload, dict) else []
    if missing:
        raise ValueError(
            f"row {payload.get('event_name') or phase!r} uses the Noēsis verb phase {quoted(phase)} without its payload "
            f"minimum {missing}; write it in the {quoted(INTEGRATION_PHASE)} phase instead"
        )
    if phase == "model":
        # the provider as the payload stores it (cut past 256 characters): the id stays within ``MAX_AGENT_ID``
        provider = payload.get("provider")
        return ctx.emit(
            "model", payload, agent_id=f"model:{cut_text(provider) if isinstance(provider, str) else provider or 'unknown'}"
        )
    return ctx.emit(phase, payload)


def emit_rows(ctx: EpisodeContext, rows: Iterable[Row]) -> None:
    for item in rows:
        emit_row(ctx, item)


async def apply_output(output: Callable[[Any], Any] | None, value: Any) -> Any:
    """The adapter's result: ``output(value)`` (awaited when it returns an awaitable), else ``value``."""
    if output is None:
        return value
    result = output(value)
    return await result if to_await(result) else result
