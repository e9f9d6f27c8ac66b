"""A real OTLP/HTTP collector on 127.0.0.1 for the export tests, and the fixtures that start and stop it.

Each POST is read whole and kept (its path, headers, body and arrival time; its spans decoded on demand with the
OTLP protobuf schema), then answered by the test's ``answer`` (by default an empty OTLP answer: every span taken).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Answer = Callable[[BaseHTTPRequestHandler], None]


def answer_with(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"", **headers: str) -> None:
    """Answer ``status`` with ``body`` (OTLP protobuf unless a ``Content-Type`` is given) and ``headers``."""
    handler.send_response(status)
    for name, value in {"Content-Type": "application/x-protobuf", **headers}.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def take_all(handler: BaseHTTPRequestHandler) -> None:
    """The answer of a collector that takes every span: 200 and an empty OTLP answer (no partial success)."""
    answer_with(handler, 200)


def partial_success(rejected: int, message: str) -> bytes:
    """An OTLP protobuf answer saying ``rejected`` spans were refused, for ``message``."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    answer = ExportTraceServiceResponse()
    answer.partial_success.rejected_spans = rejected
    answer.partial_success.error_message = message
    return answer.SerializeToString()


@dataclass(frozen=True)
class Request:
    """One POST as the collector read it; header names lower-cased."""

    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() when it was read

    @property
    def spans(self) -> list[Any]:
        """The spans of its body, read as an OTLP protobuf ``ExportTraceServiceRequest``."""
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        message = ExportTraceServiceRequest()
        message.ParseFromString(self.body)
        return [s for rs in message.resource_spans for ss in rs.scope_spans for s in ss.spans]


class Collector:
    """A loopback OTLP/HTTP collector: keeps each POST in ``requests`` and answers it with ``answer(handler)``.

    ``body_limit``: a request larger than this is refused with 413 and not kept, as a proxy in front refuses it."""

    def __init__(self, answer: Answer = take_all, *, body_limit: int | None = None) -> None:
        self.requests: list[Request] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if body_limit is not None and len(body) > body_limit:
                    answer_with(self, 413)
                    return
                headers = {name.lower(): value for name, value in self.headers.items()}
                collector.requests.append(Request(self.path, headers, body, time.monotonic()))
                answer(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def spans(self) -> list[Any]:
        """Every span of every request kept, in the order they arrived."""
        return [span for request in self.requests for span in request.spans]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    """A loopback port nothing listens on any more (a connection there is refused at once)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_address[1]
    server.server_close()
    return int(port)


@pytest.fixture
def otlp_collectors() -> Iterator[Callable[..., Collector]]:
    """Start a ``Collector(answer, body_limit=...)``; all are stopped after the test."""
    made: list[Collector] = []

    def start(answer: Answer = take_all, *, body_limit: int | None = None) -> Collector:
        made.append(Collector(answer, body_limit=body_limit))
        return made[-1]

    yield start
    for collector in made:
        collector.close()


@pytest.fixture
def otlp_collector(otlp_collectors: Callable[..., Collector]) -> Collector:
    """A collector that takes every span."""
    return otlp_collectors()
