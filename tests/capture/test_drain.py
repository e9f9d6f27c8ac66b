"""A graceful stop with real SDK calls in flight (the openai client against a loopback server that answers slowly)."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStopping
from noesis_nb.store import read_events
from tests.compat.checker import check_run

from .provider_stub import Reply

openai = pytest.importorskip("openai")

MSG = [{"role": "user", "content": "hi"}]
USAGE = {"stub_usage": {"input": 900, "cached": 0, "output": 70, "reasoning": 0}}


def _agent(stub, tried: list[str], started: asyncio.Event):
    async def agent(task, ctx):
        client = openai.AsyncOpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        started.set()
        await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body=USAGE)  # in flight at the stop
        try:  # queued after it: never starts
            await ctx.tool_async("fs.list", {"argv": [sys.executable, "-c", "print('never')"]})
        except EpisodeStopping as exc:
            tried.append(f"tool: {exc}")
        try:
            await client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body=USAGE)
        except EpisodeStopping as exc:
            tried.append(f"model: {exc}")
        return "finished anyway"

    return agent


async def _on_the_wire(stub, hits: int) -> None:
    """Until the stub has the request (it answers after its delay): the call is in flight, however busy the machine."""
    for _ in range(1000):
        if stub.hits("/v1/chat/completions") >= hits:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the model call never reached the stub")


async def _run(stub, runs_dir, *, delay: float, drain_s: float, second_stop_after: float | None = None):
    stub.script("/v1/chat/completions", Reply(delay=delay))
    tried: list[str] = []
    started = asyncio.Event()
    hits = stub.hits("/v1/chat/completions")
    handle = noesis_nb.start("drain me", using=_agent(stub, tried, started), runs_dir=runs_dir)
    await started.wait()
    await _on_the_wire(stub, hits + 1)
    began = time.monotonic()
    assert handle.cancel(drain_s=drain_s)
    if second_stop_after is not None:
        await asyncio.sleep(second_stop_after)
        assert handle.draining
        handle.cancel()
    report = await handle.stop()
    return handle, report, tried, time.monotonic() - began


def _phase(handle, phase):
    return [e["payload"] for e in read_events(handle.run_dir / "events.jsonl") if e["phase"] == phase]


def test_an_in_flight_call_that_finishes_inside_the_deadline_is_in_the_report_and_nothing_new_starts(stub, runs_dir):
    hits = stub.hits("/v1/chat/completions")
    handle, report, tried, took = asyncio.run(_run(stub, runs_dir, delay=0.4, drain_s=5))
    assert handle.status == "cancelled" and took < 3
    assert report is handle.drain_report and report.reason == "settled"
    [call] = report.finished
    assert call["kind"] == "model" and call["status"] == "ok"
    assert (call["input_tokens"], call["output_tokens"]) == (900, 70)
    assert report.usage["input_tokens"] == 900 and report.cut_off == []
    assert report.cost_usd is not None and report.cost_usd > 0  # gpt-4o-mini is in the price table
    assert [r["kind"] for r in report.refused] == ["tool", "model"]
    assert [t.split(":")[0] for t in tried] == ["tool", "model"] and "was not started" in tried[0]
    assert stub.hits("/v1/chat/completions") == hits + 1  # the second model call never reached the provider
    events = read_events(handle.run_dir / "events.jsonl")
    names = [e["payload"].get("event_name") for e in events]
    assert "tool.requested" not in names  # the tool was not even prepared
    drain = _phase(handle, "drain")
    assert [d["event_name"] for d in drain] == ["drain.started", "drain.refused", "drain.refused", "drain.report"]
    assert drain[0]["in_flight"][0]["name"] == "openai:gpt-4o-mini" and drain[-1]["reason"] == "settled"
    assert names.index("drain.report") < [e["phase"] for e in events].index("terminate")
    assert [e["phase"] for e in events][-3:] == ["runtime", "insight", "memory"]  # sealed after the report
    assert (handle.run_dir / "manifest.json").exists()
    assert check_run(handle.run_dir) == []


def test_an_in_flight_call_beyond_the_deadline_is_cut_off(stub, runs_dir):
    handle, report, _tried, took = asyncio.run(_run(stub, runs_dir, delay=2.0, drain_s=0.3))
    assert handle.status == "cancelled" and took < 1.5  # the deadline, not the slow call, ended it
    assert report.reason == "deadline" and report.finished == []
    [cut] = report.cut_off
    assert cut["kind"] == "model" and cut["name"] == "openai:gpt-4o-mini" and cut["running_s"] >= 0.3
    assert check_run(handle.run_dir) == []


def test_a_second_stop_during_the_drain_stops_at_once(stub, runs_dir):
    handle, report, _tried, took = asyncio.run(_run(stub, runs_dir, delay=2.0, drain_s=30, second_stop_after=0.1))
    assert handle.status == "cancelled" and took < 1.5
    assert report.reason == "stopped" and len(report.cut_off) == 1
    assert _phase(handle, "drain")[-1]["reason"] == "stopped"


def test_a_sync_adapter_on_its_thread_is_drained_the_same_way(stub, runs_dir):
    stub.script("/v1/chat/completions", Reply(delay=0.4))
    tried: list[str] = []

    def agent(task, ctx):
        client = openai.OpenAI(base_url=stub.openai_url, api_key="sk-test", max_retries=0)
        client.chat.completions.create(model="gpt-4o-mini", messages=MSG, extra_body=USAGE)
        try:
            ctx.tool("fs.list", {"argv": [sys.executable, "-c", "print('never')"]})
        except EpisodeStopping as exc:
            tried.append(str(exc))
        return "done"

    async def main():
        hits = stub.hits("/v1/chat/completions")
        handle = noesis_nb.start("drain a thread", using=agent, runs_dir=runs_dir)
        await _on_the_wire(stub, hits + 1)
        report = await handle.stop(drain_s=5)
        for _ in range(100):  # the thread goes on after the episode ended (Python cannot stop it): its next call
            if tried:
                break
            await asyncio.sleep(0.01)
        return handle, report

    handle, report = asyncio.run(main())
    assert handle.status == "cancelled" and report.reason == "settled"
    assert [c["kind"] for c in report.finished] == ["model"] and report.finished[0]["output_tokens"] == 70
    assert len(tried) == 1 and "was not started" in tried[0]  # is refused with the clear error, never run
    names = [e["payload"].get("event_name") for e in read_events(handle.run_dir / "events.jsonl")]
    assert "tool.requested" not in names
    assert check_run(handle.run_dir) == []
