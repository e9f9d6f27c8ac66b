"""The real ``openai`` and ``anthropic`` clients against a loopback server: each call is one exact ``model.call`` event."""

from __future__ import annotations

import asyncio
import json

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

from .provider_stub import Reply
from .recorded_calls import calls, tokens

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

MSG = [{"role": "user", "content": "hi"}]


def test_every_api_sync_streamed_or_not_is_one_event_with_its_exact_tokens(stub, runs_dir):
    usage = {"input": 2048, "cached": 1536, "output": 333, "reasoning": 200}
    extra = {"stub_usage": usage}
    claude = {"uncached": 120, "cache_read": 4000, "cache_write": 700, "output": 55}

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body=extra)
        chunks = client.chat.completions.create(
            model="gpt-4o-mini", messages=MSG, stream=True, stream_options={"include_usage": True}, extra_body=extra
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        client.responses.create(model="o4-mini", input="hi", extra_body=extra)
        with client.responses.stream(model="o4-mini", input="hi", extra_body=extra) as events:
            final = events.get_final_response()
        claude_client = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        message = claude_client.messages.create(
            model="claude-sonnet-4-6", max_tokens=64, messages=MSG, extra_body={"stub_usage": claude}
        )
        with claude_client.messages.stream(
            model="claude-sonnet-4-6", max_tokens=64, messages=MSG, extra_body={"stub_usage": claude}
        ) as stream:
            streamed = stream.get_final_message()
        return [text, final.usage.input_tokens, message.usage.input_tokens, streamed.usage.output_tokens]

    ep = noesis_nb.solve("every api", using=agent, runs_dir=runs_dir)
    got = calls(runs_dir, ep)
    openai_counts = (2048, 1536, None, 333, 200)  # OpenAI reports no cache writes: unknown, not 0
    claude_counts = (120 + 4000 + 700, 4000, 700, 55, None)  # Anthropic's input_tokens is the uncached part only
    assert [(p["api"], p["streamed"], tokens(p)) for p in got] == [
        ("chat.completions", False, openai_counts),
        ("chat.completions", True, openai_counts),
        ("responses", False, openai_counts),
        ("responses", True, openai_counts),
        ("messages", False, claude_counts),
        ("messages", True, claude_counts),
    ]
    assert [p["provider"] for p in got] == ["openai"] * 4 + ["anthropic"] * 2
    assert [p["stop_reason"] for p in got] == ["stop", "stop", "completed", "completed", "end_turn", "end_turn"]
    assert all(p["request_id"].startswith("req_") and p["latency_ms"] > 0 for p in got)
    assert len({p["request_id"] for p in got}) == 6
    assert got[0]["model"] == "gpt-4o-mini-2024-07-18" and got[0]["requested_model"] == "gpt-4o-mini"
    # what the SDK handed the agent is untouched
    result = noesis_nb.runs_df(runs_dir).iloc[0]
    assert result["status"] == "ok"


def test_async_clients_and_a_chat_stream_without_usage(stub, runs_dir):
    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        pieces = [c.choices[0].delta.content async for c in stream if c.choices]
        claude = anthropic.AsyncAnthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        message = await claude.messages.create(model="claude-haiku-4-5", max_tokens=10, messages=MSG)
        async with claude.messages.stream(model="claude-haiku-4-5", max_tokens=10, messages=MSG) as events:
            async for _ in events:
                pass
        return "".join(p or "" for p in pieces), message.content[0].text

    ep = noesis_nb.solve("async", using=agent, runs_dir=runs_dir)
    got = calls(runs_dir, ep)
    assert [(p["api"], p["streamed"]) for p in got] == [("chat.completions", True), ("messages", False), ("messages", True)]
    # a chat stream without stream_options.include_usage carries no usage: every count unknown
    assert tokens(got[0]) == (None,) * 5 and got[0]["stop_reason"] == "stop"
    assert tokens(got[1]) == tokens(got[2]) == (1500, 1000, 300, 80, None)


def test_retries_are_one_call_and_a_failure_is_recorded_with_its_error_and_no_tokens(stub, runs_dir):
    stub.script("/v1/chat/completions", Reply(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "1"}))
    stub.script(
        "/v1/messages", *[Reply(529, {"type": "error", "error": {"type": "overloaded_error"}}, {"retry-after-ms": "1"})] * 3
    )
    before_chat, before_messages = stub.hits("/v1/chat/completions"), stub.hits("/v1/messages")
    seen = {}

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=2)
        seen["ok"] = client.chat.completions.create(model="gpt-4o-mini", messages=MSG).usage.prompt_tokens
        try:
            anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=2).messages.create(
                model="claude-sonnet-4-6", max_tokens=5, messages=MSG
            )
        except anthropic.APIStatusError as exc:
            seen["error"] = (type(exc), exc.status_code)
        return "done"

    ep = noesis_nb.solve("retries", using=agent, runs_dir=runs_dir)
    assert stub.hits("/v1/chat/completions") - before_chat == 2  # one 429, then the answer
    assert stub.hits("/v1/messages") - before_messages == 3  # three 529s: the SDK gave up
    assert seen["error"] == (anthropic.OverloadedError, 529)  # the SDK's own exception reached the agent
    ok, failed = calls(runs_dir, ep)
    assert tokens(ok) == (1200, 1000, None, 90, 64) and "error" not in ok
    assert tokens(failed) == (None,) * 5
    assert failed["error"]["type"] == "OverloadedError" and failed["error"]["status_code"] == 529
    assert failed["request_id"].startswith("req_") and failed["model"] == "claude-sonnet-4-6"


