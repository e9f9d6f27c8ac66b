"""Waiting for a live OTLP export from a notebook cell: never a wait that blocks the loop the episode runs on.

``live.wait()`` joined the export's thread; in a cell (on the kernel's loop) while the episode ran on that loop,
the episode could not go on, so the thread never ended and the kernel hung for good. Now that call is refused,
naming ``await live``, which waits while the loop (and the episode) go on.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStateError

from ..otlp_collector import Collector

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")


@pytest.fixture
def endpoint(otlp_collector: Collector) -> str:
    return otlp_collector.url


async def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1, output_tokens=1)
    await asyncio.sleep(0.3)  # on the loop: it ends only if the loop goes on
    return "ok"


def test_live_wait_in_a_cell_while_the_episode_runs_is_refused_and_await_live_waits(runs_dir: Path, endpoint: str) -> None:
    async def cell() -> tuple[str, Any]:
        handle = noesis_nb.start("wait", using=_agent, runs_dir=runs_dir)
        live = noesis_nb.export_otel(handle, endpoint=endpoint, live=True, interval=0.02, timeout=5)
        try:
            live.wait(timeout=3)  # before: blocked the loop for the whole timeout (for good without one)
        except EpisodeStateError as exc:
            said = str(exc)
        else:
            said = f"returned, the episode {'ended' if handle.done() else 'still running'}"
        ended = await asyncio.wait_for(live, 30)
        return said, ended

    said, live = asyncio.run(cell())
    assert "await live" in said and "block this thread's event loop" in said, said
    assert not live.running and live.errors == [] and live.sent >= 2  # the model call and the root span
    assert live.wait() is live  # off the loop, once ended: returns at once
