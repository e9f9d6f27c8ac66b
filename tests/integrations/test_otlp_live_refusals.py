"""A live OTLP export and a collector that refuses: for good (a redirect, a 4xx) or for now (429, 5xx, Retry-After).

A collector that refuses the request itself (400 bad request, 401/403 credentials, 404 wrong path, 413 too large)
was asked again at every look for as long as the episode ran, each time refused the same way. Now the live export
stops sending to it and says so once: the status, the endpoint (its credentials hidden) and the fix. A collector
that is overloaded or failing is still asked again, after the wait its ``Retry-After`` asks for.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

from ..otlp_collector import Collector, answer_with

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

TOKEN = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"  # in the endpoint's query and the headers: never shown
INTERVAL = 0.02


def _collector(otlp_collectors: Callable[..., Collector], answers: list[tuple[int, dict[str, str]]]) -> Collector:
    """A loopback collector whose n-th POST gets ``answers[n]`` (the last one from then on)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        status, headers = answers[min(len(collector.requests), len(answers)) - 1]
        answer_with(handler, status, **headers)

    collector = otlp_collectors(answer)
    return collector


def _endpoint(url: str) -> str:
    return f"{url}/v1/traces?api_key={TOKEN}"


def _export_while_working(
    collector: Collector | None, runs_dir: Path, asked: int, more_s: float, path: Path | None = None, endpoint: str = ""
) -> Any:
    """Run an episode that makes a model call every 10 ms until the collector was asked ``asked`` times, then for
    ``more_s`` seconds more (many more looks of the live export); its live export to the collector (or to
    ``endpoint``), once ended."""

    def agent(task: str, ctx: Any) -> str:
        deadline = time.monotonic() + 30  # liveness only
        while collector is not None and len(collector.requests) < asked and time.monotonic() < deadline:
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1, output_tokens=1)
            time.sleep(0.01)
        end = time.monotonic() + more_s
        while time.monotonic() < end:
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1, output_tokens=1)
            time.sleep(0.01)
        return "ok"

    async def main() -> Any:
        handle = noesis_nb.start("refused", using=agent, runs_dir=runs_dir)
        live = noesis_nb.export_otel(
            handle,
            endpoint=_endpoint(collector.url) if collector is not None else endpoint,
            headers={"authorization": f"Bearer {TOKEN}"},
            live=True,
            interval=INTERVAL,
            timeout=0.5,  # under a Retry-After of 1 s: the exporter's own retry gives up, the live export waits
            path=path,
        )
        await handle.wait()
        await asyncio.to_thread(live.wait, 60)
        return live

    return asyncio.run(main())


FOR_GOOD = {
    400: "OTLP/HTTP traces endpoint",
    401: "headers=",
    403: "headers=",
    404: "port 4318",
    413: "body limit",
    307: "redirect is not followed",
}


@pytest.mark.parametrize("status", list(FOR_GOOD))
def test_a_collector_refusing_the_request_itself_is_asked_once_and_named_once(
    otlp_collectors: Callable[..., Collector], runs_dir: Path, status: int
) -> None:
    location = {"Location": "http://127.0.0.1:9/v1/traces"} if status == 307 else {}
    collector = _collector(otlp_collectors, [(status, location)])
    live = _export_while_working(collector, runs_dir, asked=1, more_s=0.5)
    assert len(collector.requests) == 1, f"asked {len(collector.requests)} times though it answered {status} the first time"
    assert live.refused == status and not live.running
    (said,) = live.errors
    assert f"answered '{status}" in said and "stopped sending to it" in said and FOR_GOOD[status] in said, said
    assert "127.0.0.1" in said and "api_key=" in said and TOKEN not in said and TOKEN[:12] not in said, said
    assert "export_otel(run_dir, endpoint=...)" in said


class PlainHttp(ThreadingHTTPServer):
    """A plain HTTP server that counts the connections made to it (a TLS handshake never becomes a request)."""

    connections = 0

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections += 1
        return True


