"""Model calls no run can hold, said instead of lost: a task (or a context-copying thread) the adapter leaves running
that calls the SDK after its episode ended (one ``CallAfterEpisode`` warning per episode, naming it, the provider and
model, and the fix), and a background response one episode left running that another retrieves to its end (one
``CallOfAnotherEpisode`` warning naming both). Real SDKs against the loopback provider."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.capture.late import CallAfterEpisode, CallOfAnotherEpisode

from .recorded_calls import checked_calls

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]


def _said(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, CallAfterEpisode)]


def test_calls_of_a_task_left_running_after_its_episode_are_one_warning_naming_it(stub: Any, runs_dir: Path) -> None:
    left: list[asyncio.Task[Any]] = []

    async def main() -> str:
        go = asyncio.Event()

        async def agent(task: str, ctx: Any) -> str:
            client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)

            async def later() -> None:
                await go.wait()
                await client.chat.completions.create(model="gpt-4o-mini", messages=MSG)
                stream = await client.chat.completions.create(
                    model="gpt-4o-mini", messages=MSG, stream=True, stream_options={"include_usage": True}
                )
                async for _ in stream:
                    pass

            left.append(asyncio.create_task(later()))
            return "returned at once"

        ep = await noesis_nb.solve_async("leaves a task", using=agent, runs_dir=runs_dir)
        go.set()
        await asyncio.gather(*left)
        return ep

    before = len(stub.requests)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ep = asyncio.run(main())
    assert len(stub.requests) == before + 2  # both calls reached the provider (billed)
    said = _said(caught)
    assert len(said) == 1, said  # once per episode
    assert ep in said[0] and "gpt-4o-mini" in said[0] and "began after episode" in said[0], said
    assert "await the task" in said[0]
    assert checked_calls(runs_dir, ep) == []  # the sealed run holds nothing of them


def test_a_call_of_a_thread_given_the_adapters_context_after_its_episode_is_said_too(stub: Any, runs_dir: Path) -> None:
    go = threading.Event()
    threads: list[threading.Thread] = []

    def agent(task: str, ctx: Any) -> str:
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)

        def later() -> None:
            go.wait(10)
            client.chat.completions.create(model="gpt-4o-mini", messages=MSG)

        thread = threading.Thread(target=contextvars.copy_context().run, args=(later,))
        thread.start()
        threads.append(thread)
        return "returned at once"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ep = noesis_nb.solve("leaves a thread", using=agent, runs_dir=runs_dir)
        go.set()
        threads[0].join(10)
    said = _said(caught)
    assert len(said) == 1 and ep in said[0] and "join the" in said[0], said


def test_a_background_response_retrieved_to_its_end_in_another_episode_is_one_warning_naming_both(
    stub: Any, runs_dir: Path
) -> None:
    """Episode A leaves a background response running (written abandoned, usage unknown, as documented); B retrieves
    it to ``completed``: B wrote nothing and said nothing. Now B says it saw the end of A's call, with its usage."""
    made: dict[str, str] = {}
    client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
    usage = {"input": 500, "cached": 0, "cache_write": 0, "output": 50, "reasoning": 0, "polls": 0}

    def creates(task: str, ctx: Any) -> int:
        made["id"] = client.responses.create(model="o4-mini", input="x", background=True, extra_body={"stub_usage": usage}).id
        return 1

    def retrieves(task: str, ctx: Any) -> str:
        return str(client.responses.retrieve(made["id"]).status)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = noesis_nb.solve("A", using=creates, runs_dir=runs_dir)
        b = noesis_nb.solve("B", using=retrieves, runs_dir=runs_dir)
        c = noesis_nb.solve("C", using=retrieves, runs_dir=runs_dir)
    said = [str(w.message) for w in caught if issubclass(w.category, CallOfAnotherEpisode)]
    assert len(said) == 1, said  # B's retrieve saw the end; C's is said for no more
    assert a in said[0] and b in said[0] and made["id"] in said[0] and "500 input and 50 output tokens" in said[0], said
    assert [p.get("abandoned") for p in checked_calls(runs_dir, a)] == [True]  # A's record, as documented
    assert checked_calls(runs_dir, b) == checked_calls(runs_dir, c) == []
