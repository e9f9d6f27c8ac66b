"""Which episode a model call belongs to: one context variable, set while an episode's adapter runs.

``CaptureScope`` is what capture writes through. The episode sets it (``activate``) around its
adapter call; asyncio tasks and ``run_in_thread`` copy the context, so the adapter's own tasks and
a sync adapter's thread see it, and two concurrent episodes each see their own. Code outside an
episode sees None and nothing is recorded.

Each call is written once. The rules (README, "Real model calls"):

- an SDK call is one event however many HTTP attempts its retries took (capture wraps the SDK's
  retry loop, not a single attempt);
- an OpenTelemetry span started while a captured SDK call runs (the SDK's own call span, an HTTP
  client span) is part of that call and writes nothing;
- an OpenTelemetry GenAI span that was current when the SDK call began (an instrumentation's span
  around it) is covered by that call and writes nothing; a span whose ``gen_ai.response.id`` a
  captured call already recorded writes nothing either;
- an id joins records of different sources (an SDK capture, a span, a hand report) whose models are one model's
  (``same_models``: case, a provider prefix, a dated name's prefix aside), whatever their counts say (the SDK's
  are kept); two records of one source are two calls. A blank or placeholder id (``" "``, ``"null"``, ``"0"``:
  ``real_id``) is no id, and an id already seen on two written calls (a server that answers every call with one
  constant id) is no evidence: records then join only when their counts agree too (``agree``); one
  ``CallIdShared`` warning says when an id is first seen on a second call;
- ``ctx.model_call(...)`` for a call capture already wrote returns that event's id and writes
  nothing: "the same call" is one naming the captured ``request_id`` (or response id) by the rule above, or, naming
  none, one with the same input and output token counts (the input total, or the uncached part
  Anthropic's ``usage.input_tokens`` reports) and one model by the same rule (``same_models``; named on both
  sides then) as a captured call not matched yet. Each captured call matches one manual call at most. A stream still being
  read matches the same way (its request id, or the counts it has seen): it is written then;
- a captured call whose input or output count is unknown (a stream without its usage chunk, one
  closed early) cannot match by counts, so the adapter's own report of it, with estimated counts
  and no request id, is that call when it comes right after it: the next ``ctx.model_call`` of
  the task (or thread) that ended the call (for a stream still open: that
  reads it, its last chunk pulled there; the one that made it before any chunk), naming the
  same model, no other call captured in the episode since it started, its known counts equal to
  the report's, and no error. Still open, the stream is written then with the report's counts for
  those it had not seen (``ModelCall.reported``); written already, the report writes nothing and
  returns the captured event's id (the event stays as the provider left it: the estimates are not
  the provider's counts). Any other report, a report from another task, or a captured call begun
  in between ends that chance: never a different call.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import _forks
from .._envvars import CAPTURE_ENV, capture_from_env
from .._safetext import error_text
from ..errors import EpisodeStopping, InvalidOptionError
from ..secrets import SCAN_MARGIN, shown_cut
from ..secrets.quoted import quoted
from ..store.facts import undated
from . import dropped
from .late import left_running

#: why a background response not seen to end in the episode is written without its usage (``calls.ModelCall._park``)
LEFT_IN_BACKGROUND = (
    "the response was still running in the background when the episode's adapter ended (poll it with "
    "responses.retrieve, or stream it to its end with responses.retrieve(id, stream=True), inside the episode to "
    "record its usage): its usage is unknown"
)
#: why a call a cancelled episode's thread still waited on is written without its answer
CUT_OFF = "the episode ended while the call was in flight (its answer is not recorded): its usage is unknown"

__all__ = [
    "CaptureScope",
    "current",
    "scoped",
    "resolve_option",
    "claim_manual",
    "ENV",
    "OPEN_SPANS",
    "IN_SDK_CALL",
    "SpanKey",
    "span_key",
    "span_ref",
    "real_id",
    "same_models",
    "joins",
    "CallIdShared",
]

ENV = CAPTURE_ENV
_CURRENT: contextvars.ContextVar[CaptureScope | None] = contextvars.ContextVar("noesis_nb_capture", default=None)
#: True while a captured SDK call runs: spans started inside it (the SDK's own call span, HTTP spans) are part of it
IN_SDK_CALL: contextvars.ContextVar[bool] = contextvars.ContextVar("noesis_nb_in_sdk_call", default=False)

#: a span's identity: (trace id, span id). A span id is unique only within its trace (an id generator that counts,
#: as tests and replays use, gives each trace the same ones), so two episodes' spans may share it
SpanKey = tuple[int, int]

#: GenAI spans open right now (``SpanKey`` → the scope current when each started); ``spans`` fills it
OPEN_SPANS: dict[SpanKey, CaptureScope] = {}


def span_key(context: Any) -> SpanKey:
    """The ``SpanKey`` of an OpenTelemetry ``SpanContext``."""
    return (int(context.trace_id), int(context.span_id))


def span_ref(key: SpanKey) -> str:
    """A span's id as a call is known by it (``CaptureScope.record``'s ``("span", …)`` key): trace and span in hex."""
    return f"{key[0]:032x}:{key[1]:016x}"


class CallIdShared(UserWarning):
    """One request or response id was seen on two different model calls of an episode: both are written, and the id
    then joins records only when their counts agree too (a server that gives every answer one id tells no call apart)."""


#: text a server or an adapter puts where it has no id: an id that is one of these is no id
_PLACEHOLDERS = frozenset({"null", "none", "nil", "undefined", "unknown", "n/a", "na"})
_PLACEHOLDER_LEN = max(map(len, _PLACEHOLDERS))


def real_id(value: Any) -> str | None:
    """``value`` when it can tell one call from another: None for a blank or placeholder (``" "``, ``"null"``,
    ``"0"``, all zeros and dashes: a nil UUID), which many calls may carry."""
    if not isinstance(value, str):
        return None
    bare = value.strip()
    return None if not bare.strip("0-") or bare.lower() in _PLACEHOLDERS else value


#: a ``provider:`` prefix (``anthropic:claude-sonnet-4-0``, as pydantic-ai and others name a model): only a name
#: that is no model family's, since Ollama's ``mistral:7b``, ``llama3.1:latest`` and ``qwen2:7b`` are a model and its
#: tag, and Bedrock's ``anthropic.claude-3-5-sonnet-20241022-v2:0`` and OpenRouter's ``…-instruct:free`` end in one
_PROVIDERS = frozenset(
    {
        "openai",
        "anthropic",
        "azure",
        "azure_ai",
        "google",
        "google-gla",
        "google-vertex",
        "gemini",
        "vertex",
        "vertexai",
        "vertex_ai",
        "bedrock",
        "groq",
        "cohere",
        "openrouter",
        "together",
        "together_ai",
        "fireworks",
        "fireworks_ai",
        "xai",
        "deepseek",
        "huggingface",
        "cerebras",
        "perplexity",
        "heroku",
        "github",
        "litellm",
    }
)


def _bare_model(name: str) -> str:
    """A model name without case or a provider prefix (``openai/``, ``azure/``, ``anthropic:``; ``_PROVIDERS``).
    A ``:tag`` is the name's own (``llama3.1:latest`` is not ``llama3.1:8b``, ``…-v2:0`` not ``…-v1:0``)."""
    name = name.rpartition("/")[2].lower()
    provider, colon, rest = name.partition(":")
    return rest if colon and rest and provider in _PROVIDERS else name