def test_a_stream_dropped_early_is_recorded_with_what_is_known(stub, runs_dir):
    def agent(task, ctx):
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        stream = claude.messages.create(model="claude-sonnet-4-6", max_tokens=5, messages=MSG, stream=True)
        for event in stream:
            if event.type == "content_block_start":
                break  # the agent has seen enough
        stream.close()
        del stream
        chat = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        kept = chat.chat.completions.create(
            model="gpt-4o-mini", messages=MSG, stream=True, stream_options={"include_usage": True}
        )
        next(iter(kept))
        ctx.emit("note", {"kept": "open when the adapter returns"})
        return kept  # still open after the adapter ends: recorded when the adapter returns

    ep = noesis_nb.solve("abandon", using=agent, runs_dir=runs_dir)
    dropped, kept = calls(runs_dir, ep)
    assert dropped["abandoned"] is True and dropped["streamed"] is True
    # message_start told the input; the output was never reported
    assert tokens(dropped) == (1500, 1000, 300, None, None)
    assert kept["abandoned"] is True and tokens(kept) == (None,) * 5 and kept["response_id"] == kept["response_id"]


def test_two_concurrent_episodes_get_only_their_own_calls_and_calls_outside_are_not_recorded(stub, runs_dir):
    def make(n):
        async def agent(task, ctx):
            client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
            for _ in range(5):
                await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": {"input": n}})
                await asyncio.sleep(0.001)
            return n

        return agent

    def sync_agent(task, ctx):  # a sync adapter runs on its own thread: capture follows it there
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        for _ in range(5):
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": {"input": 3003}})
        return 3003

    async def main():
        outside = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        handles = [noesis_nb.start(f"ep {n}", using=make(n), runs_dir=runs_dir) for n in (1001, 2002)]
        handles.append(noesis_nb.start("sync", using=sync_agent, runs_dir=runs_dir))
        for _ in range(5):  # the notebook's own calls while the episodes run: nobody's
            await outside.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": {"input": 9009}})
        for h in handles:
            await h
        return handles

    handles = asyncio.run(main())
    for handle, n in zip(handles, (1001, 2002, 3003)):
        got = calls(runs_dir, handle.episode_id)
        assert [p["input_tokens"] for p in got] == [n] * 5, handle.episode_id


def test_capture_false_the_environment_switch_and_an_unknown_option(stub, runs_dir, monkeypatch):
    def agent(task, ctx):
        openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=MSG
        )
        return "ok"

    off = noesis_nb.solve("off", using=agent, runs_dir=runs_dir, capture=False)
    assert calls(runs_dir, off) == []
    monkeypatch.setenv("NOESIS_NB_CAPTURE", "0")
    assert calls(runs_dir, noesis_nb.solve("env off", using=agent, runs_dir=runs_dir)) == []
    assert len(calls(runs_dir, noesis_nb.solve("on anyway", using=agent, runs_dir=runs_dir, capture=True))) == 1
    monkeypatch.setenv("NOESIS_NB_CAPTURE", "maybe")
    with pytest.raises(InvalidOptionError, match="NOESIS_NB_CAPTURE='maybe'"):
        noesis_nb.solve("bad env", using=agent, runs_dir=runs_dir)
    with pytest.raises(InvalidOptionError, match="capture='yes'"):
        noesis_nb.solve("bad value", using=agent, runs_dir=runs_dir, capture="yes")
    with pytest.raises(InvalidOptionError, match="unknown option"):
        noesis_nb.solve("typo", using=agent, runs_dir=runs_dir, captures=False)


