"""An AG-UI agent's URL holding credentials is shown redacted: in its repr, its adapter's, and every error.

``AGUIHttpAgent("https://user:<password>@host/run?api_key=<token>")``: a cell ending with the agent or
its adapter prints it, and the errors it raises outside an episode (a refused URL, a server that
cannot be reached, one that answers 401 echoing the request) are printed as they are. The request
itself still carries the credentials.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

pytest.importorskip("httpx")

from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent

TOKEN = "ghp_" + "Zq8Lm3Np7Rt2Vx5Bc9Df4Gh6Jk1Ws0Ya8Eu"
PASSWORD = "Vq7-wrT9kLm2"


class _Echo(BaseHTTPRequestHandler):
    """Refuses every POST with 401, quoting the path and query it was sent (as some servers do)."""

    seen: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        _Echo.seen.append(self.path + " " + (self.headers.get("authorization") or ""))
        body = json.dumps({"error": "unauthorized", "request": self.path}).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port nothing answers on for the whole test: bound and never listening (a connection is refused),
    so no other process can start a server on it meanwhile, as it could on a port only picked and let go."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def _error(agent: AGUIHttpAgent) -> str:
    async def go() -> None:
        async for _ in agent.run({"threadId": "t", "runId": "r", "messages": []}):
            pass

    with pytest.raises(Exception) as raised:
        asyncio.run(go())
    return f"{raised.value}\n{raised.value!r}"


def _holds_credentials(text: str) -> bool:
    return TOKEN[4:] in text or TOKEN[4:12] in text or PASSWORD in text


def test_an_agents_url_is_shown_without_its_credentials(server: str, closed_port: int) -> None:
    url = f"http://deploy:{PASSWORD}@{server}/agent/run?api_key={TOKEN}"
    agent = AGUIHttpAgent(url)
    shown = {
        "repr": repr(agent),
        "adapter repr": repr(AGUIAdapter(agent)),
        "401 answer": _error(agent),
        "unreachable": _error(AGUIHttpAgent(url.replace(server, f"127.0.0.1:{closed_port}"))),
    }
    with pytest.raises(ValueError) as refused:
        AGUIHttpAgent(url.replace("http://", "ftp://"))
    shown["refused"] = str(refused.value)
    assert [where for where, text in shown.items() if _holds_credentials(text)] == []
    assert all(server.split(":")[0] in text for text in shown.values())  # the host is still named
    assert any(TOKEN in seen for seen in _Echo.seen)  # the request carried the credentials
