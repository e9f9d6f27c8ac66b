"""Steering a running episode: sent → applied, taken by sync and async adapters at the points they ask, in order."""

from __future__ import annotations

import asyncio
import threading

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStateError, InvalidOptionError
from noesis_nb.store import read_events
from tests.compat.checker import check_run


def _steer_events(run_dir):
    return [e for e in read_events(run_dir / "events.jsonl") if e["phase"] == "steer"]


def _applied_order(run_dir):
    events = _steer_events(run_dir)
    sent = {e["id"]: e["payload"]["text"] for e in events if e["payload"]["event_name"] == "steer.sent"}
    return [(sent[e["caused_by"]], e["payload"]["at"]) for e in events if e["payload"]["event_name"] == "steer.applied"]


def test_an_async_adapter_takes_steers_where_it_asks_each_recorded_sent_then_applied(runs_dir):
    heard: list[tuple[str, list[str]]] = []
    ready = asyncio.Event()

    async def agent(task, ctx):
        ready.set()
        first = await ctx.next_steer_async(timeout=5)  # waits: the first steer arrives while it waits
        heard.append(("wait", [first.text]))
        await asyncio.sleep(0.05)  # two more are sent meanwhile, one of them for the round's end only
        heard.append(("item", [s.text for s in ctx.steers()]))
        heard.append(("round", [s.text for s in ctx.steers(at="between-rounds")]))
        heard.append(("none", [s.text for s in ctx.steers(at="between-rounds")]))
        assert await ctx.next_steer_async(timeout=0.05) is None
        return "ok"

    async def main():
        handle = noesis_nb.start("steer me", using=agent, runs_dir=runs_dir)
        await ready.wait()
        handle.steer("use staging, not production", sender="user:ana")
        await asyncio.sleep(0.02)
        handle.steer("keep it short", mode="between-rounds")
        handle.steer("cite the ticket")
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok"
    assert heard == [
        ("wait", ["use staging, not production"]),
        ("item", ["cite the ticket"]),
        ("round", ["keep it short"]),
        ("none", []),
    ]
    events = _steer_events(handle.run_dir)
    names = [e["payload"]["event_name"] for e in events]
    assert names == ["steer.sent", "steer.applied", "steer.sent", "steer.sent", "steer.applied", "steer.applied"]
    first_sent, first_applied = events[0], events[1]
    assert first_sent["payload"]["sender"] == "user:ana" and first_sent["agent_id"] == "human:user:ana"
    assert first_applied["caused_by"] == first_sent["id"]
    assert first_applied["payload"]["steer_id"] == first_sent["payload"]["steer_id"]
    assert first_applied["payload"]["waited_ms"] >= 0
    assert _applied_order(handle.run_dir) == [
        ("use staging, not production", "next-item"),
        ("cite the ticket", "next-item"),
        ("keep it short", "between-rounds"),
    ]
    assert check_run(handle.run_dir) == []  # the steer phase keeps the run valid for Noēsis


def test_a_sync_adapter_waits_for_a_steer_on_its_thread_and_takes_the_rest_in_order(runs_dir):
    started = threading.Event()
    heard: list[str] = []

    def agent(task, ctx):
        started.set()
        got = ctx.next_steer(timeout=5)
        heard.append(got.text)
        while len(heard) < 3:
            heard.extend(s.text for s in ctx.steers(at="between-rounds"))
        return len(heard)

    async def main():
        handle = noesis_nb.start("steer me", using=agent, runs_dir=runs_dir)
        while not started.is_set():
            await asyncio.sleep(0.005)
        for text in ("one", "two", "three"):
            handle.steer(text)
            await asyncio.sleep(0.01)
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and heard == ["one", "two", "three"]
    assert [t for t, _ in _applied_order(handle.run_dir)] == ["one", "two", "three"]


def test_next_steer_on_the_loop_thread_points_to_its_async_twin(runs_dir):
    async def agent(task, ctx):
        ctx.next_steer(timeout=0)

    async def main():
        handle = noesis_nb.start("wrong twin", using=agent, runs_dir=runs_dir)
        await handle
        return handle

    handle = asyncio.run(main())
    assert handle.status == "error"
    with pytest.raises(EpisodeStateError, match="next_steer_async"):
        handle.result()


def test_a_steer_to_an_episode_that_is_not_running_says_its_status(runs_dir):
    async def agent(task, ctx):
        return "done"

    async def main():
        handle = noesis_nb.start("quick", using=agent, runs_dir=runs_dir)
        await handle
        return handle

    handle = asyncio.run(main())
    with pytest.raises(EpisodeStateError, match=r"is ok, not running"):
        handle.steer("too late")


def test_bad_steers_are_refused_with_the_fix(runs_dir):
    async def agent(task, ctx):
        await ctx.next_steer_async(timeout=5)

    async def main():
        handle = noesis_nb.start("bad", using=agent, runs_dir=runs_dir)
        await asyncio.sleep(0.02)
        with pytest.raises(InvalidOptionError, match="non-empty"):
            handle.steer("   ")
        with pytest.raises(InvalidOptionError, match="between-rounds"):
            handle.steer("x", mode="soon")
        handle.steer("fine")
        await handle

    asyncio.run(main())


def test_an_adapter_polling_for_steers_keeps_no_waiter_of_a_poll_that_timed_out(runs_dir):
    """An adapter asking ``await ctx.next_steer_async(timeout=…)`` between items, with nothing sent, left one waiter
    behind per call until a steer came: a long episode polling often grew without bound."""
    left: list[int] = []

    async def agent(task, ctx):
        for _ in range(500):
            assert await ctx.next_steer_async(timeout=0.0001) is None
        left.append(len(ctx._episode.steers._waiters))
        return "ok"

    async def main():
        handle = noesis_nb.start("poll", using=agent, runs_dir=runs_dir)
        await handle
        return handle

    assert asyncio.run(main()).status == "ok"
    assert left == [0]
