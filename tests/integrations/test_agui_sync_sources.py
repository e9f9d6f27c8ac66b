"""A plain (sync) AG-UI source never holds the event loop: its events are read on a thread, before RUN_FINISHED as
after it, and a plain function called for its events runs there too. Each source below blocks until a task on the
episode's own loop releases it: read on the loop, that task could never run and the source would give up blocked."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

pytest.importorskip("ag_ui.core")

from noesis_nb import start
from noesis_nb.integrations.agui import AGUIAdapter

START = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
END = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}
GIVE_UP_S = 5.0  # how long a source blocks before it gives up (only when its loop never released it)
WHO = contextvars.ContextVar("who", default="nobody")


def _text(text: str) -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    ]


async def _released_by_the_loop(agent: Any, blocked: threading.Event, release: threading.Event, runs: Any) -> Any:
    """Start the episode, and from a task on the same loop release the source once it is blocked."""

    async def releaser() -> None:
        while not blocked.is_set():
            await asyncio.sleep(0.01)
        release.set()

    WHO.set("the cell")
    handle = start("hi", using=AGUIAdapter(agent), runs_dir=runs)
    helper = asyncio.ensure_future(releaser())
    await asyncio.wait_for(handle, 20)
    helper.cancel()
    return handle


def test_a_generator_blocked_before_run_finished_leaves_the_loop_free(tmp_path: Any) -> None:
    blocked, release = threading.Event(), threading.Event()

    def agent(run_input: Any) -> Any:
        yield START
        blocked.set()
        released = release.wait(GIVE_UP_S)  # a sync reader waiting for the server's next event
        yield from _text(f"{'released' if released else 'never released'} for {WHO.get()}")
        yield END

    handle = asyncio.run(_released_by_the_loop(agent, blocked, release, tmp_path / "runs"))
    assert handle.status == "ok"
    assert handle.result() == "released for the cell"  # read on a thread, in the episode's context


def test_a_plain_function_blocked_before_its_events_leaves_the_loop_free(tmp_path: Any) -> None:
    blocked, release = threading.Event(), threading.Event()

    def agent(run_input: Any) -> Any:  # a sync client connecting before it returns the events it read
        blocked.set()
        released = release.wait(GIVE_UP_S)
        return iter([START, *_text("released" if released else "never released"), END])

    handle = asyncio.run(_released_by_the_loop(agent, blocked, release, tmp_path / "runs"))
    assert handle.status == "ok" and handle.result() == "released"


def test_a_generator_left_early_is_closed_on_its_thread(tmp_path: Any) -> None:
    """A source that breaks the protocol mid-stream ends the run; its generator is closed (its finally runs),
    on the reader's thread, not on the loop."""
    closed: list[str] = []

    def agent(run_input: Any) -> Any:
        try:
            yield START
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"}  # no START: refused
            yield END
        finally:
            closed.append(threading.current_thread().name)

    async def main() -> Any:
        handle = start("hi", using=AGUIAdapter(agent), runs_dir=tmp_path / "runs")
        await asyncio.wait_for(handle, 20)
        for _ in range(200):  # the thread closes it once the loop has let the stream go
            if closed:
                break
            await asyncio.sleep(0.01)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "error"
    assert closed == ["noesis_nb-agui-stream"]


def test_a_fast_generator_is_read_whole_and_in_order(tmp_path: Any) -> None:
    """Read one event at a time on its thread, a generator of 2,000 pieces gives them all, in order, once."""
    pieces = [f"{i} " for i in range(2000)]

    def agent(run_input: Any) -> Any:
        yield START
        yield {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}
        for piece in pieces:
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": piece}
        yield {"type": "TEXT_MESSAGE_END", "messageId": "m1"}
        yield END

    async def main() -> Any:
        handle = start("hi", using=AGUIAdapter(agent), runs_dir=tmp_path / "runs")
        await asyncio.wait_for(handle, 60)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == "".join(pieces)


def test_a_generator_runs_no_step_past_the_event_that_ended_the_run(tmp_path: Any) -> None:
    """Each step of a sync generator may act (a server-side tool, a paid call): it is read only when asked for, so
    once an event ends the run, no further step runs and no event is read only to be dropped."""
    stepped: list[int] = []
    closed = threading.Event()

    def agent(run_input: Any) -> Any:
        try:
            yield START
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"}  # no START: the run ends error
            for i in range(200):
                stepped.append(i)
                yield {"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant"}
        finally:
            closed.set()

    async def main() -> Any:
        handle = start("hi", using=AGUIAdapter(agent), runs_dir=tmp_path / "runs")
        await asyncio.wait_for(handle, 20)
        for _ in range(200):  # the reader's thread closes the generator once the loop has let it go
            if closed.is_set():
                break
            await asyncio.sleep(0.01)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "error" and closed.is_set()
    assert stepped == []


def test_a_plain_function_that_needs_the_loop_is_told_to_be_async(tmp_path: Any) -> None:
    """A plain function runs on a thread, where no loop runs: one that starts a task (a queue bridge) fails with an
    error naming the fix, `async def`, and written so it runs on the loop and streams."""

    def bridge(run_input: Any) -> Any:
        queue: asyncio.Queue[Any] = asyncio.Queue()

        async def producer() -> None:
            for event in [START, *_text("bridged"), END, None]:
                await queue.put(event)

        task = asyncio.get_running_loop().create_task(producer())

        async def events() -> Any:
            while (event := await queue.get()) is not None:
                yield event
            await task

        return events()

    async def bridge_async(run_input: Any) -> Any:
        return bridge(run_input)

    async def main(agent: Any, runs: Any) -> Any:
        handle = start("hi", using=AGUIAdapter(agent), runs_dir=runs)
        await asyncio.wait_for(handle, 20)
        return handle

    plain = asyncio.run(main(bridge, tmp_path / "plain"))
    assert plain.status == "error"
    assert "no running event loop" in str(plain.error) and "async def" in str(plain.error)
    written = asyncio.run(main(bridge_async, tmp_path / "async"))
    assert written.status == "ok" and written.result() == "bridged"


def test_a_generator_is_closed_before_its_interrupt_is_decided(tmp_path: Any) -> None:
    """An interrupt is asked about only once the stream's read has ended: the generator ran to its end past its
    RUN_FINISHED (the one read that looks for a next run) and was closed before the approver decided, so nothing it
    does waits on, or runs ahead of, the decision; the resumed run is a new call."""
    steps: list[str] = []
    closed: list[int] = []
    seen_at_decision: list[tuple[list[str], list[int]]] = []
    asked = {"id": "i1", "reason": "delete_db", "message": "Delete prod?"}

    def agent(run_input: Any) -> Any:
        if closed:  # the resumed run
            yield START
            yield from _text("deleted")
            yield END
            return
        try:
            yield START
            yield {**END, "outcome": {"type": "interrupt", "interrupts": [asked]}}
            steps.append("after RUN_FINISHED")  # run by the read looking for a next run
        finally:
            closed.append(len(steps))

    def approver(pending: Any) -> bool:
        seen_at_decision.append((list(steps), list(closed)))
        return True

    async def main() -> Any:
        handle = start("hi", using=AGUIAdapter(agent), approver=approver, runs_dir=tmp_path / "runs")
        await asyncio.wait_for(handle, 20)
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and handle.result() == "deleted"
    assert seen_at_decision == [(["after RUN_FINISHED"], [1])]
