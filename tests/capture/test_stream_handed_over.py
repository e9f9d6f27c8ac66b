"""A stream one asyncio task (or thread) opens and another reads: the reader's own report of it is that call, one event,
never two; a third task's report is still written apart. Real SDKs against the loopback provider."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from .recorded_calls import checked_calls, model_event_ids

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]


def _async_client(stub: Any) -> Any:
    return openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)


@pytest.mark.parametrize("read_to_end", [False, True], ids=["reported-while-open", "reported-after-its-end"])
def test_a_stream_opened_in_one_task_and_reported_by_the_task_reading_it_is_one_call(
    stub: Any, runs_dir: Path, read_to_end: bool
) -> None:
    ids: list[str] = []

    async def agent(task: str, ctx: Any) -> str:
        client = _async_client(stub)
        handed: asyncio.Queue[Any] = asyncio.Queue()

        async def opener() -> None:
            await handed.put(await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True))

        async def reader() -> None:
            stream = await handed.get()
            async for chunk in stream:  # no usage chunk: the counts stay unknown
                if not read_to_end and chunk.choices and chunk.choices[0].finish_reason:
                    break  # [DONE] not read yet: the stream is still open at the report
            ids.append(ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=11, output_tokens=3))
            await stream.close()

        await asyncio.gather(opener(), reader())
        return "done"

    ep = noesis_nb.solve("handed over", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    # before: two events, the captured stream and the reader's estimate of it
    assert [(p.get("capture"), p.get("streamed")) for p in got] == [("openai", True)]
    assert ids == model_event_ids(runs_dir, ep)


def test_a_stream_opened_in_one_thread_and_reported_by_the_thread_reading_it_is_one_call(stub: Any, runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        import contextvars

        stream = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=MSG, stream=True
        )

        def read() -> None:
            for chunk in stream:
                if chunk.choices and chunk.choices[0].finish_reason:
                    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=11, output_tokens=3)
                    break
            stream.close()

        worker = threading.Thread(target=contextvars.copy_context().run, args=(read,))
        worker.start()
        worker.join()
        return "done"

    ep = noesis_nb.solve("handed to a thread", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p.get("capture"), p["input_tokens"], p["output_tokens"]) for p in got] == [("openai", 11, 3)]


def test_the_opener_reporting_while_another_task_reads_is_written_apart(stub: Any, runs_dir: Path) -> None:
    async def agent(task: str, ctx: Any) -> str:
        client = _async_client(stub)
        stream = await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, stream=True)
        first = asyncio.Event()
        reported = asyncio.Event()

        async def read() -> None:
            async for _ in stream:
                first.set()
                await reported.wait()

        reading = asyncio.create_task(read())
        await first.wait()
        ctx.model_call("gpt-4o-mini", input_tokens=40, output_tokens=9)  # the opener's: the stream is another task's now
        reported.set()
        await reading
        return "done"

    ep = noesis_nb.solve("opener reports meanwhile", using=agent, runs_dir=runs_dir)
    got = checked_calls(runs_dir, ep)
    assert [(p.get("capture"), p["input_tokens"]) for p in got] == [(None, 40), ("openai", None)]