def test_a_manual_model_call_for_a_captured_call_is_not_counted_twice(stub, runs_dir):
    returned = {}

    def agent(task, ctx):
        client = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        first = client.messages.create(model="claude-sonnet-4-6", max_tokens=5, messages=MSG)
        # the author re-types what the response says (Anthropic's input_tokens is the uncached part)
        returned["same"] = ctx.model_call(
            "claude-sonnet-4-6",
            provider="anthropic",
            input_tokens=first.usage.input_tokens,
            output_tokens=first.usage.output_tokens,
        )
        second = client.messages.create(model="claude-sonnet-4-6", max_tokens=5, messages=MSG)
        # by its id, the counts left out (counts that contradict the captured ones would make it another call)
        returned["by_id"] = ctx.model_call("claude-sonnet-4-6", request_id=second._request_id)
        returned["other"] = ctx.model_call("gpt-4o", provider="openai", input_tokens=10, output_tokens=2)  # capture never saw it
        returned["again"] = ctx.model_call("claude-sonnet-4-6", provider="anthropic", input_tokens=200, output_tokens=80)
        return "ok"

    ep = noesis_nb.solve("manual", using=agent, runs_dir=runs_dir)
    events = [json.loads(line) for line in (runs_dir / ep / "events.jsonl").read_text().splitlines()]
    model = [e for e in events if e["phase"] == "model"]
    # two captured calls; the unknown call; and a repeat once both captured calls were matched is a new call
    assert [(e["payload"].get("capture"), e["payload"]["input_tokens"]) for e in model] == [
        ("anthropic", 1500),
        ("anthropic", 1500),
        (None, 10),
        (None, 200),
    ]
    assert [returned[k] for k in ("same", "by_id", "other", "again")] == [e["id"] for e in model]


def test_usage_df_prices_captured_calls_like_genai_prices(stub, runs_dir):
    genai_prices = pytest.importorskip("genai_prices")

    def agent(task, ctx):
        openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": {"input": 5000, "cached": 3000, "output": 700}}
        )
        anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0).messages.create(
            model="claude-sonnet-4-6", max_tokens=5, messages=MSG
        )
        return "ok"

    noesis_nb.solve("priced", using=agent, runs_dir=runs_dir)
    df = noesis_nb.usage_df(runs_dir)
    assert list(df["provider"]) == ["openai", "anthropic"]
    for row, (inp, cached, written, out) in zip(df.itertuples(), ((5000, 3000, 0, 700), (1500, 1000, 300, 80))):
        expected = genai_prices.calc_price(
            genai_prices.Usage(input_tokens=inp, cache_read_tokens=cached, cache_write_tokens=written, output_tokens=out),
            model_ref=row.model,
            provider_id=row.provider,
        )
        assert row.cost_usd == pytest.approx(float(expected.total_price), rel=1e-9)


def test_a_long_episode_keeps_no_more_tracked_objects_per_call_than_its_event(stub, runs_dir):
    """Each captured call may leave its event dict alive (its payload, of plain values, and its empty evidence are
    untracked): nothing else the garbage collector tracks, since every object that lives on makes each full
    collection of the whole process slower."""
    import gc

    grown = {}

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        for _ in range(5):  # warm: first-call caches of the SDKs and of the screening
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
            claude.messages.create(model="claude-sonnet-4-6", max_tokens=8, messages=MSG)
        stub.requests.clear()  # the stub's own log of what it was sent
        gc.collect()
        before = len(gc.get_objects())
        for _ in range(100):
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
            claude.messages.create(model="claude-sonnet-4-6", max_tokens=8, messages=MSG)
        stub.requests.clear()
        gc.collect()
        grown["objects"] = len(gc.get_objects()) - before
        return "ok"

    episode = noesis_nb.solve("many calls", using=agent, runs_dir=runs_dir)
    assert len(calls(runs_dir, episode)) == 210
    assert grown["objects"] <= 2 * 200 + 40, f"{grown['objects']} tracked objects for 200 calls"  # an event, its evidence list
