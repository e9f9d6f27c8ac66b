"""The fork server both kill and race harnesses use: one preloaded process that forks a fresh child per request.

The server side (``serve``) reads one JSON request per line on stdin, forks, lets ``child(request)``
act in the child and answers the JSON the child wrote (plus how it ended) on one line. The parent
side (``ForkServer``) starts such a script and talks to it. A server never runs an episode itself,
so each child starts from a single-threaded, clean process in a few milliseconds.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def serve(child: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Answer each request on stdin with what ``child`` returned in a forked child, and ``killed``."""
    for line in sys.stdin:
        request = json.loads(line)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            try:
                reply = child(request)
            except BaseException as exc:  # reported: the parent judges what the child was told
                reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            os.write(write_fd, json.dumps(reply).encode())
            os._exit(0)
        os.close(write_fd)
        _, status = os.waitpid(pid, 0)
        data = b""
        while chunk := os.read(read_fd, 65536):
            data += chunk
        os.close(read_fd)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        reply = json.loads(data) if data else {"ok": False, "error": f"child ended with status {status}"}
        sys.stdout.write(json.dumps({"killed": killed, **reply}) + "\n")
        sys.stdout.flush()


class ForkServer:
    """A running server script; ``send`` then ``reply``, or ``run`` for both."""

    def __init__(self, script: Path, prefix: list[str] | tuple[str, ...] = ()) -> None:
        """``prefix``: a command the server runs under (``unshare …``), given the server's own command line."""
        argv = [*prefix, sys.executable, str(script)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, **request: object) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float | None = None) -> dict[str, Any]:
        """The next answer; after ``timeout`` seconds without one, the server is killed and the wait fails."""
        assert self.proc.stdout
        if timeout is not None and not select.select([self.proc.stdout], [], [], timeout)[0]:
            self.proc.kill()
            raise TimeoutError(f"no answer from {self.proc.args} within {timeout}s (a racer hung)")
        return json.loads(self.proc.stdout.readline())

    def run(self, **request: object) -> dict[str, Any]:
        self.send(**request)
        return self.reply()

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


Racers = tuple[ForkServer, ForkServer]


def race(
    racers: Racers, root: Path, first: dict[str, Any], second: dict[str, Any], timeout: float | None = None
) -> list[dict[str, Any]]:
    """Send each racer its request, release both at once (a ``go`` file both wait for), and return their answers."""
    go = root / "go"
    racers[0].send(**first, go=str(go))
    racers[1].send(**second, go=str(go))
    time.sleep(0.02)  # both children are forked and waiting
    go.touch()
    return [racers[0].reply(timeout), racers[1].reply(timeout)]
