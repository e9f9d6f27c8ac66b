"""SDK surfaces beyond plain ``create``: stream helpers closed early, parse helpers that refuse a billed answer,
several choices (``n`` > 1).

Each billed request is one ``model.call`` with what the provider reported, written when the call
ends; what the SDK returns or raises is its own.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time

import pydantic
import pytest

import noesis_nb
from noesis_nb.capture.calls import CLOSED

from .provider_stub import Reply, chat_completion, response_object
from .recorded_calls import calls, tokens

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx2 = pytest.importorskip("httpx2")

MSG = [{"role": "user", "content": "hi"}]
PAUSE = 0.5  # the agent works on after closing the stream: not part of the call


class Answer(pydantic.BaseModel):
    x: int


def _openai(stub):
    return openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)


def _claude(stub):
    return anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)


def close_openai_stream(stub):
    stream = _openai(stub).chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
    next(iter(stream))
    stream.close()
    return stream


def leave_chat_stream_helper(stub):
    with _openai(stub).chat.completions.stream(model="gpt-4o-mini", messages=MSG) as stream:
        next(iter(stream))
    return stream


def leave_responses_stream_helper(stub):
    with _openai(stub).responses.stream(model="o4-mini", input="hi") as stream:
        next(iter(stream))
    return stream


def leave_messages_stream_helper(stub):
    with _claude(stub).messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
        next(iter(stream))
    return stream


def leave_async_messages_stream_helper(stub):
    async def run():
        client = anthropic.AsyncAnthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        async with client.messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
            await stream.__anext__()
        return stream

    return asyncio.run(run())


@pytest.mark.parametrize(
    "close",
    [
        close_openai_stream,
        leave_chat_stream_helper,
        leave_responses_stream_helper,
        leave_messages_stream_helper,
        leave_async_messages_stream_helper,
    ],
)
def test_a_stream_the_caller_closes_early_ends_its_call_at_the_close(stub, runs_dir, close):
    kept = []

    def agent(task, ctx):
        kept.append(close(stub))  # still referenced: not collected, so only the close can end the call
        time.sleep(PAUSE)
        return "ok"

    ep = noesis_nb.solve("close early", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert call["abandoned"] is True and call["abandoned_reason"] == CLOSED
    assert call["streamed"] is True and call["request_id"].startswith("req_")
    assert call["latency_ms"] < PAUSE * 1000  # ended at the close, not when the adapter returned
    assert call["output_tokens"] is None  # the stream never reported its output


def test_a_stream_read_to_its_end_and_kept_is_complete_not_closed(stub, runs_dir):
    def agent(task, ctx):
        with _claude(stub).messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
            message = stream.get_final_message()
        stream.close()  # closing an ended stream again changes nothing
        return [message.usage.input_tokens, message.usage.output_tokens]

    ep = noesis_nb.solve("read all", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert "abandoned" not in call and call["stop_reason"] == "end_turn" and call["output_tokens"] is not None


def _length_cut(stub):
    usage = {"input": 700, "cached": 512, "output": 4096, "reasoning": 0}
    body = chat_completion("gpt-4o", usage, "cut")
    body["choices"][0]["finish_reason"] = "length"
    body["choices"][0]["message"]["content"] = '{"x": 1'
    stub.script("/v1/chat/completions", Reply(body=body))
    return usage


def test_a_parse_helper_that_refuses_a_billed_answer_keeps_its_tokens(stub, runs_dir):
    raised = []

    def agent(task, ctx):
        client = _openai(stub)
        try:
            client.chat.completions.parse(model="gpt-4o", messages=MSG, response_format=Answer)
        except openai.LengthFinishReasonError as exc:
            raised.append(exc)
        body = response_object("gpt-4o", {"input": 300, "cached": 0, "output": 20, "reasoning": 8}, "bad")
        stub.script("/v1/responses", Reply(body=body))  # its text is no JSON for ``Answer``
        try:
            client.responses.parse(model="gpt-4o", input="hi", text_format=Answer)
        except pydantic.ValidationError as exc:
            raised.append(exc)
        return "done"

    usage = _length_cut(stub)
    ep = noesis_nb.solve("parse refused", using=agent, runs_dir=runs_dir)
    chat, responses = calls(runs_dir, ep)
    # the SDK's own exceptions reached the agent, with the completion the SDK attached
    assert [type(e).__name__ for e in raised] == ["LengthFinishReasonError", "ValidationError"]
    assert raised[0].completion.usage.completion_tokens == usage["output"]
    assert tokens(chat) == (usage["input"], usage["cached"], None, usage["output"], usage["reasoning"])
    assert chat["stop_reason"] == "length" and chat["error"]["type"] == "LengthFinishReasonError"
    assert chat["model"] == "gpt-4o-2024-07-18" and chat["response_id"] == "chatcmpl-cut"
    assert tokens(responses) == (300, 0, None, 20, 8) and responses["error"]["type"] == "ValidationError"


def test_a_parse_helper_that_succeeds_is_one_call_without_an_error(stub, runs_dir):
    def agent(task, ctx):
        body = chat_completion("gpt-4o", {"input": 40, "cached": 0, "output": 6, "reasoning": 0}, "ok")
        body["choices"][0]["message"]["content"] = '{"x": 1}'
        stub.script("/v1/chat/completions", Reply(body=body))
        return (
            _openai(stub).chat.completions.parse(model="gpt-4o", messages=MSG, response_format=Answer).choices[0].message.parsed.x
        )

    ep = noesis_nb.solve("parse ok", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert "error" not in call and tokens(call) == (40, 0, None, 6, 0) and call["request_id"].startswith("req_")


def _streamed(chunks: list[dict], **headers: str) -> httpx2.Response:
    """An OpenAI chat stream answering ``chunks`` as server-sent events, then ``[DONE]``."""
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream", **headers}, content=body)


def _two_choices(streamed):
    """``n=2``: choice 0 ends with ``stop``, choice 1 with ``length``, after it (a whole response, or its stream)."""
    base = {"id": "chatcmpl-two", "created": 1764460800, "model": "gpt-4o-2024-07-18"}
    if not streamed:
        body = chat_completion("gpt-4o", {"input": 9, "cached": 0, "output": 30, "reasoning": 0}, "two")
        second = {**body["choices"][0], "index": 1, "finish_reason": "length"}
        return httpx2.Response(200, headers={"x-request-id": "req_whole"}, json={**body, "choices": [body["choices"][0], second]})
    chunk = {**base, "object": "chat.completion.chunk"}
    chunks = [
        {**chunk, "choices": [{"index": i, "delta": {"content": "x"}, "finish_reason": None} for i in (0, 1)]},
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**chunk, "choices": [{"index": 1, "delta": {}, "finish_reason": "length"}]},
    ]
    return _streamed(chunks, **{"x-request-id": "req_streamed"})


def test_several_choices_streamed_or_not_record_the_same_stop_reason(runs_dir):
    reasons = []  # the first choice's finish reason, as the SDK handed it to the agent

    def agent(task, ctx):
        for streamed in (False, True):
            transport = httpx2.MockTransport(lambda request, s=streamed: _two_choices(s))
            client = openai.OpenAI(
                base_url="http://model.test/v1", api_key="sk-test", max_retries=0, http_client=httpx2.Client(transport=transport)
            )
            if streamed:
                finish = {}
                for chunk in client.chat.completions.create(model="gpt-4o", messages=MSG, n=2, stream=True):
                    finish.update({c.index: c.finish_reason for c in chunk.choices if c.finish_reason})
                reasons.append(finish[0])
            else:
                reasons.append(client.chat.completions.create(model="gpt-4o", messages=MSG, n=2).choices[0].finish_reason)
        return "done"

    ep = noesis_nb.solve("two choices", using=agent, runs_dir=runs_dir)
    whole, streamed = calls(runs_dir, ep)
    assert streamed["streamed"] is True and whole["streamed"] is False
    assert [whole["stop_reason"], streamed["stop_reason"]] == reasons


def _compaction(request):
    """``/responses/compact`` answers a ``response.compaction`` (billed, with a usage); the token counters answer a count."""
    if request.url.path.endswith("/responses/input_tokens"):
        return httpx2.Response(200, json={"object": "response.input_tokens", "input_tokens": 321})
    if request.url.path.endswith("/messages/count_tokens"):
        return httpx2.Response(200, json={"input_tokens": 321})
    usage = {"input_tokens": 5000, "input_tokens_details": {"cached_tokens": 4096}, "output_tokens": 400,
             "output_tokens_details": {"reasoning_tokens": 250}, "total_tokens": 5400}  # fmt: skip
    body = {"id": "cmp_1", "object": "response.compaction", "created_at": 1764460800, "output": [], "usage": usage}
    return httpx2.Response(200, headers={"x-request-id": "req_compact"}, json=body)


def test_a_compaction_is_a_model_call_and_a_token_count_is_not(runs_dir):
    http = httpx2.Client(transport=httpx2.MockTransport(_compaction))
    client = openai.OpenAI(base_url="http://model.test/v1", api_key="sk-test", max_retries=0, http_client=http)
    claude = anthropic.Anthropic(base_url="http://model.test", api_key="sk-ant-test", max_retries=0, http_client=http)

    def agent(task, ctx):
        compacted = client.responses.compact(model="gpt-5.4", input="a long conversation")
        counted = client.responses.input_tokens.count(model="gpt-5.4", input="hi")
        claude.messages.count_tokens(model="claude-sonnet-4-6", messages=MSG)
        claude.beta.messages.count_tokens(model="claude-sonnet-4-6", messages=MSG)
        return [compacted.usage.input_tokens, counted.input_tokens]

    ep = noesis_nb.solve("compact", using=agent, runs_dir=runs_dir)
    assert noesis_nb.runs_df(runs_dir).iloc[0]["status"] == "ok"
    (call,) = calls(runs_dir, ep)
    usage = _compaction(httpx2.Request("POST", "http://model.test/v1/responses/compact")).json()["usage"]
    assert call["api"] == "responses" and call["model"] == "gpt-5.4" and call["request_id"] == "req_compact"
    assert tokens(call) == (
        usage["input_tokens"],
        usage["input_tokens_details"]["cached_tokens"],
        None,
        usage["output_tokens"],
        usage["output_tokens_details"]["reasoning_tokens"],
    )


def leave_chat_after_its_usage(stub, close=True):
    stream = _openai(stub).chat.completions.create(
        model="gpt-4o-mini", messages=MSG, stream=True, stream_options={"include_usage": True}
    )
    for chunk in stream:
        if chunk.usage is not None:
            break  # the last chunk with counts: only ``[DONE]`` is left unread
    if close:
        stream.close()
    return stream


def leave_chat_after_its_usage_unclosed(stub):
    return leave_chat_after_its_usage(stub, close=False)  # kept: open when the adapter returns; else dropped


def leave_responses_at_completed(stub):
    with _openai(stub).responses.stream(model="o4-mini", input="hi") as stream:
        for event in stream:
            if event.type == "response.completed":
                break
    return stream


def leave_messages_at_message_stop(stub):
    with _claude(stub).messages.stream(model="claude-sonnet-4-6", max_tokens=64, messages=MSG) as stream:
        for event in stream:
            if event.type == "message_stop":
                break
    return stream


@pytest.mark.parametrize(
    "leave",
    [
        leave_chat_after_its_usage,
        leave_chat_after_its_usage_unclosed,
        leave_responses_at_completed,
        leave_messages_at_message_stop,
    ],
)
@pytest.mark.parametrize("drop", [False, True])
def test_a_stream_left_after_its_last_event_is_complete_not_abandoned(stub, runs_dir, leave, drop):
    def agent(task, ctx):
        stream = leave(stub)
        if not drop:
            return "kept"  # still open when the adapter returns
        del stream
        gc.collect()
        return "dropped"

    ep = noesis_nb.solve("left at the end", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert "abandoned" not in call and call["streamed"] is True
    assert call["stop_reason"] and None not in (call["input_tokens"], call["output_tokens"])


def test_openai_cache_writes_are_the_part_of_the_input_written_to_the_cache(stub, runs_dir):
    chat_usage = {"input": 6000, "cached": 0, "output": 50, "reasoning": 0}
    chat = chat_completion("gpt-5.4", chat_usage, "w1")
    chat["usage"]["prompt_tokens_details"]["cache_write_tokens"] = 4800  # a first call with a cache breakpoint
    stub.script("/v1/chat/completions", Reply(body=chat))
    resp_usage = {"input": 9000, "cached": 4800, "output": 70, "reasoning": 30}
    resp = response_object("gpt-5.4", resp_usage, "w2")
    resp["usage"]["input_tokens_details"]["cache_write_tokens"] = 3000  # required in the Responses usage
    stub.script("/v1/responses", Reply(body=resp))

    def agent(task, ctx):
        client = _openai(stub)
        reply = client.chat.completions.create(model="gpt-5.4", messages=MSG)
        answer = client.responses.create(model="gpt-5.4", input="hi")
        details = (reply.usage.prompt_tokens_details, answer.usage.input_tokens_details)
        return [d.cache_write_tokens for d in details]

    ep = noesis_nb.solve("cache writes", using=agent, runs_dir=runs_dir)
    first, second = calls(runs_dir, ep)
    assert tokens(first) == (chat_usage["input"], chat_usage["cached"], 4800, chat_usage["output"], chat_usage["reasoning"])
    assert tokens(second) == (resp_usage["input"], resp_usage["cached"], 3000, resp_usage["output"], resp_usage["reasoning"])
    frame = noesis_nb.usage_df(runs_dir, episodes=ep, strict=True)
    assert list(frame["cache_write_input_tokens"]) == [4800, 3000]


@pytest.mark.parametrize("cached, written", [(600, 1000), (0, 1500)])
def test_a_cache_write_that_does_not_fit_in_the_input_is_unknown_and_the_input_kept(stub, runs_dir, cached, written):
    """``cache_write_tokens`` is "the unadjusted number of prompt tokens written to cache": counted over the
    cached part (or beyond the prompt), it is no part of the input; the billed input must not become unknown."""
    usage = {"input": 1000, "cached": cached, "output": 5, "reasoning": 0}
    chat = chat_completion("gpt-5.4", usage, "over")
    chat["usage"]["prompt_tokens_details"]["cache_write_tokens"] = written
    stub.script("/v1/chat/completions", Reply(body=chat))

    def agent(task, ctx):
        return _openai(stub).chat.completions.create(model="gpt-5.4", messages=MSG).usage.prompt_tokens

    ep = noesis_nb.solve("cache write over", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert tokens(call) == (usage["input"], cached, None, usage["output"], 0)
    frame = noesis_nb.usage_df(runs_dir, episodes=ep, strict=True)
    assert list(frame["input_tokens"]) == [usage["input"]]


def _usage_on_every_chunk(request):
    """A server streaming ``n=2`` with usage on every chunk (continuous usage stats): choice 0 ends first."""
    base = {"id": "chatcmpl-cont", "created": 1764460800, "model": "gpt-4o-2024-07-18", "object": "chat.completion.chunk"}

    def usage(n):
        return {"prompt_tokens": 9, "completion_tokens": n, "total_tokens": 9 + n}

    chunks = [
        {**base, "choices": [{"index": i, "delta": {"content": "x"}, "finish_reason": None} for i in (0, 1)], "usage": usage(2)},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage(2)},
        {**base, "choices": [{"index": 1, "delta": {"content": "y"}, "finish_reason": None}], "usage": usage(3)},
        {**base, "choices": [{"index": 1, "delta": {}, "finish_reason": "length"}], "usage": usage(3)},
        {**base, "choices": [], "usage": usage(3)},
    ]
    return _streamed(chunks)


def test_a_stream_with_usage_on_every_chunk_closed_while_choices_still_come_is_abandoned(runs_dir):
    def agent(task, ctx):
        http = httpx2.Client(transport=httpx2.MockTransport(_usage_on_every_chunk))
        client = openai.OpenAI(base_url="http://model.test/v1", api_key="sk-test", max_retries=0, http_client=http)
        stream = client.chat.completions.create(model="gpt-4o", messages=MSG, n=2, stream=True)
        for chunk in stream:
            if any(c.finish_reason for c in chunk.choices):
                break  # choice 0 ended; choice 1 still streams
        stream.close()
        return "closed"

    ep = noesis_nb.solve("usage on every chunk", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert call.get("abandoned") is True, call


def _finish_and_usage_in_one_chunk(request):
    """A server sending the finish reason and the usage in the same last chunk (with its choice), then [DONE]."""
    base = {"id": "chatcmpl-one", "created": 1764460800, "model": "mistral-small", "object": "chat.completion.chunk"}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]},
        {
            **base,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
        },
    ]
    return _streamed(chunks)


def test_a_stream_closed_at_its_last_chunk_holding_finish_and_usage_is_complete(runs_dir):
    def agent(task, ctx):
        http = httpx2.Client(transport=httpx2.MockTransport(_finish_and_usage_in_one_chunk))
        client = openai.OpenAI(base_url="http://model.test/v1", api_key="sk-test", max_retries=0, http_client=http)
        stream = client.chat.completions.create(model="mistral-small", messages=MSG, stream=True)
        for chunk in stream:
            if chunk.choices and chunk.choices[0].finish_reason:
                break  # the answer is whole; only [DONE] is left
        stream.close()
        return "closed"

    ep = noesis_nb.solve("finish and usage together", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert "abandoned" not in call and call["stop_reason"] == "stop", call
    assert (call["input_tokens"], call["output_tokens"]) == (9, 2)


def _annotated_after_finish(request):
    """A chunk for a choice after its finish (no text, no finish: an annotation), then the usage chunk."""
    base = {"id": "chatcmpl-ann", "created": 1764460800, "model": "gpt-4o-2024-07-18", "object": "chat.completion.chunk"}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": None}]},
        {**base, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}},
    ]
    return _streamed(chunks)


def _second_choice_late(request):
    """``n=2`` with usage on every chunk: choice 0 finishes before choice 1 has sent anything."""
    base = {"id": "chatcmpl-late", "created": 1764460800, "model": "gpt-4o-2024-07-18", "object": "chat.completion.chunk"}
    usage = {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}], "usage": usage},
        {**base, "choices": [{"index": 1, "delta": {"content": "y"}, "finish_reason": "stop"}], "usage": usage},
        {**base, "choices": [], "usage": {**usage, "completion_tokens": 2, "total_tokens": 11}},
    ]
    return _streamed(chunks)


@pytest.mark.parametrize(
    "reply, n, stop_at, complete",
    [(_annotated_after_finish, 1, "usage", True), (_second_choice_late, 2, "first finish", False)],
    ids=["a chunk after the finish", "a choice not seen yet"],
)
def test_a_stream_is_complete_only_when_every_choice_asked_for_has_finished(runs_dir, reply, n, stop_at, complete):
    def agent(task, ctx):
        http = httpx2.Client(transport=httpx2.MockTransport(reply))
        client = openai.OpenAI(base_url="http://model.test/v1", api_key="sk-test", max_retries=0, http_client=http)
        stream = client.chat.completions.create(model="gpt-4o", messages=MSG, n=n, stream=True)
        for chunk in stream:
            at_usage = chunk.usage is not None and not chunk.choices
            if at_usage if stop_at == "usage" else any(c.finish_reason for c in chunk.choices):
                break
        stream.close()
        return "closed"

    ep = noesis_nb.solve("choices", using=agent, runs_dir=runs_dir)
    (call,) = calls(runs_dir, ep)
    assert ("abandoned" not in call) is complete, call
