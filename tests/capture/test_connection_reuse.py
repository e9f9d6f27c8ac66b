"""Capture leaves the SDK's HTTP path alone: a client's calls share one kept-alive connection, captured or not."""

from __future__ import annotations

import pytest

import noesis_nb

from .provider_stub import ProviderStub
from .recorded_calls import calls

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

MSG = [{"role": "user", "content": "hi"}]
CALLS = 5


@pytest.fixture
def keep_alive():
    server = ProviderStub(keep_alive=True)
    yield server
    server.close()


def _connections_used(stub: ProviderStub, runs_dir, capture: bool) -> int:
    before = stub.connections

    def agent(task, ctx):
        gpt = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        claude = anthropic.Anthropic(base_url=stub.url, api_key="sk-ant-test", max_retries=0)
        for _ in range(CALLS):
            gpt.chat.completions.create(model="gpt-4o-mini", messages=MSG)
            claude.messages.create(model="claude-sonnet-4-6", max_tokens=16, messages=MSG)
        return "ok"

    ep = noesis_nb.solve("reuse", using=agent, runs_dir=runs_dir, capture=capture)
    assert len(calls(runs_dir, ep)) == (2 * CALLS if capture else 0)
    return stub.connections - before


def test_captured_calls_reuse_the_clients_connections_as_uncaptured_ones_do(keep_alive, runs_dir):
    off = _connections_used(keep_alive, runs_dir, capture=False)
    on = _connections_used(keep_alive, runs_dir, capture=True)
    assert on == off == 2  # one connection per client, however many calls it makes


def test_async_captured_calls_reuse_one_connection(keep_alive, runs_dir):
    before = keep_alive.connections

    async def agent(task, ctx):
        async with openai.AsyncOpenAI(base_url=keep_alive.openai_url, api_key="sk-test", max_retries=0) as gpt:
            for _ in range(CALLS):
                await gpt.chat.completions.create(model="gpt-4o-mini", messages=MSG)
        return "ok"

    ep = noesis_nb.solve("reuse async", using=agent, runs_dir=runs_dir)
    assert len(calls(runs_dir, ep)) == CALLS
    assert keep_alive.connections - before == 1