def _one_model(a: str, b: str) -> bool:
    """Two bare names are one model's: equal, or one the other with a date or version after it (``undated``)."""
    return a == b or undated(a) == b or undated(b) == a


def same_models(ours: tuple[Any, ...], theirs: tuple[Any, ...], *, unknown_agrees: bool) -> bool:
    """Two records' models (each its given and requested one) may be one model's: two names equal but for case and a
    provider prefix, or one the other's dated name (``gpt-4o-mini`` of ``gpt-4o-mini-2024-07-18``, not of
    ``gpt-4o-mini-audio``). The one rule for every join, with an id or without.

    ``unknown_agrees``: a record naming no model contradicts nothing. True where an id joins the records (the id is
    the evidence; a model can only contradict it, and an alias, one name the other's start before a ``-``, does not:
    ``gpt-4-turbo`` reported for a ``gpt-4-turbo-preview`` call of that id); False for a report naming no id, where
    the model and the token counts are all the evidence: two calls of equal counts, one of which names no model, are
    not one call.

    ``azure/<deployment>``: a deployment name is not a model name. It is the model an Azure client is given (the
    call's requested model), so it matches that; the model the deployment runs matches the response's model field.
    """
    mine = [_bare_model(m) for m in ours if isinstance(m, str) and m]
    other = [_bare_model(m) for m in theirs if isinstance(m, str) and m]
    if not mine or not other:
        return unknown_agrees
    if unknown_agrees:  # an id joins them: an alias one name is the other's start of contradicts nothing
        return any(_one_model(a, b) or _alias(a, b) for a in mine for b in other)
    return any(_one_model(a, b) for a in mine for b in other)


