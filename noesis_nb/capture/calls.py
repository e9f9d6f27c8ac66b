"""One SDK call being watched: what was asked, what came back (a response, a stream, an error), and its event.

``ModelCall.begin`` decides from the request options whether the call is a model call (Chat
Completions, Responses, legacy Completions, Anthropic Messages) and notes the time. Then exactly
one of ``returned`` (a whole response), ``see`` + ``finish`` (a stream, item by item) or ``failed``
(the SDK raised) writes the call's one event; a background response answered ``queued`` waits
(``_park``) for the ``Retrieval`` (a retrieve or cancel of it, or a streamed retrieve's final event) that
sees it end. Nothing here raises into the SDK's caller: a reading that fails leaves that field unknown.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from .. import _forks
from .._safetext import error_text
from ..secrets import SCAN_MARGIN, shown_cut
from ..store.vocab import MODEL_CALL, TOKEN_FIELDS
from . import late
from . import usage as u
from .scope import (
    OPEN_SPANS,
    CaptureScope,
    SpanKey,
    counts_agree,
    current_owner,
    joins,
    owner_ref,
    same_models,
    span_key,
    span_ref,
)

__all__ = ["ModelCall", "Retrieval", "endpoint", "ABANDONED", "CLOSED", "CANCELLED"]

_ENDPOINTS = {
    "openai": (
        ("/chat/completions", "chat.completions"),
        ("/responses", "responses"),
        ("/responses/compact", "responses"),  # a model compacts the conversation: billed, a Responses ``usage``
        ("/completions", "completions"),
        ("/embeddings", "embeddings"),  # billed for their input tokens: a RAG agent's cost is in them too
    ),
    "anthropic": (("/messages", "messages"),),
}
_USAGE = {
    "chat.completions": u.openai_chat,
    "completions": u.openai_chat,
    "responses": u.openai_responses,
    "embeddings": u.openai_embeddings,
    "messages": u.anthropic,
}
_REQUEST_ID_HEADER = {"openai": "x-request-id", "anthropic": "request-id"}
_text = u.text  # names, ids and reasons: text only, cut when absurdly long
_SHORT = u.MAX_TEXT  # a text this long or shorter is kept as it is (``_text``)
_RESPONSE_FIELDS = ("id", "model", "usage")  # what every response is read for
ABANDONED = "the stream was dropped before it ended"
CLOSED = "the stream was closed before it ended"
CANCELLED = "the call was cancelled (its task, the episode, an interrupt) before it ended"

_FINAL = ("completed", "incomplete", "failed", "cancelled")  # a Responses status after which the stream has no more to say
_NO_CHOICES: Any = frozenset()  # a whole response's: ``see`` (streams only) never writes to it
# makes ``finish`` write each call once: held for one test and one set, one lock for all calls (re-entrant: a signal
# handler that makes a captured call while its thread holds it goes on)
_ONCE = threading.RLock()
_UNPARSED = "the raw response was closed unparsed (read raw or not at all): its usage is unknown"


def endpoint(provider: str, options: Any) -> str | None:
    """The API a request calls (``chat.completions``, ``responses``, ``messages`` …), or None for any other request."""
    try:  # the SDK's request options (most calls): read at once, without a helper call each
        method, url = options.method, options.url
    except Exception:  # a dict, or options of another shape
        method, url = u.get(options, "method"), u.get(options, "url")
    if type(method) is str and type(url) is str:  # a client calls a few paths: each judged once
        key = (provider, method, url)
        api = _APIS.get(key, _UNSEEN)
        if api is _UNSEEN:
            if len(_APIS) >= 1024:
                _APIS.clear()
            api = _APIS[key] = _endpoint(provider, method, url)
        return api  # type: ignore[return-value]
    return _endpoint(provider, method, url)


def _endpoint(provider: str, method: Any, url: Any) -> str | None:
    if str(method or "").lower() != "post":
        return None
    path = str(url or "").partition("?")[0].rstrip("/")
    for suffix, api in _ENDPOINTS.get(provider, ()):
        if path.endswith(suffix):
            return api
    return None


_APIS: dict[tuple[str, str, str], str | None] = {}  # (provider, method, url) → ``_endpoint``'s answer
_UNSEEN = object()


class ModelCall:
    """One logical SDK call (all its retries) inside an episode; writes one ``model.call`` event.

    What a call starts with is said once here, on the class: an instance holds only what its call set (most
    fields of most calls are never set, and a call starts on the caller's thread before its request is sent)."""

    model: str | None = None
    billed: str | None = None  # who bills the call (``billing``), set before it is admitted; None: ``provider``
    watching = False  # a stream is being observed
    ended = False  # the stream's last event with counts was seen: closing or dropping it then loses nothing
    choices = 0  # a chat stream's ``n`` > 1: all ``n`` asked for are unfinished before any is seen
    # a stream's choices not finished yet, and those finished (made when a stream begins: most calls are whole)
    unfinished: set[Any] = _NO_CHOICES
    finished: set[Any] = _NO_CHOICES
    problem: dict[str, Any] | None = None  # an error the response reports without the SDK raising
    first_chunk: float | None = None
    request_id: str | None = None
    response_id: str | None = None
    stop_reason: str | None = None
    usage: Any = None
    usage_delta: Any = None  # Anthropic's cumulative message_delta usage
    token: Any = None  # what the scope's watcher handed back when the call started
    unparsed: Any = None  # the response a parse helper's post-parser was given (kept only if it raises)
    fill: dict[str, int | None] | None = None  # the counts written when the adapter reported the call first
    streamed_searches = 0  # those a stream's ``response.output_item.done`` events named
    searches = 0  # a Responses answer's ``web_search_call`` items (billed per search: ``store.vocab.BILLED_COUNTS``)
    began = 0  # the scope's ``calls_started`` once this call was admitted
    running = False  # a Responses answer still ``queued`` / ``in_progress`` (``background=True``)
    parked = False  # such a response, waiting for the retrieve (or cancel) in the episode that ends it
    resumable = False  # a background Responses request: a stream of it that stops early may be resumed (a retrieve)
    reader: Any = None  # a stream's: a weak reference to the task or thread reading it (its opener before any chunk)
    span: SpanKey | None = None  # the GenAI span (of an instrumentation) around the call, if any
    _done = False

    def __init__(self, scope: CaptureScope, provider: str, api: str, options: Any):
        try:
            body = options.json_data
        except Exception:
            body = u.get(options, "json_data")
        body = body if isinstance(body, dict) else {}
        self.scope = scope
        self.provider = provider
        self.api = api
        model = body.get("model")
        self.requested_model = model if type(model) is str and 0 < len(model) <= _SHORT else _text(model)
        self.streamed = body.get("stream") is True  # also a streamed call read through a raw-response wrapper
        if body.get("background") is True and api == "responses":
            self.resumable = True
        n = body.get("n")
        if isinstance(n, int) and not isinstance(n, bool) and 1 < n <= 128:
            self.choices = n
        self.started = time.perf_counter()
        if OPEN_SPANS:  # (none open anywhere, most calls: the current span cannot be one)
            self.span = _current_genai_span(scope)

    @classmethod
    def begin(cls, scope: CaptureScope, provider: str, options: Any) -> ModelCall | None:
        try:
            api = endpoint(provider, options)
            return None if api is None else cls(scope, provider, api, options)
        except Exception:
            return None

    def watch_parser(self, options: Any, parser: Callable[[Any], Any]) -> None:
        """A parse helper (``chat.completions.parse``, ``responses.parse``, ``messages.parse``) turns the response
        into its own inside the SDK call (``parser``, the options' ``post_parser``); when that raises
        (``LengthFinishReasonError``, an answer the schema refuses), the response was still billed: ``failed`` then
        reads it. Plain calls have no post-parser."""

        def post_parser(response: Any) -> Any:
            self.unparsed = response
            parsed = parser(response)
            self.unparsed = None
            return parsed

        try:
            options.post_parser = post_parser
        except Exception:
            pass

    # -- a whole response -------------------------------------------------------------------
    def returned(self, result: Any) -> None:
        """A response returned (a parsed model, or a raw-response wrapper whose body may be read already)."""
        try:
            raw = None if type(result) in PARSED else _raw_http(result)
            if raw is not None:  # with_raw_response / with_streaming_response: read only what is already read
                self.request_id = _header(raw, _REQUEST_ID_HEADER[self.provider])
                result = _read_body(raw)
            else:  # a wrapper's parsed body has no request id yet: keep the header's
                rid = getattr(result, "_request_id", None)
                self.request_id = (rid if type(rid) is str and 0 < len(rid) <= _SHORT else _text(rid)) or self.request_id
            self._read_response(result)
        except Exception:
            pass
        if not (self.running and self._park()):
            self.finish()

    def _park(self) -> bool:
        """A background response (``background=True``) answered ``queued``: it is written when a retrieve (or cancel)
        of it in the episode sees it end (``Retrieval``), else when the adapter's block ends, its usage unknown."""
        if not (self.running and self.response_id and not self.watching):
            return False
        scope = self.scope
        with scope.lock:
            if scope.closed or self._done:
                return False
            self.parked = True
            scope.background[self.response_id] = self
            scope.open_calls.add(self)
        # nothing is in flight here any more (the provider runs it): a graceful stop does not wait for it
        watcher, token, self.token = scope.watcher, self.token, None
        if watcher is not None and token is not None:
            try:
                watcher.model_ended(token, self._payload(None, False, None, None), None)
            except Exception:
                pass
        return True

    def _await_retrieve(self) -> None:
        """A background response's stream named its running response: a retrieve of it in the episode (the stream
        resumed elsewhere, ``starting_after=N``) may see it end before this stream does, and writes the call then."""
        scope = self.scope
        with scope.lock:
            if self.response_id and not scope.closed and not self._done:
                self.parked = True
                scope.background[self.response_id] = self

    def ended_in_background(self, result: Any) -> None:
        """A retrieve (or cancel) of this background response saw it end: written now, with its usage."""
        try:
            self._read_response(result)
        except Exception:
            pass
        self.finish()

    def _read_response(self, result: Any) -> None:
        if result is None:
            return
        try:  # a parsed response (most calls): its fields read at once, without a helper call each
            response_id, model, self.usage = result.id, result.model, result.usage
        except Exception:  # a JSON body, or a response of another shape
            response_id, model, self.usage = u.fields(result, _RESPONSE_FIELDS)
        # (``_text`` of each, its first test made here: most ids and names pass it, without a call)
        self.response_id = response_id if type(response_id) is str and 0 < len(response_id) <= _SHORT else _text(response_id)
        self.model = model if type(model) is str and 0 < len(model) <= _SHORT else _text(model)
        if self.api in ("chat.completions", "completions"):
            try:
                choices = result.choices
            except Exception:
                choices = u.get(result, "choices")
            try:  # a parsed response's first choice is most often index 0's: read here, without a call
                first = choices[0] if type(choices) is list and choices else None
                index, reason = (None, None) if first is None else (first.index, first.finish_reason)
            except Exception:  # a choice of another shape: ``_first_choice_reason`` reads it
                first = None
            if first is not None and index in (0, None):  # (``_first_choice_reason``'s own test and answer)
                self.stop_reason = reason if type(reason) is str and 0 < len(reason) <= _SHORT else _text(reason)
            else:
                self.stop_reason = _first_choice_reason(choices)
        elif self.api == "responses":
            status = _text(u.get(result, "status"))
            reason = _text(u.get(u.get(result, "incomplete_details"), "reason"))
            self.running = status in ("queued", "in_progress")
            self.stop_reason = reason or (None if self.running else status)  # not ended: no reason
            self.searches = max(self.searches, u.web_searches(u.get(result, "output")))
            if status == "failed":
                error = u.get(result, "error")
                self.problem = _reported(u.get(error, "code"), u.get(error, "message"), "response.failed")
        elif self.api != "embeddings":  # (an embedding has no id and no stop reason)
            self.stop_reason = _text(u.get(result, "stop_reason"))

    # -- a stream ---------------------------------------------------------------------------
    def streaming(self, response: Any) -> None:
        """The SDK returned a stream: its events are seen one by one, and the call is written when it ends."""
        self.streamed = self.watching = True
        self.unfinished, self.finished = set(range(self.choices)), set()
        # the task (or thread) reading the stream (its opener until one reads), whose report may fill it
        self.reader = owner_ref()
        self.waiting(response)

    def waiting(self, response: Any) -> None:
        """The body comes later (a stream, an unread raw response): the call is open until it ends."""
        try:
            self.request_id = _header(response, _REQUEST_ID_HEADER[self.provider]) or self.request_id
        except Exception:
            pass
        with self.scope.lock:
            self.scope.open_calls.add(self)

    def closed(self, raw: Any, *, explicit: bool, at: float | None = None) -> None:
        """A raw-response wrapper was closed (``explicit``) or dropped (``at`` then): its body as far as it was read."""
        if self._done or (self.watching and not explicit):  # a stream parsed from it ends by itself
            return
        if self.watching:
            self.stream_stopped(abandoned=True, reason=ABANDONED, at=at)
            return
        body = _read_body(raw)
        if body is None:
            self.finish(abandoned=True, reason=_UNPARSED, at=at)
            return
        try:
            self._read_response(body)
        except Exception:
            pass
        self.finish(at=at)

    def dropped(self, at: float) -> None:
        """The stream was garbage-collected before it ended (at ``at``)."""
        self.stream_stopped(abandoned=True, reason=ABANDONED, at=at)

    def stream_stopped(self, **how: Any) -> None:
        """The stream ended, failed, was closed or dropped (``how``: ``finish``'s arguments): the call is written.

        A background response's stream that stops before the response ended (the connection dropped, the reader
        closed it) is parked instead: the response runs on at the provider, and a retrieve of it
        (``retrieve(id, stream=True, starting_after=N)``, or a poll) writes the call from its end, usage included,
        once; none in the episode: written when the adapter's block ends, its usage unknown."""
        if self.resumable and self.running and not self.ended and not self._done:
            self.watching = False
            if self._park():
                return
            self.watching = True
        self.finish(**how)

    def _read_by(self, owner: Any) -> None:
        """The stream is read here: its report is this task's (or thread's) now, not the one that opened it."""
        reader = self.reader
        if reader is None or reader() is not owner:
            try:
                self.reader = weakref.ref(owner)
            except TypeError:
                self.reader = None

    @property
    def done(self) -> bool:
        return self._done

    def see(self, item: Any) -> None:
        """One stream event (a chunk, a Responses event, an Anthropic event)."""
        if self.first_chunk is None:
            self.first_chunk = time.perf_counter()
        self._read_by(current_owner())
        try:
            if self.api in ("chat.completions", "completions"):
                self.response_id = self.response_id or _text(u.get(item, "id"))
                self.model = _text(u.get(item, "model")) or self.model
                for choice in u.get(item, "choices") or []:
                    index, finish = u.get(choice, "index"), _text(u.get(choice, "finish_reason"))
                    if finish is None:
                        if index not in self.finished:  # a chunk after its finish (an annotation) reopens nothing
                            self.unfinished.add(index)
                            self.ended = False  # the answer goes on after any usage sent before it
                        continue
                    self.unfinished.discard(index)
                    self.finished.add(index)
                    if index in (0, None):  # with ``n`` > 1: the first choice's, as in a whole response
                        self.stop_reason = finish
                usage = u.get(item, "usage")
                if usage is not None:
                    self.usage = usage
                    # the counts are final: OpenAI's usage chunk (``choices`` always empty) is the stream's last before
                    # ``[DONE]``, with the whole request's usage, even from a server that never sends a finish_reason;
                    # or every choice has finished (some servers send the usage with the last finish). A server that
                    # sends usage on every content chunk (running totals) has not ended before either.
                    self.ended = not u.get(item, "choices") or (self.stop_reason is not None and not self.unfinished)
            elif self.api == "responses":
                response = u.get(item, "response")
                if response is not None:
                    self._read_response(response)
                    self.ended = u.get(response, "status") in _FINAL
                    if self.resumable and self.running and not self.parked:
                        self._await_retrieve()
                elif u.get(item, "type") == "error":  # the stream's own error event: the SDK does not raise on it
                    self.problem = _reported(u.get(item, "code"), u.get(item, "message"), "error")
                elif u.get(item, "type") == "response.output_item.done":  # a search done, in a stream cut before its end
                    self.streamed_searches += u.web_searches([u.get(item, "item")])
            else:
                kind = u.get(item, "type")
                if kind == "message_start":
                    message = u.get(item, "message")
                    self.response_id = _text(u.get(message, "id"))
                    self.model = _text(u.get(message, "model"))
                    self.usage = u.get(message, "usage")
                elif kind == "message_delta":
                    self.stop_reason = _text(u.get(u.get(item, "delta"), "stop_reason")) or self.stop_reason
                    self.usage_delta = u.get(item, "usage")
                elif kind == "message_stop":
                    self.ended = True
        except Exception:
            pass

    # -- the end ----------------------------------------------------------------------------
    def failed(self, exc: BaseException) -> None:
        """The SDK raised (after its retries): the call is written with the error and no invented tokens.

        A response a parse helper refused is read first: its tokens were billed."""
        if self.unparsed is not None:
            try:
                self._read_response(self.unparsed)
            except Exception:
                pass
            self.unparsed = None
        self.finish(error=exc)

    def finish(
        self,
        *,
        error: BaseException | None = None,
        abandoned: bool = False,
        reason: str | None = None,
        at: float | None = None,
    ) -> str | None:
        """Write the call's event once (later calls do nothing); ``at``: when it ended, if not now.

        Returns the event's id (None when nothing was written).

        Nothing in a forked child (a stream the parent began, ended there): neither the event nor the
        episode's bookkeeping, whose locks a thread of the parent may have held at the fork."""
        if self.scope.generation != _forks.generation:
            return None
        if isinstance(error, (asyncio.CancelledError, KeyboardInterrupt)):  # not the call's failure: it was left
            error, abandoned, reason = None, True, CANCELLED
        if abandoned and self.ended:  # closed or dropped after its last event: complete, not abandoned
            abandoned, reason = False, None
        with _ONCE:
            if self._done:
                return None
            self._done = True
        scope = self.scope
        with scope.lock:
            scope.open_calls.discard(self)
            scope.sent_calls.discard(self)
            if self.parked and scope.background.get(self.response_id or "") is self:
                del scope.background[self.response_id or ""]
        try:
            payload = self._payload(error, abandoned, reason, at)
        except Exception as exc:  # a shape nobody foresaw: the call is still counted, its tokens unknown
            payload = {
                "event_name": MODEL_CALL,
                "model": self.requested_model,
                "provider": self.billed or self.provider,
                "capture": self.provider,
                "capture_problem": shown_cut(repr(exc), 300),
            }
        request_id, response_id = self.request_id, self.response_id
        if request_id and response_id and self.span is None:  # most calls (``_keys``'s answer, without its call)
            keys: tuple[tuple[str, str], ...] = (("request", request_id), ("response", response_id))
        else:
            keys = _keys(request_id, response_id, self.span)
        event_id = scope.record(payload, keys, known=True, began=self.began)
        watcher = scope.watcher
        if watcher is not None and self.token is not None:
            try:
                watcher.model_ended(self.token, payload, event_id)
            except Exception:
                pass
        return event_id

    def _counts(self) -> dict[str, int | None]:
        """The five token counts known so far (all None before any usage)."""
        usage = self.usage
        if self.api == "messages":
            usage = u.merge_anthropic(usage, self.usage_delta) if usage is not None or self.usage_delta is not None else None
        counts = _USAGE[self.api](usage) if usage is not None else dict.fromkeys(TOKEN_FIELDS)
        if self.watching and self.api == "messages" and u.count(u.get(self.usage_delta, "output_tokens")) is None:
            # message_start's output count is a placeholder (1): only message_delta's says what was written, and a
            # delta without one (a proxy's ``usage: {}``) leaves it unknown
            counts["output_tokens"] = None
        return counts

    def reported(
        self, model: str, input_tokens: int | None, output_tokens: int | None, request_id: str | None, given: dict[str, Any]
    ) -> str | None:
        """A ``ctx.model_call`` made while this call's body is still being read: when it is this call (its request or
        response id, or, naming none, the model and the input and output counts seen so far), the call is written now
        with the adapter's ``given`` counts for those not seen yet, and its event id returned; else None.

        Its ``latency_ms`` then ends at the report. The adapter read the counts from this stream (its usage chunk),
        so the event is the call's whole; reading on writes nothing more.

        A stream whose input or output count is still unknown (no usage chunk, or not yet) is also the report, naming
        no id, of the task reading it (the one that pulled its last chunk; its opener before any), of the same model,
        whose counts agree with those it knows, when no other call was captured in the episode since it began
        (``scope``'s rule for a call with unknown counts)."""
        if self._done:
            return None
        counts = self._counts()
        total, out = counts["input_tokens"], counts["output_tokens"]
        uncached = (
            None if total is None else total - (counts["cached_input_tokens"] or 0) - (counts["cache_write_input_tokens"] or 0)
        )
        if request_id is not None:  # its id, when it joins them (``scope.joins``: calls written before with it count)
            same = request_id in (self.request_id, self.response_id)
            seen: dict[str, Any] = {"model": self.model, "requested_model": self.requested_model}
            seen.update(input_total=total, input_uncached=uncached, output_tokens=out)
            calls = self.scope.id_calls.get(request_id, 0) + 1  # this open call carries it too
            same = same and joins(model, None, input_tokens, output_tokens, seen, calls)
        else:
            same = same_models((model,), (self.model, self.requested_model), unknown_agrees=False) and counts_agree(
                input_tokens, output_tokens, total, uncached, out
            )
            if same and (total is None or out is None):  # counts unknown: only the reader's report, right after
                reader = self.reader  # the call began, may be this call
                same = (
                    self.problem is None
                    and reader is not None
                    and reader() is current_owner()
                    and self.began == self.scope.calls_started
                )
        if not same:
            return None
        filled = {k: given.get(k) if v is None else v for k, v in counts.items()}
        self.fill = filled if _consistent(filled) else None
        return self.finish()

    def _payload(self, error: BaseException | None, abandoned: bool, reason: str | None, at: float | None) -> dict[str, Any]:
        if self.fill is not None:
            counts = self.fill
        elif self.usage is not None and self.api != "messages":  # most calls (``_counts``'s answer, without its call)
            counts = _USAGE[self.api](self.usage)
        else:
            counts = self._counts()
        now = time.perf_counter() if at is None else at
        payload: dict[str, Any] = {  # the event's payload as written: ``event_name`` first
            "event_name": MODEL_CALL,
            "model": self.model or self.requested_model,
            "provider": self.billed or self.provider,
            **counts,
            "latency_ms": round((now - self.started) * 1000.0, 3),
            "cost_usd": None,
            "api": self.api,
            "capture": self.provider,
            "requested_model": self.requested_model,
            "request_id": self.request_id,
            "response_id": self.response_id,
            "stop_reason": self.stop_reason,
            "streamed": self.streamed,
        }
        searches = max(self.searches, self.streamed_searches)
        if searches:  # (a key only when searches were made: most calls make none)
            payload["web_search_requests"] = searches
        if self.parked:
            payload["background"] = True
        if self.streamed and self.first_chunk is not None:
            payload["time_to_first_chunk_ms"] = round((self.first_chunk - self.started) * 1000.0, 3)
        if abandoned:
            payload["abandoned"] = True
            if reason:
                payload["abandoned_reason"] = reason
        if error is not None:
            payload["error"] = _error(error)
            payload["request_id"] = self.request_id or _text(getattr(error, "request_id", None))
        elif self.problem is not None:
            payload["error"] = self.problem
        return payload


class Retrieval:
    """An SDK request that is no model call but may end one: ``responses.retrieve`` or ``responses.cancel`` of a
    background response the episode is waiting for (``ModelCall._park``). It writes nothing of its own."""

    __slots__ = ("scope",)

    def __init__(self, scope: CaptureScope):
        self.scope = scope

    @classmethod
    def of(cls, scope: CaptureScope, provider: str, options: Any) -> Retrieval | None:
        """One when the episode waits for a background response and this request names a response by its id."""
        if not (scope.background or late.LEFT) or provider != "openai":  # (LEFT: another episode's, said once)
            return None
        url = u.get(options, "url")
        return cls(scope) if type(url) is str and "/responses/" in url else None

    def failed(self, exc: BaseException) -> None:
        """The retrieve raised: the response is still waited for (a later one may end it)."""

    def returned(self, result: Any, streams: tuple[Any, Any] = (None, None)) -> None:
        """The response as the retrieve (or cancel) answered it: an ended one writes its parked call. A streamed
        retrieve (``stream=True``) is followed: its event carrying the ended response (``response.completed``, with
        the usage) writes the parked call then."""
        if self._follow(result, streams) or self._defer(result, streams):
            return
        try:
            raw = _raw_http(result)
            if raw is not None:  # ``with_raw_response``: its body, read already
                result = _read_body(raw)
            response_id, status = _text(u.get(result, "id")), _text(u.get(result, "status"))
        except Exception:
            return
        if response_id is None or status in (None, "queued", "in_progress"):
            return
        scope = self.scope
        with scope.lock:
            call = scope.background.pop(response_id, None)
        if call is not None:
            call.ended_in_background(result)
        elif late.LEFT:
            late.ended_elsewhere(scope.episode_id, response_id, status or "", result)

    def _follow(self, result: Any, streams: tuple[Any, Any]) -> bool:
        """Put a watcher in front of a stream's events (the SDK's ``Stream`` yields the same items); False for any
        other answer."""
        sync_cls, async_cls = streams
        try:
            if sync_cls is not None and isinstance(result, sync_cls):
                result._iterator = self._watch(result._iterator)
            elif async_cls is not None and isinstance(result, async_cls):
                result._iterator = self._watch_async(result._iterator)
            else:
                return False
        except Exception:  # a stream of another shape: nothing followed, the call waits as before
            return False
        return True

    def _defer(self, result: Any, streams: tuple[Any, Any]) -> bool:
        """A raw-response wrapper whose body is unread (``with_streaming_response``): what its ``parse()`` returns (the
        response, or the stream of a streamed retrieve) is read then. Only the instance's ``_parse`` is replaced."""
        parse = getattr(type(result), "_parse", None)
        raw = getattr(result, "http_response", None)
        if not callable(parse) or raw is None or _read_body(raw) is not None:
            return False
        ref = weakref.ref(result)

        def _parse(*args: Any, **kwargs: Any) -> Any:
            parsed = parse(ref(), *args, **kwargs)
            self.returned(parsed, streams)
            return parsed

        try:
            result._parse = _parse
        except Exception:
            return False
        return True

    def _saw(self, item: Any) -> None:
        try:
            response = u.get(item, "response")
        except Exception:
            return
        if response is not None:
            self.returned(response)  # an ended status writes the parked call; queued or in progress does nothing

    def _watch(self, iterator: Any) -> Any:
        try:
            for item in iterator:
                self._saw(item)
                yield item
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()  # closed early: the SDK's own generator closes its response now, as it would have

    async def _watch_async(self, iterator: Any) -> Any:
        try:
            async for item in iterator:
                self._saw(item)
                yield item
        finally:
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()


def _first_choice_reason(choices: Any) -> str | None:
    """A whole response's stop reason: its choice of index 0 (with ``n`` > 1 the list may come in any order; a stream
    takes index 0's too), or the first choice naming no index; None when there is no such choice."""
    for choice in choices or ():
        try:  # a parsed choice (most calls): read without a helper call each
            index, reason = choice.index, choice.finish_reason
        except Exception:  # a JSON body's, or a choice of another shape
            index, reason = u.get(choice, "index"), u.get(choice, "finish_reason")
        if index in (0, None):
            return reason if type(reason) is str and 0 < len(reason) <= _SHORT else _text(reason)
    return None


def _consistent(counts: dict[str, int | None]) -> bool:
    """The counts keep the usage rule: the input's parts fit in the input, the reasoning in the output."""
    total, out, reasoning = counts["input_tokens"], counts["output_tokens"], counts["reasoning_tokens"]
    parts = (counts["cached_input_tokens"] or 0) + (counts["cache_write_input_tokens"] or 0)
    return (total is None or parts <= total) and (out is None or reasoning is None or reasoning <= out)


def _keys(request_id: str | None, response_id: str | None, span: SpanKey | None) -> tuple[tuple[str, str], ...]:
    """The ids a call is known by (``CaptureScope.record``'s keys), in that order: request, response, span."""
    if span is None:  # most calls: no span around them
        if request_id and response_id:
            return (("request", request_id), ("response", response_id))
        return (("request", request_id),) if request_id else (("response", response_id),) if response_id else ()
    keys = tuple((kind, v) for kind, v in (("request", request_id), ("response", response_id)) if v)
    return (*keys, ("span", span_ref(span)))


def _error(exc: BaseException) -> dict[str, Any]:
    status = getattr(exc, "status_code", None)
    return {
        "type": type(exc).__name__,
        "message": shown_cut(error_text(exc, 500 + SCAN_MARGIN), 500),  # a cut through a secret would keep its head
        "status_code": status if isinstance(status, int) else None,
    }


def _reported(code: Any, message: Any, default: str) -> dict[str, Any]:
    """An error the response itself reports (``response.failed``, a stream's ``error`` event)."""
    return {"type": _text(code) or default, "message": shown_cut(_text(message) or "", 500), "status_code": None}


def _raw_http(result: Any) -> Any:
    """The HTTP response inside a raw-response wrapper (or the response itself), else None."""
    kind = type(result)
    if kind in PARSED:  # most calls: a parsed response of a class seen before
        return None
    if kind.__module__.startswith(("httpx", "httpx2")):
        return result
    if hasattr(kind, "model_fields"):  # a parsed (pydantic) response: asking it for a missing attribute raises inside
        if len(PARSED) < 1024:
            PARSED.add(kind)
        return None
    raw = getattr(result, "http_response", None)
    return raw if raw is not None and hasattr(raw, "headers") else None


#: classes of parsed responses (pydantic models: no stream, no raw-response wrapper), noted as calls return them
PARSED: set[type] = set()


def _header(response: Any, name: str) -> str | None:
    headers = getattr(response, "headers", None)
    return _text(headers.get(name)) if headers is not None else None


def _read_body(raw: Any) -> Any:
    """The JSON body when the HTTP layer has already read it (never reads a body the caller means to stream)."""
    try:
        content = raw.content  # raises when the body was not read
    except Exception:
        return None
    try:
        return json.loads(content)
    except (ValueError, TypeError):
        return None


def _current_genai_span(scope: CaptureScope) -> SpanKey | None:
    """The OpenTelemetry span current at the call's start, when it is a GenAI span capture is watching."""
    if not OPEN_SPANS:  # no GenAI span open anywhere (most calls): the current span cannot be one
        return None
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    try:
        key = span_key(trace.get_current_span().get_span_context())
    except Exception:
        return None
    if key[1] and OPEN_SPANS.get(key) is scope:
        with scope.lock:
            scope.covered_spans.add(key)
        return key
    return None
