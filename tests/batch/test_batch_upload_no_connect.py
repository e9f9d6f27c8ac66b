"""Checking a remote ``upload_to`` connects to nothing: ``batch(...)`` runs the check on the notebook's loop.

The check built the URL's file system, and an FTP one connects as it is built: a server that answers nothing froze
the kernel until it gave up, then the cell raised a bare ``ConnectionResetError`` (a port nobody listens on: a bare
``ConnectionRefusedError``). Here a real loopback server accepts and never answers; the batch is planned while the
loop ticks on, and the server is never reached: the copy connects later, off the loop.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.batch.spec import check_batch_options

from .loopticks import LoopTicks

GATE = threading.Event()  # the gated agent answers once it is set


async def gated(task, ctx):
    """Answers once ``GATE`` is set: its run is not sealed, so not copied, while the test looks at the server."""
    while not GATE.is_set():
        await asyncio.sleep(0.005)
    return {"answer": task}


@pytest.fixture
def silent_server() -> Iterator[socket.socket]:
    """A loopback TCP server that never accepts nor answers: a client's connection completes (the system queues it)
    and then waits for a welcome line that never comes. Whether anyone connected is read from its queue."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    try:
        yield listener
    finally:
        listener.close()


def _connected(listener: socket.socket) -> int:
    """How many connections wait in ``listener``'s queue (taken out and closed)."""
    count = 0
    while True:
        try:
            conn, _ = listener.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_batch_with_an_ftp_upload_to_a_silent_server_plans_without_connecting(
    runs_dir: Path, silent_server: socket.socket
) -> None:
    url = f"ftp://127.0.0.1:{silent_server.getsockname()[1]}/runs"
    GATE.clear()

    async def cell() -> tuple[int, int, list[str | None]]:
        ticks = LoopTicks().start()
        await asyncio.sleep(0)
        check_batch_options(
            concurrency=1, score=None, score_timeout_s=None, batch_id=None, root=runs_dir, upload_to=url, episode_opts={}
        )
        handle = noesis_nb.batch(["a"], using=gated, root=runs_dir, batch_id="nightly", upload_to=url)
        seen = ticks.count
        await ticks.more(20)  # the loop goes on while the episode waits
        reached = _connected(silent_server)
        silent_server.close()  # the copy, made off the loop once the run is sealed, now finds no server
        GATE.set()
        await asyncio.wait_for(handle.wait(), 30)
        ticks.stop()
        return reached, ticks.count - seen, [e.error for e in handle.entries]

    reached, _went_on, errors = asyncio.run(cell())
    assert reached == 0, "checking upload_to connected to its server"  # (a blocking check waited out FTP's timeout)
    (error,) = errors
    assert error is not None and error.startswith(f"upload to {url} failed: ConnectionRefusedError")


def test_an_ftp_upload_to_a_closed_port_is_checked_without_an_error(runs_dir: Path) -> None:
    url = f"ftp://127.0.0.1:{_closed_port()}/runs"
    chosen = check_batch_options(
        concurrency=1, score=None, score_timeout_s=None, batch_id="b1", root=runs_dir, upload_to=url, episode_opts={}
    )
    assert chosen[1:] == ("b1", runs_dir)
