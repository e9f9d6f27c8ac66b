"""A sync approver runs off the event loop: a slow one leaves the loop (views, clicks, other episodes) running,
and stopping the episode does not wait for it. An async approver is still awaited on the loop."""

import asyncio
import threading
import time

import pytest

import noesis_nb
from noesis_nb.store import read_events, verify_manifest

from .agents import make_writer, sync_writer_factory


def _names(run_dir):
    return [e["payload"].get("event_name") or e.get("event_type") or e["phase"] for e in read_events(run_dir / "events.jsonl")]


def test_a_slow_sync_approver_leaves_the_loop_ticking(runs_dir, tmp_path):
    out = tmp_path / "out.txt"
    seen = {}

    def slow(pending):  # e.g. a call to a review service
        seen["thread"] = threading.get_ident()
        time.sleep(1.0)
        return True, f"{pending.tool} reviewed"

    async def main():
        ticks = []

        async def heartbeat():
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.02)

        beat = asyncio.create_task(heartbeat())
        handle = noesis_nb.start("note", using=make_writer(out), runs_dir=runs_dir, approver=slow)
        await handle.wait()
        beat.cancel()
        return handle, ticks, threading.get_ident()

    handle, ticks, loop_thread = asyncio.run(main())
    assert handle.status == "ok" and out.read_text() == "note\n"
    assert seen["thread"] != loop_thread
    assert max(b - a for a, b in zip(ticks, ticks[1:])) < 0.5  # the loop never stood still for the approver's second


def test_another_episode_finishes_while_a_sync_approver_waits(runs_dir, tmp_path):
    release = threading.Event()

    def waiting(pending):
        return release.wait(10)

    async def main():
        first = noesis_nb.start("one", using=make_writer(tmp_path / "one.txt"), runs_dir=runs_dir, approver=waiting)
        await asyncio.sleep(0.2)  # the first episode now waits on its approver
        second = noesis_nb.start("two", using=make_writer(tmp_path / "two.txt"), runs_dir=runs_dir, approver="auto")
        await asyncio.wait_for(second.wait(), 5)
        still_waiting = not first.done()
        release.set()
        await first.wait()
        return first, second, still_waiting

    first, second, still_waiting = asyncio.run(main())
    assert still_waiting and second.status == "ok" and first.status == "ok"
    assert (tmp_path / "one.txt").exists() and (tmp_path / "two.txt").exists()


@pytest.mark.parametrize("adapter", ["async", "sync"])
def test_cancel_ends_an_episode_waiting_on_a_sync_approver_at_once(runs_dir, tmp_path, adapter):
    out = tmp_path / "out.txt"
    asked, release = threading.Event(), threading.Event()

    def waiting(pending):
        asked.set()
        release.wait(10)
        return True  # arrives after the cancel: dropped

    using = make_writer(out) if adapter == "async" else sync_writer_factory(out)

    async def main():
        handle = noesis_nb.start("note", using=using, runs_dir=runs_dir, approver=waiting)
        while not asked.is_set():
            await asyncio.sleep(0.01)
        handle.cancel()
        started = time.monotonic()
        await asyncio.wait_for(handle.wait(), 5)
        took = time.monotonic() - started
        release.set()
        await asyncio.sleep(0.2)  # the approver's thread returns its late verdict
        return handle, took

    handle, took = asyncio.run(main())
    assert handle.status == "cancelled" and took < 2
    assert not out.exists() and not list((handle.run_dir / "tool_invocations").glob("approvals/*.json"))
    assert "tool.approved" not in _names(handle.run_dir) and verify_manifest(handle.run_dir).ok


def test_a_sync_approver_that_raises_fails_the_episode_with_its_error(runs_dir, tmp_path):
    def broken(pending):
        raise ConnectionError("review service unreachable")

    async def main():
        handle = noesis_nb.start("note", using=make_writer(tmp_path / "o.txt"), runs_dir=runs_dir, approver=broken)
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "error"
    with pytest.raises(ConnectionError, match="review service unreachable"):
        handle.result()


def test_an_async_approver_is_awaited_on_the_loop(runs_dir, tmp_path):
    seen = {}

    async def reviewer(pending):
        seen["loop"] = asyncio.get_running_loop()
        return True

    class Reviewer:
        async def __call__(self, pending):
            seen["instance_loop"] = asyncio.get_running_loop()
            return True

    async def main():
        for name, approver in (("a", reviewer), ("b", Reviewer())):
            handle = noesis_nb.start(name, using=make_writer(tmp_path / f"{name}.txt"), runs_dir=runs_dir, approver=approver)
            await handle.wait()
            assert handle.status == "ok"
        return asyncio.get_running_loop()

    loop = asyncio.run(main())
    assert seen == {"loop": loop, "instance_loop": loop}