def test_an_https_url_to_a_plain_http_collector_is_tried_once_and_named(runs_dir: Path) -> None:
    """A TLS failure the same request meets again (here ``WRONG_VERSION_NUMBER``: https:// to a plain HTTP server) was
    backed off from and tried again for as long as the episode ran, said as "is a collector listening there?"."""
    server = PlainHttp(("127.0.0.1", 0), BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = _endpoint(f"https://127.0.0.1:{server.server_address[1]}")
    try:  # no collector to count: the first look's handshake is its one try
        live = _export_while_working(None, runs_dir, asked=1, more_s=0.5, endpoint=endpoint)
    finally:
        server.shutdown()
        server.server_close()
    assert server.connections in (1, 2), server.connections  # one send (the exporter retries a failed connection once)
    assert isinstance(live.refused, str) and "WRONG_VERSION_NUMBER" in live.refused and not live.running
    (said,) = live.errors
    assert "TLS handshake failed" in said and "http://" in said and "stopped sending to it" in said, said
    assert TOKEN not in said and TOKEN[:12] not in said, said


def test_a_refused_export_still_writes_its_file_at_the_end(
    otlp_collectors: Callable[..., Collector], runs_dir: Path, tmp_path: Path
) -> None:
    collector = _collector(otlp_collectors, [(401, {})])
    out = tmp_path / "trace.json"
    live = _export_while_working(collector, runs_dir, asked=1, more_s=0.2, path=out)
    assert len(collector.requests) == 1 and live.refused == 401
    assert out.is_file() and '"resourceSpans"' in out.read_text()
    assert "is still written when the episode ends" in live.errors[0]


@pytest.mark.parametrize(
    ("answers", "asked_to_wait"),
    [
        ([(429, {"Retry-After": "1"}), (200, {})], 1.0),
        ([(503, {"Retry-After": "1"}), (200, {})], 1.0),
        ([(503, {}), (502, {}), (200, {})], 0.0),
    ],
    ids=["429-retry-after", "503-retry-after", "5xx-then-up"],
)
def test_a_collector_refusing_for_now_is_asked_again_after_the_wait_it_asked_for(
    otlp_collectors: Callable[..., Collector], runs_dir: Path, answers: list[tuple[int, dict[str, str]]], asked_to_wait: float
) -> None:
    collector = _collector(otlp_collectors, answers)
    live = _export_while_working(collector, runs_dir, asked=len(answers), more_s=0.1)
    assert collector.requests[1].at - collector.requests[0].at >= asked_to_wait * 0.95, (
        [r.at for r in collector.requests],
        live.errors,
    )
    assert live.sent > 0 and live.refused is None, live.errors  # asked again, and it took the spans


def test_retry_after_reads_seconds_and_dates() -> None:
    from noesis_nb.integrations._otlp_answer import retry_after_s

    assert retry_after_s("120") == 120.0
    assert retry_after_s(None) is None and retry_after_s("soon") is None and retry_after_s("-3") is None
    assert retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date gone by: ask again at once
    later = retry_after_s(time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 100)))
    assert later is not None and 90 < later <= 100


def test_a_refused_export_with_a_file_builds_no_spans_until_the_end(
    otlp_collectors: Callable[..., Collector], runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped for good with ``path=``, the export built the whole run's spans again at every look only to send
    nothing: it now builds them once more, at the episode's end, for the file."""
    from noesis_nb.integrations import otel

    built: list[int] = []
    real = otel.run_spans

    def counted(*args: Any, **kwargs: Any) -> Any:
        specs = real(*args, **kwargs)
        built.append(len(collector.requests))
        return specs

    monkeypatch.setattr(otel, "run_spans", counted)
    collector = _collector(otlp_collectors, [(401, {})])
    out = tmp_path / "trace.json"
    live = _export_while_working(collector, runs_dir, asked=1, more_s=0.5, path=out)  # ~25 looks after the refusal
    assert len(collector.requests) == 1 and live.refused == 401 and not live.running
    after = [asked for asked in built if asked >= 1]
    assert len(after) == 1, f"the spans were built {len(after)} times after the refusal, not once (for the file)"
    assert out.is_file() and '"resourceSpans"' in out.read_text()
    assert len(live.errors) == 1 and "is still written when the episode ends" in live.errors[0]
