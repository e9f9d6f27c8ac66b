"""Awaitable calls of the handle and the context, made without ``await``: they say how to run them, or the
episode names them, instead of a plain coroutine shown or dropped in silence."""

from __future__ import annotations

import asyncio
import gc
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError, NotAwaitedError


async def _sleeps(task: str, ctx: Any) -> str:
    await asyncio.sleep(30)
    return "slept"


@pytest.mark.parametrize("call", ["wait", "settled", "stop"])
def test_a_handle_call_without_await_says_how_to_run_it_and_does_nothing(runs_dir: Path, call: str) -> None:
    async def main() -> tuple[str, list[str], str]:
        handle = noesis_nb.start("t", using=_sleeps, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pending = getattr(handle, call)()  # the cell's last line, no await
            shown = repr(pending)
            del pending
            gc.collect()
        status = handle.status  # nothing stopped, nothing waited
        await handle.stop(0)  # awaited, it still works
        return shown, [str(w.message) for w in caught if "never awaited" in str(w.message)], status

    shown, said, status = asyncio.run(main())
    named = f"handle.{call}({'…' if call == 'stop' else ''})"
    assert shown.startswith(f"<{named}: not started; write `await {named}`"), shown
    assert said == [f"{named} was never awaited, so nothing ran: write `await {named}`"], said
    assert status == "running"


def test_next_steer_async_without_await_says_how_to_run_it(runs_dir: Path) -> None:
    async def adapter(task: str, ctx: Any) -> str:
        steer = ctx.next_steer_async(0)  # no await: a coroutine, which reads as true
        shown = repr(steer)
        steer.close()
        return shown

    episode_id = noesis_nb.solve("t", using=adapter, runs_dir=runs_dir)
    assert noesis_nb.runs_df(runs_dir).set_index("episode_id").loc[episode_id, "status"] == "ok"
    outputs = [e for e in noesis_nb.events_df(runs_dir)["payload"].astype(str) if "not started; write" in e]
    assert outputs and "`await ctx.next_steer_async(…)`" in outputs[0], outputs


def test_the_deprecated_atool_never_awaited_is_named_as_tool_async_is(runs_dir: Path) -> None:
    async def adapter(task: str, ctx: Any) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            ctx.atool("fs.list", {"argv": ["python", "-c", "print('ran')"]})  # no await: the tool never runs
        return "done"

    async def main() -> Any:
        handle = noesis_nb.start("t", using=adapter, runs_dir=runs_dir)
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.status == "error"
    with pytest.raises(NotAwaitedError, match="never awaited, so the tool never ran"):
        handle.result()


def test_a_batch_wait_without_await_says_how_to_run_it(runs_dir: Path) -> None:
    async def echo(task: str, ctx: Any) -> str:
        return task

    async def main() -> str:
        handle = noesis_nb.batch(["a"], using=echo, root=runs_dir, batch_id="b1")
        pending = handle.wait()
        shown = repr(pending)
        await pending  # and awaited, it runs
        return shown

    assert asyncio.run(main()).startswith("<batch.wait(): not started; write `await batch.wait()`"), "no hint"


@pytest.mark.parametrize("call", ["subscribe", "on_change"])
def test_an_async_callback_is_refused_where_it_would_never_run(runs_dir: Path, call: str) -> None:
    seen: list[Any] = []

    async def on_event(item: Any) -> None:  # called, never awaited: it would record nothing
        seen.append(item)

    async def main() -> str:
        handle = noesis_nb.start("t", using=_sleeps, runs_dir=runs_dir)
        try:
            with pytest.raises(InvalidOptionError) as info:
                getattr(handle, call)(on_event)
            return str(info.value)
        finally:
            await handle.stop(0)

    message = asyncio.run(main())
    assert message.startswith(f"handle.{call}(") and "on_event" in message and "pass a plain def" in message, message
    assert seen == []


@pytest.mark.parametrize("call", ["subscribe", "on_change"])
def test_a_callback_that_raises_is_said_once_on_the_handle_and_the_episode_goes_on(runs_dir: Path, call: str) -> None:
    def on_item(item: Any) -> None:
        raise KeyError("payloud")  # a typo in the user's watcher

    async def main() -> Any:
        handle = noesis_nb.start("t", using=_sleeps, runs_dir=runs_dir)
        getattr(handle, call)(on_item)
        await asyncio.sleep(0.05)
        await handle.stop(0)
        return handle

    handle = asyncio.run(main())
    said = [p for p in handle.problems if "on_item" in p]
    assert said == [f"handle.{call}({on_item.__qualname__}) raised KeyError: 'payloud' (said once; it is still called)"]
    assert handle.status == "cancelled"


def test_an_on_change_callback_that_raises_is_called_once_per_change(runs_dir: Path) -> None:
    calls: list[str] = []

    def on_change(handle: Any) -> None:
        calls.append(handle.status)
        raise RuntimeError("boom")

    async def main() -> Any:
        handle = noesis_nb.start("t", using=_sleeps, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        handle.on_change(on_change)
        handle._episode.notify()  # one change
        await asyncio.sleep(0.05)  # and whatever saying its failure schedules
        counted = len(calls)
        await handle.stop(0)
        return handle, counted

    handle, counted = asyncio.run(main())
    assert counted == 1, calls
    assert [p for p in handle.problems if "boom" in p] != []


def test_a_subscriber_failing_on_the_adapters_thread_is_said_on_the_loops_thread(runs_dir: Path) -> None:
    """A sync adapter emits on its own thread; the listeners (views, on_change) still run on the episode's loop."""
    import threading
    import time

    def agent(task: str, ctx: Any) -> str:
        ctx.emit("reason", {"text": "working"})
        time.sleep(0.2)
        return "ok"

    def on_event(event: Any) -> None:
        if event.get("phase") == "reason":  # the event the adapter's thread writes
            raise KeyError("payloud")

    threads: list[str] = []

    async def main() -> Any:
        handle = noesis_nb.start("t", using=agent, runs_dir=runs_dir)
        handle.on_change(lambda h: threads.append(threading.current_thread().name) if h.problems else None)
        handle.subscribe(on_event)
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert [p for p in handle.problems if "on_event" in p] != []
    assert threads and set(threads) == {threading.main_thread().name}, threads


def test_a_callback_subscribed_twice_is_removed_by_one_unsubscribe(runs_dir: Path) -> None:
    seen: list[Any] = []
    go = asyncio.Event()

    async def agent(task: str, ctx: Any) -> str:
        await go.wait()
        ctx.emit("reason", {"text": "after the unsubscribe"})
        return "ok"

    def on_event(event: Any) -> None:
        seen.append(event)

    async def main() -> None:
        handle = noesis_nb.start("t", using=agent, runs_dir=runs_dir)
        await asyncio.sleep(0.05)
        unsubscribe = handle.subscribe(on_event)
        handle.subscribe(on_event)
        unsubscribe()
        go.set()
        await handle.wait()

    asyncio.run(main())
    assert seen == []
