"""A ``request`` set on one client instance (a library's tracer, ``mock.patch.object``) against the loopback provider.

The SDK's own ``request`` is reached through ``inspect.unwrap``, as a library that unwraps to the real method does:
such a replacement calls the provider without the class's wrapped ``request``. A call that reaches the provider is
one event with its counts; a replacement that answers by itself is no model call.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

import noesis_nb
from noesis_nb.capture import ensure_installed

from .recorded_calls import calls, tokens

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

MSG = [{"role": "user", "content": "hi"}]
USAGE = {"input": 700, "cached": 200, "output": 40, "reasoning": 10}
CLAUDE = {"uncached": 30, "cache_read": 500, "cache_write": 20, "output": 9}


def traced(client, seen):
    """A tracer's replacement of ``client.request``: notes each call, then runs the SDK's own method."""
    sdk_request = inspect.unwrap(type(client).request)

    def request(*args, **kwargs):
        seen.append("sync")
        return sdk_request(client, *args, **kwargs)

    async def arequest(*args, **kwargs):
        seen.append("async")
        return await sdk_request(client, *args, **kwargs)

    return arequest if inspect.iscoroutinefunction(sdk_request) else request


def test_a_request_set_on_an_instance_is_recorded_once_with_its_counts(stub, runs_dir):
    ensure_installed()  # a process that ran an episode before: the tracer is set after capture was installed
    seen: list[str] = []

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        client.request = traced(client, seen)
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": USAGE})
        chunks = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=MSG,
            stream=True,
            stream_options={"include_usage": True},
            extra_body={"stub_usage": USAGE},
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        claude.request = traced(claude, seen)
        claude.messages.create(model="claude-haiku-4-5", max_tokens=8, messages=MSG, extra_body={"stub_usage": CLAUDE})
        return text

    ep = noesis_nb.solve("instance patch", using=agent, runs_dir=runs_dir)
    got = calls(runs_dir, ep)
    assert seen == ["sync"] * 3  # every call went through the replacement
    assert [(p["api"], p["streamed"], tokens(p)) for p in got] == [
        ("chat.completions", False, (700, 200, None, 40, 10)),
        ("chat.completions", True, (700, 200, None, 40, 10)),
        ("messages", False, (30 + 500 + 20, 500, 20, 9, None)),
    ]
    assert len({p["request_id"] for p in got}) == 3


def test_async_clients_patched_on_the_instance(stub, runs_dir):
    ensure_installed()
    seen: list[str] = []

    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        client.request = traced(client, seen)
        await client.responses.create(model="o4-mini", input="hi", extra_body={"stub_usage": USAGE})
        claude = anthropic.AsyncAnthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        claude.request = traced(claude, seen)
        async with claude.messages.stream(
            model="claude-haiku-4-5", max_tokens=8, messages=MSG, extra_body={"stub_usage": CLAUDE}
        ) as events:
            async for _ in events:
                pass
        return "ok"

    ep = asyncio.run(noesis_nb.solve_async("async instance patch", using=agent, runs_dir=runs_dir))
    got = calls(runs_dir, ep)
    assert seen == ["async"] * 2
    assert [(p["api"], p["streamed"], tokens(p)) for p in got] == [
        ("responses", False, (700, 200, None, 40, 10)),
        ("messages", True, (30 + 500 + 20, 500, 20, 9, None)),
    ]


def test_a_wrapper_of_the_captured_method_is_one_event_and_a_canned_answer_none(stub, runs_dir):
    ensure_installed()
    sent_before = stub.hits("/v1/chat/completions")

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        captured = client.request  # the class's method, wrapped by capture
        client.request = lambda *a, **k: captured(*a, **k)
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": USAGE})
        canned = client.chat.completions.create(model="gpt-4o-mini", messages=MSG)  # a real answer, kept
        other = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        with mock.patch.object(other, "request", return_value=canned):  # never reaches the provider
            assert other.chat.completions.create(model="gpt-4o-mini", messages=MSG) is canned
        with mock.patch.object(other, "request", wraps=inspect.unwrap(type(other).request).__get__(other)):
            other.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": USAGE})
        other.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body={"stub_usage": USAGE})
        return "ok"

    ep = noesis_nb.solve("wrappers", using=agent, runs_dir=runs_dir)
    got = calls(runs_dir, ep)
    assert stub.hits("/v1/chat/completions") - sent_before == 4
    # one event per request the provider answered: none for the mock's canned answer, none twice
    assert [tokens(p) for p in got] == [(700, 200, None, 40, 10), (1200, 1000, None, 90, 64)] + [(700, 200, None, 40, 10)] * 2
    assert len({p["request_id"] for p in got}) == 4


def test_errors_and_retries_through_an_instance_patch_are_one_failed_call(stub, runs_dir):
    from .provider_stub import Reply

    ensure_installed()
    stub.script("/v1/chat/completions", Reply(status=500), Reply(status=400, body={"error": {"message": "bad"}}))

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=1)
        client._sleep_for_retry = lambda **kw: None  # no back-off wait between the two attempts
        client.request = traced(client, [])
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        return "ok"

    ep = noesis_nb.solve("errors", using=agent, runs_dir=runs_dir)
    (got,) = calls(runs_dir, ep)
    assert got["error"]["type"] == "BadRequestError" and got["error"]["status_code"] == 400
    assert tokens(got) == (None,) * 5


def test_a_vertex_client_patched_on_the_instance_is_named_by_its_request(stub, runs_dir):
    """``AnthropicVertex`` sends ``messages.create`` to the platform's own path (``…/models/{model}:rawPredict``); the
    call is still a Messages call of that model, patched or not, and is priced at Vertex's rate."""
    ensure_installed()
    vertex_model = "claude-3-5-sonnet-v2@20241022"

    def agent(task, ctx):
        for patched in (False, True):
            client = anthropic.AnthropicVertex(
                region="us-east5", project_id="p1", access_token="tok", base_url=stub.url + "/v1", max_retries=0
            )
            if patched:
                client.request = traced(client, [])
            client.messages.create(model=vertex_model, max_tokens=8, messages=MSG, extra_body={"stub_usage": CLAUDE})
        return "ok"

    ep = noesis_nb.solve("vertex", using=agent, runs_dir=runs_dir)
    got = calls(runs_dir, ep)
    assert [(p["api"], p["requested_model"], tokens(p)) for p in got] == [
        ("messages", vertex_model, (30 + 500 + 20, 500, 20, 9, None))
    ] * 2
    assert stub.hits(f"/v1/projects/p1/locations/us-east5/publishers/anthropic/models/{vertex_model}:rawPredict") >= 2
    priced = noesis_nb.usage_df(runs_dir, episodes=ep)
    assert priced["priced"].all() and set(priced["price_source"]) == {"genai-prices:google/claude-3-5-sonnet"}