def _alias(a: str, b: str) -> bool:
    """One bare name is the other's start before a ``-`` (``gpt-4-turbo`` of ``gpt-4-turbo-preview``,
    ``claude-3-5-sonnet`` of ``claude-3-5-sonnet-latest``): what a person types for the model an id names."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long.startswith(short) and long[len(short) : len(short) + 1] == "-"


def agree(model: Any, requested: Any, input_tokens: Any, output_tokens: Any, row: dict[str, Any]) -> bool:
    """A record sharing an id many calls carry with a written call's ``row`` may be that call: neither its model
    (``same_models``) nor its counts contradict the row's (an unknown count contradicts nothing; the input may be
    the total or the uncached part Anthropic reports)."""
    total, out = row["input_total"], row["output_tokens"]
    if input_tokens is not None and total is not None and input_tokens not in (total, row["input_uncached"]):
        return False
    if output_tokens is not None and out is not None and output_tokens != out:
        return False
    return same_models((model, requested), (row["model"], row["requested_model"]), unknown_agrees=True)


def joins(model: Any, requested: Any, input_tokens: Any, output_tokens: Any, row: dict[str, Any], calls: int) -> bool:
    """A record of another source naming an id of the written call ``row`` is that call: when no other call is known
    to carry the id (``calls``: the written calls that do, besides the record), its models are one (``same_models``),
    whatever the counts; an id seen on more calls is no evidence, and the counts must agree too (``agree``)."""
    if calls > 1:
        return agree(model, requested, input_tokens, output_tokens, row)
    return same_models((model, requested), (row["model"], row["requested_model"]), unknown_agrees=True)


#: the ``agent_id`` of each provider's model calls
_AGENTS = {"openai": "model:openai", "anthropic": "model:anthropic"}

Emit = Callable[[dict[str, Any], str], str]  # (payload, agent_id) -> event id


@dataclass
class CaptureScope:
    """One episode's capture: writes ``model.call`` events through ``emit`` and keeps each call once."""

    episode_id: str
    emit: Emit
    seen: set[tuple[str, str]] = field(default_factory=set)  # ("response" | "request" | "span", id) already written
    covered_spans: set[SpanKey] = field(default_factory=set)  # GenAI spans an SDK call began inside
    # one row per call written: a dict of plain values only, which the garbage collector never tracks (a
    # long episode keeps thousands; tracked objects that live on make every full collection of the process slower)
    captured: list[dict[str, Any]] = field(default_factory=list)
    open_calls: set[Any] = field(default_factory=set)  # streams not finished yet (finished when the adapter returns)
    sent_calls: set[Any] = field(default_factory=set)  # calls sent and not written yet (a sync adapter's, when it is cut off)
    background: dict[str, Any] = field(default_factory=dict)  # response id -> its background call, not ended yet
    open_spans: set[SpanKey] = field(default_factory=set)  # GenAI spans started in the episode and not ended yet
    # told when a model call starts (``model_started(provider, model) -> token``, which may raise to refuse it:
    # a draining episode) and when it has been written (``model_ended(token, payload, event_id)``)
    watcher: Any = None
    # told the credentials of each SDK client that calls (its ``api_key``, ``auth_token``): the run holds none of them
    learn: Any = None
    # the keys ``learn`` was told: each client's (``api_key``, ``auth_token``), its text or None
    keys_told: set[tuple[str | None, str | None]] = field(default_factory=set)
    closed: bool = False
    id_calls: dict[str, int] = field(default_factory=dict)  # real id -> how many written calls carry it
    calls_started: int = 0  # SDK calls admitted so far: tells whether a call began after another one
    # the last call written with unknown counts, which the next report of its task may be: (its task or thread,
    # as a weak reference; ``calls_started`` when it began; its row); None when there is none (``claim_unknown``)
    fillable: tuple[Any, int, dict[str, Any]] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    generation: int = field(default_factory=lambda: _forks.generation)  # a forked child of its process is outside it

    def record(
        self, body: dict[str, Any], keys: tuple[tuple[str, str], ...] = (), *, known: bool = False, began: int = 0
    ) -> str | None:
        """Write one model call (``body``: its payload, ``event_name`` first); None when a key says it is written already.

        ``known``: the call is certainly a new one (one SDK ``request`` is one call, whatever ids a
        server reuses); its keys are only noted, for the spans that come later. ``began``: ``calls_started`` when
        an SDK call began (0 for a span), making a call with unknown counts the one its task's next report may
        fill (``claim_unknown``). Never raises:
        capture must not break the program it watches (an episode that ended refuses events).
        A forked child (a stream the parent opened, read in the child) writes nothing.
        """
        if self.generation != _forks.generation:
            return None
        with self.lock:
            if not known and any(k in self.seen for k in keys) and self._repeats(body, keys):
                return None
            self.seen.update(keys)
            shared = self._count_ids(keys)
        if shared:  # said outside the lock, once per id (``_count_ids`` decides under it)
            self.shared_id(shared)
        provider: Any = body.get("capture") or body.get("provider")  # an SDK call's agent names its SDK, not its endpoint
        try:
            event_id = self.emit(body, _AGENTS.get(provider) or f"model:{provider or 'unknown'}")
        except Exception:
            return None
        get = body.get
        total, output = get("input_tokens"), get("output_tokens")
        row = {  # what ``claim`` compares a manual report with: the ids the call is known by, its model and counts
            "event_id": event_id,
            "model": get("model"),
            "requested_model": get("requested_model"),
            "input_total": total,
            "input_uncached": None
            if total is None
            else total - (get("cached_input_tokens") or 0) - (get("cache_write_input_tokens") or 0),
            "output_tokens": output,
            "id_1": get("request_id"),
            "id_2": get("response_id"),
            "claimed": False,  # a hand report was joined to it
            "spanned": False,  # a span was joined to it
            "source": "sdk" if known else "span",
        }
        owner = owner_ref() if began and (total is None or output is None) and "error" not in body else None
        with self.lock:
            self.captured.append(row)
            self.fillable = None if owner is None else (owner, began, row)
        return event_id

    def _repeats(self, body: dict[str, Any], keys: tuple[tuple[str, str], ...]) -> bool:
        """A record (a span) some of whose ``keys`` a written call is known by repeats that call: the same span, or
        a real id (``real_id``) of an SDK call no span was joined to yet, that ``joins`` it (marked joined). Called
        holding the lock."""
        get = body.get
        for kind, value in keys:
            if (kind, value) not in self.seen:
                continue
            if kind == "span":
                return True
            if real_id(value) is None:
                continue
            calls = self.id_calls.get(value, 0)
            for row in reversed(self.captured):
                if row["source"] == "span" or row["spanned"] or value not in (row["id_1"], row["id_2"]):
                    continue  # a span is never another span's call: each span is one
                if joins(get("model"), get("requested_model"), get("input_tokens"), get("output_tokens"), row, calls):
                    row["spanned"] = True
                    return True
        return False

    def _count_ids(self, keys: tuple[tuple[str, str], ...]) -> list[str]:
        """Count one more written call carrying each real id (``real_id``, inline: on every call's path) of ``keys``:
        the ids now seen on a second call, which ``shared_id`` is to say (once each: only this count reaches 2).
        Called holding the lock."""
        shared: list[str] = []
        done = ""  # a call whose request and response ids are one text carries it once (two ids at most are counted)
        counted = self.id_calls
        for kind, value in keys:
            if kind == "span" or type(value) is not str and not isinstance(value, str) or value == done:
                continue
            done = value
            bare = value.strip()
            # (a placeholder is at most 9 characters: a provider's id, longer, is not lowered to be looked up)
            if not bare.strip("0-") or (len(bare) <= _PLACEHOLDER_LEN and bare.lower() in _PLACEHOLDERS):
                continue
            calls = counted[value] = counted.get(value, 0) + 1
            if calls == 2:
                shared.append(value)
        return shared

    def count_report(self, request_id: str | None) -> None:
        """A hand report naming ``request_id`` that is no captured call's is written: it is one more call with it."""
        if request_id is None:
            return
        with self.lock:
            shared = self._count_ids((("request", request_id),))
        if shared:
            self.shared_id(shared)

    def shared_id(self, values: list[str]) -> None:
        """Say that the ids ``values`` were each seen on two different model calls (``CallIdShared``); ``_count_ids``
        says when, once per id."""
        named = ", ".join(repr(shown_cut(value, 120)) for value in values)
        try:  # the id as the run keeps it (a provider's random id is no key): only secrets in it redacted
            warnings.warn(
                f"the id{'s' if len(values) > 1 else ''} {named} {'were' if len(values) > 1 else 'was'} seen on 2 "
                "different model calls (another model, or another call of one source): each is recorded; records "
                "naming such an id are joined only when their token counts agree too",
                CallIdShared,
                stacklevel=2,
            )
        except Exception:  # warnings turned into errors: capture never breaks the program it watches
            pass

    def claim(self, model: str, input_tokens: int | None, output_tokens: int | None, request_id: str | None) -> str | None:
        """The captured event a manual ``ctx.model_call`` repeats (marked matched), or None (see the module rules)."""
        with self.lock:
            calls = 0 if request_id is None else self.id_calls.get(request_id, 0)
            for call in reversed(self.captured):
                if call["claimed"]:
                    continue
                if request_id is not None:
                    same = request_id in (call["id_1"], call["id_2"]) and joins(
                        model, None, input_tokens, output_tokens, call, calls
                    )
                else:
                    total, out = call["input_total"], call["output_tokens"]
                    same = (
                        total is not None
                        and out is not None
                        and counts_agree(input_tokens, output_tokens, total, call["input_uncached"], out)
                        and same_models((model,), (call["model"], call["requested_model"]), unknown_agrees=False)
                    )
                if same:
                    call["claimed"] = True
                    return str(call["event_id"])
        return None

    def claim_unknown(self, model: str, input_tokens: int | None, output_tokens: int | None, may: bool) -> str | None:
        """The captured call with unknown counts that a report made right after it repeats (marked matched), or None.

        Told of every report; one from the call's task ends the chance either way. ``may``: the report names no
        request id and repeats no other captured call, so it may be this one."""
        with self.lock:
            fill = self.fillable
            if fill is None:
                return None
            owner, began, call = fill
            if owner() is not current_owner():
                return None  # another task's report: not the one right after this call
            self.fillable = None
            if not may:
                return None
            same = (
                began == self.calls_started
                and not call["claimed"]
                and counts_agree(input_tokens, output_tokens, call["input_total"], call["input_uncached"], call["output_tokens"])
                and same_models((model,), (call["model"], call["requested_model"]), unknown_agrees=False)
            )
            if not same:
                return None
            call["claimed"] = True
            return str(call["event_id"])

    def mark_claimed(self, event_id: str) -> None:
        """The captured event ``event_id`` is the one a manual ``ctx.model_call`` repeats."""
        with self.lock:
            for call in reversed(self.captured):
                if call["event_id"] == event_id:
                    call["claimed"] = True
                    return

    def finish_open(self, ended: BaseException | None = None) -> None:
        """The adapter's block ended: streams still open are recorded with what is known, then nothing more is written.

        ``ended``: what ended the block early (a cancellation, the adapter's error), None when the adapter returned;
        each open stream's ``abandoned_reason`` says which (``ended_reason``).

        Spans still open are forgotten: one never ended would otherwise keep the episode alive in ``OPEN_SPANS``.
        A forked child leaves them to the parent: it writes nothing.
        """
        if self.generation != _forks.generation:
            return
        dropped.run()  # streams collected meanwhile are written first, as dropped
        for call in list(self.open_calls):
            call.finish(abandoned=True, reason=LEFT_IN_BACKGROUND if call.parked else ended_reason(ended))
            if call.parked:  # a retrieve in another episode that sees it end says so (``late``)
                left_running(call.response_id, self.episode_id)
        with self.lock:
            sent = list(self.sent_calls)
        for call in sent:  # the episode ended (cancelled) while a thread it cannot stop waited for the answer
            call.finish(abandoned=True, reason=CUT_OFF)
        with self.lock:
            self.closed = True
            spans, self.open_spans = self.open_spans, set()
        for key in spans:
            if OPEN_SPANS.get(key) is self:
                OPEN_SPANS.pop(key, None)

    def span_started(self, key: SpanKey) -> None:
        """A GenAI span started in this episode (ignored once the adapter returned)."""
        with self.lock:
            if self.closed:
                return
            self.open_spans.add(key)
            OPEN_SPANS[key] = self


