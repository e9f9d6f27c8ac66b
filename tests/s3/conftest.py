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


@pytest.fixture(scope="session")
def s3_endpoint():
    pytest.importorskip("moto.server", reason="moto[server] is needed for the S3 test")
    pytest.importorskip("s3fs", reason="s3fs is needed for the S3 test (pip install 'noesis_nb[s3]')")
    port = _free_port()
    env = {**os.environ, **_ENV}
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    saved = {k: os.environ.get(k) for k in _ENV}
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "/moto-api/", timeout=0.5)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"moto server exited with code {proc.returncode}")
                time.sleep(0.05)
        else:
            pytest.fail("moto server did not answer within 10 s")
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
