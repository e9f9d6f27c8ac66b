"""A background response followed by a streamed retrieve (``responses.retrieve(id, stream=True)``, or
``responses.stream(response_id=id)``): the stream's ``response.completed`` event carries the usage, and the call
parked at its ``queued`` answer is written from it, once."""

from __future__ import annotations

import asyncio

import pytest

import noesis_nb

from .provider_stub import Reply
from .recorded_calls import checked_calls, tokens

openai = pytest.importorskip("openai")

USAGE = {"input": 3000, "cached": 512, "output": 4000, "reasoning": 3500}
COUNTS = (3000, 512, None, 4000, 3500)


def test_a_streamed_retrieve_writes_the_parked_call_with_its_usage(stub, runs_dir):
    seen: list[str] = []

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        queued = client.responses.create(model="o3-pro", input="think", background=True, extra_body={"stub_usage": USAGE})
        for event in client.responses.retrieve(queued.id, stream=True):
            seen.append(event.type)
        return queued.id

    ep = noesis_nb.solve("streamed retrieve", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)
    assert seen == [
        "response.created",
        "response.queued",
        "response.in_progress",
        "response.output_text.delta",
        "response.completed",
    ]
    assert tokens(call) == COUNTS
    assert call["background"] is True and call["stop_reason"] == "completed" and "abandoned" not in call
    assert call["response_id"].startswith("resp_") and call["request_id"].startswith("req_")


def test_async_resumed_stream_helper_starting_after(stub, runs_dir):
    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        queued = await client.responses.create(model="o3-pro", input="think", background=True, extra_body={"stub_usage": USAGE})
        async with client.responses.stream(response_id=queued.id, starting_after=2) as events:
            kinds = [event.type async for event in events]
            final = await events.get_final_response()
        return [kinds, final.output_text]

    ep = asyncio.run(noesis_nb.solve_async("resumed stream", using=agent, runs_dir=runs_dir))
    (call,) = checked_calls(runs_dir, ep)
    assert tokens(call) == COUNTS and call["background"] is True and "abandoned" not in call
    assert noesis_nb.runs_df(runs_dir).loc[0, "status"] == "ok"


def test_a_streamed_retrieve_cut_before_the_end_leaves_the_call_waiting_for_a_poll(stub, runs_dir):
    ids: list[str] = []

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        queued = client.responses.create(model="o3-pro", input="think", background=True, extra_body={"stub_usage": USAGE})
        ids.append(queued.id)
        stub.script(f"/v1/responses/{queued.id}", Reply(cut_after=2))  # the connection drops mid-stream
        cut = [event.type for event in client.responses.retrieve(queued.id, stream=True)]
        done = client.responses.retrieve(queued.id)  # then polled: the response has ended
        return [cut, done.status]

    ep = noesis_nb.solve("cut stream", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)
    assert tokens(call) == COUNTS and "abandoned" not in call
    assert [body.get("query") for path, body in stub.requests if path == f"/v1/responses/{ids[0]}"] == [
        {"stream": "true"},
        {},
    ]


def test_raw_response_retrieves_end_the_parked_call_too(stub, runs_dir):
    done = {**USAGE, "polls": 0}  # ended at its first poll

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        statuses = []
        first = client.responses.create(model="o3-pro", input="a", background=True, extra_body={"stub_usage": done})
        statuses.append(client.responses.with_raw_response.retrieve(first.id).parse().status)
        second = client.responses.create(model="o3-pro", input="b", background=True, extra_body={"stub_usage": done})
        with client.responses.with_streaming_response.retrieve(second.id) as raw:
            statuses.append(raw.parse().status)
        third = client.responses.create(model="o3-pro", input="c", background=True, extra_body={"stub_usage": USAGE})
        with client.responses.with_streaming_response.retrieve(third.id, stream=True) as raw:
            statuses.append([event.type for event in raw.parse()][-1])
        return statuses

    ep = noesis_nb.solve("raw retrieves", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [tokens(call) for call in got] == [COUNTS] * 3
    assert all(call["background"] is True and "abandoned" not in call for call in got)
    assert len({call["response_id"] for call in got}) == 3


def test_async_raw_streamed_retrieve(stub, runs_dir):
    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        queued = await client.responses.create(model="o3-pro", input="think", background=True, extra_body={"stub_usage": USAGE})
        async with client.responses.with_streaming_response.retrieve(queued.id, stream=True) as raw:
            return [event.type async for event in await raw.parse()]

    ep = asyncio.run(noesis_nb.solve_async("async raw stream", using=agent, runs_dir=runs_dir))
    (call,) = checked_calls(runs_dir, ep)
    assert tokens(call) == COUNTS and "abandoned" not in call


@pytest.mark.parametrize("how", ["cut", "closed", "left open"])
def test_a_background_stream_resumed_with_starting_after_records_the_usage_once(stub, runs_dir, how):
    """``create(background=True, stream=True)`` whose stream stops before the end (the connection drops, the reader
    closes it or stops reading it), then ``retrieve(id, stream=True, starting_after=N)``: the final event's usage is
    the call's."""
    resumed: list[list[str]] = []

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        if how == "cut":
            stub.script("/v1/responses", Reply(cut_after=2))
        stream = client.responses.create(
            model="o3-pro", input="think", background=True, stream=True, extra_body={"stub_usage": USAGE}
        )
        first = []
        for event in stream:  # cut: the stream ends after its second event
            first.append(event)
            if len(first) == 2 and how != "cut":
                break
        if how == "closed":
            stream.close()
        response_id, last = first[0].response.id, first[-1].sequence_number
        resumed.append([e.type for e in client.responses.retrieve(response_id, stream=True, starting_after=last)])
        return response_id

    ep = noesis_nb.solve("resumed background stream", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)
    assert resumed == [["response.in_progress", "response.output_text.delta", "response.completed"]]
    assert tokens(call) == COUNTS
    assert call["background"] is True and call["stop_reason"] == "completed" and "abandoned" not in call
    assert call["streamed"] is True and call["response_id"].startswith("resp_")


def test_a_background_stream_left_unresumed_is_written_once_when_the_adapter_ends(stub, runs_dir):
    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stub.script("/v1/responses", Reply(cut_after=2))
        return [e.type for e in client.responses.create(model="o3-pro", input="x", background=True, stream=True)]

    ep = noesis_nb.solve("background stream left", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)
    assert tokens(call) == (None,) * 5 and call["abandoned"] is True
    assert "responses.retrieve" in call["abandoned_reason"]