def ended_reason(ended: BaseException | None) -> str:
    """Why a stream still open when the episode's adapter block ended was cut off: returned, cancelled or an error."""
    if ended is None:
        return "the episode's adapter returned before the stream ended"
    if isinstance(ended, (asyncio.CancelledError, KeyboardInterrupt)):
        return "the episode was cancelled before the stream ended"
    if isinstance(ended, EpisodeStopping):
        return "the episode was stopped (drained) before the stream ended"
    # the adapter's own error, or the episode's (an idle timeout): said as it is, redacted and cut when written
    name = type(ended).__name__
    said = shown_cut(error_text(ended, 200 + SCAN_MARGIN), 200)
    why = ": ".join(part for part in ("" if name.startswith("_") else name, said) if part) or name
    return f"the episode ended on an error before the stream ended ({why})"


def current_owner() -> Any:
    """The asyncio task running here, else the thread: whose report comes "right after" a call.

    Asked for each chunk a stream yields: a thread with no running loop is told without raising and catching
    ``current_task``'s RuntimeError (a quarter of the time)."""
    loop = asyncio.events._get_running_loop()
    task = asyncio.current_task(loop) if loop is not None else None
    return task if task is not None else threading.current_thread()


def owner_ref() -> Any:
    """A weak reference to ``current_owner()`` (a task or thread that ended is nobody's)."""
    try:
        return weakref.ref(current_owner())
    except TypeError:
        return None


