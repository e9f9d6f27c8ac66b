"""Background Responses (``background=True``): answered ``queued`` at once, billed when they end, which a later
``responses.retrieve`` (or ``cancel``) in the episode sees. The call is one event, written with its usage then."""

from __future__ import annotations

import asyncio
import json

import pytest

import noesis_nb

from .recorded_calls import checked_calls, tokens

openai = pytest.importorskip("openai")

USAGE = {"input": 5000, "cached": 1024, "output": 7000, "reasoning": 6400}


def _client(stub):
    return openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)


def test_a_background_response_polled_to_its_end_is_one_event_with_its_usage(stub, runs_dir):
    statuses: list[str] = []

    def agent(task, ctx):
        client = _client(stub)
        queued = client.responses.create(
            model="o3-pro", input="think", background=True, extra_body={"stub_usage": {**USAGE, "polls": 2}}
        )
        statuses.append(queued.status)
        response = queued
        while response.status in ("queued", "in_progress"):
            response = client.responses.retrieve(queued.id)
            statuses.append(response.status)
        return response.output_text

    ep = noesis_nb.solve("background", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    # the SDK's answers are its own: queued, polled twice in progress, then completed
    assert statuses == ["queued", "in_progress", "in_progress", "completed"]
    assert len(got) == 1, "the retrieves are no calls of their own"
    (call,) = got
    assert tokens(call) == (5000, 1024, None, 7000, 6400)
    assert call["stop_reason"] == "completed" and call["background"] is True and "abandoned" not in call
    assert call["response_id"].startswith("resp_") and call["request_id"].startswith("req_")
    create_request = stub.requests[0]
    assert create_request[0] == "/v1/responses" and create_request[1]["background"] is True
    usage = noesis_nb.usage_df(runs_dir, episodes=ep)
    assert usage["input_tokens"].tolist() == [5000] and usage["output_tokens"].tolist() == [7000]


def test_async_clients_and_a_cancelled_background_response(stub, runs_dir):
    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        done = await client.responses.create(model="o3-pro", input="a", background=True, extra_body={"stub_usage": USAGE})
        dropped = await client.responses.create(model="o3-pro", input="b", background=True, extra_body={"stub_usage": USAGE})
        cancelled = await client.responses.cancel(dropped.id)
        while done.status != "completed":
            done = await client.responses.retrieve(done.id)
        return cancelled.status

    ep = noesis_nb.solve("async background", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    by_reason = {c["stop_reason"]: c for c in got}
    assert sorted(by_reason) == ["cancelled", "completed"]
    # the cancelled one ended when the cancel answered (no usage in its answer: unknown), the other when polled
    assert tokens(by_reason["cancelled"]) == (None, None, None, None, None)
    assert tokens(by_reason["completed"]) == (5000, 1024, None, 7000, 6400)
    assert all(c["background"] is True and "abandoned" not in c for c in got)


def test_a_background_response_never_seen_to_end_is_written_when_the_adapter_returns(stub, runs_dir):
    def agent(task, ctx):
        client = _client(stub)
        queued = client.responses.create(model="o3-pro", input="x", background=True, extra_body={"stub_usage": USAGE})
        with pytest.raises(openai.NotFoundError):  # another response's id: the SDK's own error, and nothing written
            client.responses.retrieve("resp_unknown000000000000000000")
        assert client.responses.retrieve(queued.id).status == "in_progress"
        return "left running"

    ep = noesis_nb.solve("left in background", using=agent, runs_dir=runs_dir)
    (call,) = checked_calls(runs_dir, ep)
    assert call["abandoned"] is True and "background" in call["abandoned_reason"]
    assert tokens(call) == (None, None, None, None, None) and call["background"] is True
    assert call["stop_reason"] is None


def test_two_concurrent_episodes_each_end_only_their_own_background_response(stub, runs_dir):
    first_usage = {**USAGE, "input": 111, "output": 222, "reasoning": 0, "cached": 0}
    second_usage = {**USAGE, "input": 333, "output": 444, "reasoning": 0, "cached": 0}
    ids: dict[str, str] = {}
    both_queued = asyncio.Event()

    def agent_for(name, usage):
        async def agent(task, ctx):
            client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
            queued = await client.responses.create(model="o3-pro", input=name, background=True, extra_body={"stub_usage": usage})
            ids[name] = queued.id
            if len(ids) == 2:
                both_queued.set()
            await both_queued.wait()
            other = ids["second" if name == "first" else "first"]
            while (await client.responses.retrieve(other)).status != "completed":  # polls the other episode's
                pass
            mine = await client.responses.retrieve(queued.id)
            while mine.status != "completed":
                mine = await client.responses.retrieve(queued.id)
            return name

        return agent

    async def main():
        return await asyncio.gather(
            noesis_nb.solve_async("first", using=agent_for("first", first_usage), runs_dir=runs_dir),
            noesis_nb.solve_async("second", using=agent_for("second", second_usage), runs_dir=runs_dir),
        )

    first, second = asyncio.run(main())
    (one,) = checked_calls(runs_dir, first)
    (two,) = checked_calls(runs_dir, second)
    assert (one["response_id"], one["input_tokens"], one["output_tokens"]) == (ids["first"], 111, 222)
    assert (two["response_id"], two["input_tokens"], two["output_tokens"]) == (ids["second"], 333, 444)


def test_a_graceful_stop_does_not_wait_for_a_response_running_at_the_provider(stub, runs_dir):
    queued = asyncio.Event()

    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        await client.responses.create(model="o3-pro", input="x", background=True, extra_body={"stub_usage": USAGE})
        queued.set()
        await asyncio.Event().wait()  # (polls later, never reached: the stop comes first)

    async def main():
        handle = noesis_nb.start("stopped while it runs there", using=agent, runs_dir=runs_dir)
        await queued.wait()
        assert handle.cancel(drain_s=2)
        return handle, await handle.stop()

    handle, report = asyncio.run(main())
    # nothing was in flight here: the stop settles at once instead of waiting out its deadline and cutting the call off
    assert report.reason == "settled"
    drain = [
        e["payload"] for e in map(json.loads, (handle.run_dir / "events.jsonl").read_text().splitlines()) if e["phase"] == "drain"
    ]
    assert drain[0]["event_name"] == "drain.started" and drain[0]["in_flight"] == []
    (call,) = checked_calls(runs_dir, handle.episode_id)
    assert call["abandoned"] is True and "background" in call["abandoned_reason"]


def test_a_stop_begun_while_the_background_request_is_sent_reports_it_as_background(stub, runs_dir):
    from .provider_stub import Reply

    stub.script("/v1/responses", Reply(delay=0.5))  # the stop comes while the create is on the wire
    queued = asyncio.Event()

    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        await client.responses.create(model="o3-pro", input="x", background=True, extra_body={"stub_usage": USAGE})
        queued.set()
        await asyncio.Event().wait()

    async def main():
        hits = stub.hits("/v1/responses")
        handle = noesis_nb.start("stopped while it is sent", using=agent, runs_dir=runs_dir)
        while stub.hits("/v1/responses") <= hits:
            await asyncio.sleep(0.01)
        assert handle.cancel(drain_s=20)
        return handle, await handle.stop()

    handle, report = asyncio.run(main())
    assert report.reason == "settled"
    (row,) = [c for c in report.finished if c["kind"] == "model"]
    # the provider took it: not an ok call whose usage is known, and not counted in the drain's totals
    assert row["status"] == "background" and row["event_id"] is None
    assert report.usage["model_calls"] == 0 and report.cost_usd == 0.0
    (call,) = checked_calls(runs_dir, handle.episode_id)
    assert call["abandoned"] is True and call["background"] is True
