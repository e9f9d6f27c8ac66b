"""Real ``http.server`` servers on 127.0.0.1 for the http(s) source tests: a quiet static file server whose requests a
test may answer itself (a failure, a move, a slow body), each request line kept, all shut down when the test ends."""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

# (handler, is HEAD) -> whether it answered the request itself
Answer = Callable[[SimpleHTTPRequestHandler, bool], bool]


class QuietHandler(SimpleHTTPRequestHandler):
    """A stock static file server that writes no log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


class AnsweringHandler(QuietHandler):
    """A static file server; ``answer`` may take a request over; every request line ("GET /path") is kept in ``seen``."""

    answer: Answer | None = None
    seen: list[str]

    def do_GET(self) -> None:
        self.seen.append("GET " + self.path)
        if self.answer is None or not self.answer(self, False):
            super().do_GET()

    def do_HEAD(self) -> None:
        self.seen.append("HEAD " + self.path)
        if self.answer is None or not self.answer(self, True):
            super().do_HEAD()


class _Server(ThreadingHTTPServer):
    """A threading server whose listen backlog holds a client's requests at once (the walk asks up to 8; the stock
    backlog of 5 lets the kernel drop a connection while the busy accept loop lags, and the client's retry comes 1 s
    later, past a 1 s listing deadline), as a real server's (128 and more) does."""

    request_queue_size = 128
    daemon_threads = True


class WebServers:
    """The servers one test started. ``release`` is set when it ends, so a response a server holds lets go."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self._running: list[tuple[_Server, threading.Thread]] = []

    def start(self, folder: Path, handler: type[SimpleHTTPRequestHandler] = QuietHandler, **attrs: Any) -> str:
        """Serve ``folder`` with a subclass of ``handler`` holding ``attrs``; gives the base URL (no path)."""
        served = type("Handler", (handler,), attrs)
        server = _Server(("127.0.0.1", 0), functools.partial(served, directory=str(folder)))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self._running.append((server, thread))
        return f"http://127.0.0.1:{server.server_address[1]}"

    def serve(self, root: Path, answer: Answer | None = None, seen: list[str] | None = None) -> str:
        """Serve a runs root's parent folder, ``answer`` taking requests over, each request line kept in ``seen``;
        gives the base URL (no path)."""
        kept = seen if seen is not None else []
        return self.start(root.parent, AnsweringHandler, answer=staticmethod(answer) if answer else None, seen=kept)

    def serve_root(self, root: Path, answer: Answer | None = None, seen: list[str] | None = None) -> str:
        """As ``serve``; gives the root's own URL (``…/runs/``)."""
        return f"{self.serve(root, answer, seen)}/{root.name}/"

    def close(self) -> None:
        self.release.set()
        for server, thread in self._running:
            server.shutdown()
            server.server_close()
            thread.join()


def moved(handler: SimpleHTTPRequestHandler, location: str) -> bool:
    """Answer the request with a 301 to ``location`` (an ``Answer`` that took the request over)."""
    handler.send_response(301)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()
    return True


def send_in_pieces(handler: SimpleHTTPRequestHandler, body: bytes, pieces: int, pause: float, release: threading.Event) -> bool:
    """Send ``body`` in ``pieces`` pieces, each after ``pause`` seconds, until the test ends (``release``) or the client
    leaves (an ``Answer`` that took the request over; the status and headers are sent already)."""
    step = max(1, -(-len(body) // pieces))
    for start in range(0, len(body), step):
        if release.wait(pause):
            return True
        try:
            handler.wfile.write(body[start : start + step])
            handler.wfile.flush()
        except OSError:
            return True
    return True


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def problem_reasons(frame: pd.DataFrame) -> dict[str, str]:
    """A frame's problem rows: path -> reason."""
    return {e["path"]: e["reason"] for e in frame.attrs["errors"]}