def counts_agree(
    input_tokens: int | None, output_tokens: int | None, total: int | None, uncached: int | None, out: int | None
) -> bool:
    """A report's counts agree with those a captured call knows (its input ``total`` or ``uncached`` part, its
    output ``out``); a count the call does not know (None) agrees with any."""
    return (total is None or input_tokens in (total, uncached)) and (out is None or output_tokens == out)


def current() -> CaptureScope | None:
    """The scope of the episode whose adapter is running in this context, or None.

    None in a forked child (its context is a copy of the episode's): the child writes nothing to a
    run its parent owns, so its calls are outside any episode, unrecorded, and the SDK's own."""
    scope = _CURRENT.get()
    if scope is not None and scope.generation != _forks.generation:
        return None
    return scope


def _forked() -> None:
    """In a forked child: spans and dropped streams of the parent's episodes are not the child's to write."""
    OPEN_SPANS.clear()
    dropped.PENDING.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


@contextlib.contextmanager
def scoped(scope: CaptureScope | None) -> Iterator[None]:
    """Make ``scope`` current for the block (None: capture off inside it); open streams are finished after it."""
    token = _CURRENT.set(scope)
    ended: BaseException | None = None
    try:
        yield
    except BaseException as exc:  # noted for the reason open streams are cut off with, then raised as it was
        ended = exc
        raise
    finally:
        _CURRENT.reset(token)
        if scope is not None:
            scope.finish_open(ended)


