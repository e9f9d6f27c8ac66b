"""A local S3-compatible server (moto's server mode) on a free 127.0.0.1 port, for the whole session."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_SECURITY_TOKEN": "testing",
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# moto's server takes a few seconds to import and bind on a busy machine: a wait that ends as soon as it answers,
# with room for a slow start; and a port another process took between our pick and its bind is picked again
START_S = 120
TRIES = 5


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url + "/moto-api/", timeout=5)
        return True
    except OSError:
        return False


def _start_moto(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """A moto server that answers, on a free port; one clear failure naming why after ``TRIES`` ports."""
    exits = []
    for _ in range(TRIES):
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_S
        while proc.poll() is None and time.monotonic() < deadline:
            if _answers(url) and proc.poll() is None:  # ours, not another server that holds the port
                return proc, url
            time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            pytest.fail(f"moto server on port {port} did not answer within {START_S} s")
        exits.append(f"port {port}: exit code {proc.returncode}")  # the port was taken before it bound: pick again
    pytest.fail(f"moto server exited on every try ({'; '.join(exits)})")


@pytest.fixture(scope="session")
def s3_endpoint():
    pytest.importorskip("moto.server", reason="moto[server] is needed for the S3 test")
    pytest.importorskip("s3fs", reason="s3fs is needed for the S3 test (pip install 'noesis_nb[s3]')")
    proc, url = _start_moto({**os.environ, **_ENV})
    saved = {k: os.environ.get(k) for k in _ENV}
    try:
        os.environ.update(_ENV)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
