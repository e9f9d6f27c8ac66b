"""Noeta envelopes (``envelope_to_dict`` dicts) → timeline rows. Pure: no ``noeta`` import.

One row per envelope (``event_name`` ``noeta.<type>``), with the envelope's identity
(``seq, task_id, actor, origin, trace_id, causation_id``), its ``occurred_at`` as ``recorded_at`` (the time an
import stamps its event with) and its payload under ``data``.
``LLMRequestFinished`` also gives a usage row: ``input = uncached + cache_read + cache_write``
(Noeta's ``Usage.input``), ``cached = cache_read``, ``cache_write``, ``output`` (reasoning
included), ``reasoning``, and the runtime's ``cost_usd`` kept as the reported cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...errors import NoesisNbError
from ...secrets.quoted import quoted
from .._emit import PHASE, Row, as_object, recorded_at, row, token_count, usage_row

__all__ = ["NoetaEnvelopeError", "NoetaFolder", "noeta_rows", "noeta_usage"]

_EXPECTED = "import_noeta/noeta_rows take a list of Noeta envelopes: envelope_to_dict(envelope) dicts (or the envelopes)"


class NoetaEnvelopeError(NoesisNbError, ValueError, TypeError):
    """What was given as Noeta envelopes is none: the message names it and what is expected (nothing is imported)."""


def _given(value: Any) -> str:
    """What ``value`` is, in a few words (its type and a short repr), redacted before it is cut: a cut through a
    key would leave its head, which no detector recognises once its tail is gone."""
    return f"a {type(value).__name__} ({quoted(value, 60)})"


def _one_envelope(value: Any) -> str:
    return ", which looks like one envelope: pass a list of them" if isinstance(value, dict) and "type" in value else ""


_KINDS = {
    "TaskCreated": "run_started",
    "TaskStarted": "run_started",
    "TaskCompleted": "run_finished",
    "TaskFailed": "run_error",
    "TaskSuspended": "suspended",
    "TaskWoken": "resumed",
    "TaskCancelled": "run_cancelled",
    "ToolCallStarted": "tool_call",
    "ToolResultRecorded": "tool_result",
    "ToolCallFinished": "tool_finished",
    "ToolCallApprovalRequested": "approval_requested",
    "ToolCallApprovalResolved": "approval_resolved",
    "ToolCallDenied": "tool_denied",
    "LLMRequestStarted": "model_call_started",
    "LLMResponseRecorded": "model_response",
    "LLMRequestFinished": "model_call_finished",
    "MessagesAppended": "messages",
    "TaskSnapshot": "state",
}
_SHOWN = (
    "call_id",
    "tool_name",
    "arguments",
    "summary",
    "success",
    "approved",
    "reason",
    "resolver",
    "answer",
    "goal",
    "agent_name",
    "model",
    "stop_reason",
    "detail",
    "retryable",
)


def noeta_usage(
    usage: Any, *, model: str | None, provider: str | None = None, cost_usd: Any = None, latency_ms: Any = None, **extra: Any
) -> Row:
    """A usage row from a Noeta ``Usage`` dict (fields it does not report stay None).

    The input total is the sum of its three parts only when each is a count (``token_count``): a part given
    as a JSON boolean, a negative or a fraction makes the total unknown, never ``True + True = 2``."""
    usage = usage if isinstance(usage, dict) else {}
    parts = [token_count(usage.get(k)) for k in ("uncached", "cache_read", "cache_write")]
    total = sum(p for p in parts if p is not None) if None not in parts else None
    if any(usage.get(k) is not None and p is None for k, p in zip(("uncached", "cache_read", "cache_write"), parts)):
        cost_usd = None  # worked from a part that is no count (10**33, -5): unknown, as the input total is
    return usage_row(
        "noeta",
        model=model,
        provider=provider,
        input_tokens=total,
        output_tokens=usage.get("output"),
        cached_input_tokens=usage.get("cache_read"),
        cache_write_input_tokens=usage.get("cache_write"),
        reasoning_tokens=usage.get("reasoning_tokens"),
        cost_usd=cost_usd,
        latency_ms=latency_ms,
        **extra,
    )


class NoetaFolder:
    """Feed envelope dicts in commit order; remembers each LLM call's model for its usage row.

    An envelope seen before (the same ``id``, or without one the same ``task_id`` and ``seq``: a log saved
    twice, or read twice and joined) is one row marked ``repeated`` (``repeated_differs`` when its content
    is not the earlier one's) and nothing more: its usage is not counted again. One whose ``seq`` is below
    an earlier one of its task is marked ``out_of_order`` and read as usual. :meth:`expect` tells it the
    whole log first (a saved one), so a call finished before its request is read is still given its model.
    """

    def __init__(self) -> None:
        self.models: dict[str, str | None] = {}  # repr(call_id) as sent (any JSON value) -> the model its request named
        self.provider: str | None = None
        self._later_models: dict[str, str | None] = {}  # the same, from the whole log (``expect``)
        self._later_provider: str | None = None
        self.approvals: dict[str, dict[str, Any]] = {}  # call_id → ToolCallApprovalRequested payload
        self.failure: str | None = None
        self._seen: dict[tuple[Any, ...], dict[str, Any]] = {}  # identity -> the first envelope with it
        self._last_seq: dict[str, int] = {}  # repr(task_id) -> the highest seq read

    def expect(self, envelopes: Iterable[dict[str, Any]]) -> None:
        """Learn each call's model (its first ``LLMRequestStarted``) and the first provider bound from a whole log:
        a usage row whose request comes later in it, or not before it, is still given its model and so priced."""
        for envelope in envelopes:
            data = as_object(envelope.get("payload"))
            if envelope.get("type") == "LLMRequestStarted" and data.get("call_id"):
                self._later_models.setdefault(repr(data["call_id"]), data.get("model"))
            elif envelope.get("type") == "ModelBound" and self._later_provider is None:
                self._later_provider = data.get("provider") or None

    def feed(self, envelope: dict[str, Any], *, out_of_order: bool | None = None) -> list[Row]:
        """The rows of one envelope; ``out_of_order`` says it was saved out of its ``seq`` order (a caller that
        ordered the log by ``seq`` knows; otherwise it is judged here from the order fed)."""
        kind = str(envelope.get("type") or "?")
        data = as_object(envelope.get("payload"))
        shown = {k: data[k] for k in _SHOWN if data.get(k) is not None}
        earlier, fed_late = self._place(envelope)
        out_of_order = fed_late if out_of_order is None else out_of_order
        if earlier is not None:
            shown = {"repeated": True, "repeated_differs": True if earlier != envelope else None}
        elif out_of_order:
            shown["out_of_order"] = True
        if earlier is not None:
            pass  # read already: its model, approval, failure and usage are known
        elif kind == "ModelBound":
            self.provider = data.get("provider") or self.provider
        elif kind == "LLMRequestStarted" and data.get("call_id"):
            self.models[repr(data["call_id"])] = data.get("model")
        elif kind == "ToolCallApprovalRequested":
            self.approvals[str(data.get("call_id"))] = data
        elif kind == "TaskFailed":
            detail = data.get("detail")
            self.failure = str(data.get("reason") or "task failed") + (f": {detail}" if detail else "")
            shown["error"] = self.failure
        elif kind == "ToolResultRecorded" and data.get("success") is False:
            shown["error"] = data.get("summary") or "tool failed"
        at = recorded_at(envelope.get("occurred_at"))  # epoch seconds: the event's timestamp once imported
        rows = [
            row(
                PHASE,
                "noeta",
                kind,
                _KINDS.get(kind, "custom"),
                recorded_at=at,
                seq=envelope.get("seq"),
                task_id=envelope.get("task_id"),
                actor=envelope.get("actor"),
                origin=envelope.get("origin"),
                trace_id=envelope.get("trace_id"),
                causation_id=envelope.get("causation_id"),
                **shown,
                data=data,
            )
        ]
        if kind == "LLMRequestFinished" and earlier is None:
            call = repr(data.get("call_id"))
            rows.append(
                noeta_usage(
                    data.get("usage"),
                    model=self.models[call] if call in self.models else self._later_models.get(call),
                    provider=self.provider or self._later_provider,
                    cost_usd=data.get("cost_usd"),
                    latency_ms=data.get("latency_ms"),
                    call_id=data.get("call_id"),
                    task_id=envelope.get("task_id"),
                    success=data.get("success"),
                    recorded_at=at,
                )
            )
        return rows

    def _place(self, envelope: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
        """``(the earlier envelope with this one's identity or None, whether its seq is below its task's highest)``."""
        seq, task = envelope.get("seq"), repr(envelope.get("task_id"))
        seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        ident = envelope.get("id")
        if isinstance(ident, str) and ident:
            key: tuple[Any, ...] | None = ("id", ident)
        else:
            key = ("seq", task, seq) if seq is not None else None
        if key is not None:
            if key in self._seen:  # (a log joined to itself repeats the very same dicts: identity is by key, not object)
                return self._seen[key], False
            self._seen[key] = envelope
        if seq is None:
            return None, False
        highest = self._last_seq.get(task)
        self._last_seq[task] = seq if highest is None else max(highest, seq)
        return None, highest is not None and seq < highest


def noeta_rows(envelopes: Iterable[Any]) -> list[Row]:
    """Rows for saved envelopes: dicts from ``envelope_to_dict`` (or envelopes, converted if noeta is installed).

    Anything else (one envelope instead of a list, text, a number, an item that is no envelope) is a
    ``NoetaEnvelopeError`` naming what was given, before any row is made."""
    if isinstance(envelopes, (str, bytes, bytearray, dict)) or not isinstance(envelopes, Iterable):
        raise NoetaEnvelopeError(f"{_given(envelopes)}{_one_envelope(envelopes)}; {_EXPECTED}")
    given: list[dict[str, Any]] = []
    for number, envelope in enumerate(envelopes, 1):
        if not isinstance(envelope, dict):
            if not hasattr(envelope, "payload"):
                raise NoetaEnvelopeError(f"envelope #{number} is {_given(envelope)}; {_EXPECTED}")
            from noeta.sdk import envelope_to_dict

            envelope = envelope_to_dict(envelope)
        if "type" not in envelope:
            keys = ", ".join(quoted(key, 40) for key in list(envelope)[:6]) or "none"
            raise NoetaEnvelopeError(f"envelope #{number} is a dict without 'type' (keys: {keys}); {_EXPECTED}")
        given.append(envelope)
    folder, rows = NoetaFolder(), []
    ordered = _in_seq_order(given)
    folder.expect(envelope for envelope, _ in ordered)
    for envelope, late in ordered:
        rows += folder.feed(envelope, out_of_order=late)
    return rows


def _seq(envelope: dict[str, Any]) -> int | None:
    seq = envelope.get("seq")
    return seq if type(seq) is int else None  # a bool is no seq


def _in_seq_order(envelopes: list[dict[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
    """``(envelope, saved out of order)`` pairs, each task's envelopes in ``seq`` order (Noeta's commit order).

    A log saved or joined out of order is read as it was committed: a call's finish after its start, the task's
    end last. Each task's envelopes take the places its envelopes held (tasks stay interleaved as saved), in seq
    order, equal seqs (a repeat) in their saved order; an envelope without a whole-number ``seq`` stays where it is.
    One whose seq is below an earlier one of its task is marked out of order, as :class:`NoetaFolder` marks it.
    """
    places: dict[str, list[int]] = {}
    highest: dict[str, int] = {}
    late = [False] * len(envelopes)
    for index, envelope in enumerate(envelopes):
        seq = _seq(envelope)
        if seq is None:
            continue
        task = repr(envelope.get("task_id"))
        places.setdefault(task, []).append(index)
        late[index] = task in highest and seq < highest[task]
        highest[task] = max(seq, highest.get(task, seq))
    order = list(range(len(envelopes)))
    for indices in places.values():
        for place, index in zip(indices, sorted(indices, key=lambda i: _seq(envelopes[i]) or 0)):
            order[place] = index
    return [(envelopes[index], late[index]) for index in order]
