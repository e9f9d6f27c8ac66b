"""A loopback server in a provider's documented shapes for the capture tests: a POST's JSON body picks the answer,
a whole message or (``"stream": true``) its server-sent events, and the server's base URL is billed as the provider."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from noesis_nb.capture import bill_endpoint

#: a request's JSON body -> the whole answer's JSON, or (when it asks to stream) the list of its events
Answer = Callable[[dict[str, Any]], Any]


@contextmanager
def sdk_server(answer: Answer, provider: str, *, path: str = "", headers: dict[str, str] | None = None) -> Iterator[str]:
    """The base URL (``path`` after its port) of a server answering each POST with ``answer``, billed as ``provider``
    while it runs."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            said = answer(body)
            if body.get("stream"):
                data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in said).encode()
                kind = "text/event-stream"
            else:
                data, kind = json.dumps(said).encode(), "application/json"
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}{path}"
    bill_endpoint(url, provider)
    try:
        yield url
    finally:
        bill_endpoint(url, None)
        server.shutdown()
        server.server_close()
