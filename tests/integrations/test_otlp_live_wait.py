"""Waiting for a live OTLP export from a notebook cell: never a wait that blocks the loop the episode runs on.

``live.wait()`` joined the export's thread; in a cell (on the kernel's loop) while the episode ran on that loop,
the episode could not go on, so the thread never ended and the kernel hung for good. Now that call is refused,
naming ``await live``, which waits while the loop (and the episode) go on.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import EpisodeStateError

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")


class Taking(BaseHTTPRequestHandler):
    """A collector that takes every request (an empty 200 answer)."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Taking)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


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