def claim_manual(
    episode_id: str,
    model: str,
    input_tokens: int | None,
    output_tokens: int | None,
    request_id: str | None,
    counts: dict[str, int | None] | None = None,
) -> str | None:
    """For ``ctx.model_call``: the id of the captured event it repeats, or None to write it.

    A stream still being read when the adapter reports it (at its usage chunk, inside the ``for`` loop) is
    written at once, as the one event of the call (``ModelCall.reported``): its counts, with the adapter's
    ``counts`` for those it has not seen yet; reading on writes nothing more."""
    scope = current()
    if scope is None or scope.episode_id != episode_id or not (scope.captured or scope.open_calls):
        return None
    request_id = real_id(request_id)  # a placeholder names no call
    found = scope.claim(model, input_tokens, output_tokens, request_id) if scope.captured else None
    if scope.fillable is not None:  # told even when it cannot be that call: the report is the one right after it
        unknown = scope.claim_unknown(model, input_tokens, output_tokens, may=request_id is None and found is None)
        found = found or unknown
    if found is not None:
        return found
    with scope.lock:
        open_calls = list(scope.open_calls)
    for call in open_calls:
        try:
            event_id = call.reported(model, input_tokens, output_tokens, request_id, counts or {})
        except Exception:  # capture never breaks the adapter's own report: it is then written as given
            event_id = None
        if event_id is not None:
            scope.mark_claimed(event_id)
            return str(event_id)
    scope.count_report(request_id)  # written as a call of its own
    return None


def resolve_option(capture: Any) -> bool:
    """``capture=`` of ``start``/``solve``: True/False, or None for ``$NOESIS_NB_CAPTURE`` (default on)."""
    if capture is None:
        return capture_from_env()
    if not isinstance(capture, bool):
        raise InvalidOptionError(f"capture={quoted(capture)}: pass True or False (or leave it out to follow ${ENV})")
    return capture