_FRESH_PROCESS = """
import json, sys
import anthropic, openai
url, runs = sys.argv[1], sys.argv[2]
# a notebook's first cells: clients made and traced before any episode ran (capture not installed yet)
client = openai.OpenAI(base_url=url + "/v1", api_key="sk-test", max_retries=0)
sdk_request = client.request
client.request = lambda *a, **k: sdk_request(*a, **k)
claude = anthropic.Anthropic(base_url=url, api_key="sk-ant-test", max_retries=0)
claude_request = claude.request
claude.request = lambda *a, **k: claude_request(*a, **k)

import noesis_nb

def agent(task, ctx):
    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}],
                                   extra_body={"stub_usage": {"input": 700, "cached": 200, "output": 40, "reasoning": 10}})
    claude.messages.create(model="claude-haiku-4-5", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
    return "ok"

print(noesis_nb.solve("traced before the first episode", using=agent, runs_dir=runs))
"""


def test_clients_traced_before_capture_was_installed_are_recorded(stub, runs_dir):
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS, stub.url, str(runs_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )
    assert done.returncode == 0, done.stderr
    got = calls(runs_dir, done.stdout.strip())
    assert [(p["api"], tokens(p)) for p in got] == [
        ("chat.completions", (700, 200, None, 40, 10)),
        ("messages", (200 + 1000 + 300, 1000, 300, 80, None)),
    ]
