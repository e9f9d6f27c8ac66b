"""Where an OTLP export posts, and the headers it takes from its environment, against a real loopback collector.

``/v1/traces`` was glued to the end of the endpoint text: ``http://h:p?tenant=acme`` posted to
``/?tenant=acme/v1/traces``, ``…/v1/traces?tenant=acme`` to ``/v1/traces?tenant=acme/v1/traces``, and a
``#fragment`` was dropped without a word. A bad header in ``OTEL_EXPORTER_OTLP_HEADERS`` (a ``%0A``, a ``€``)
came back as a collector that could not be reached, or a UnicodeEncodeError; the same value in ``headers=``
was refused clearly. urllib3's DEBUG log printed the endpoint's query, a token in it too.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

from ..otlp_collector import Collector

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

SECRET = "Zq8Lm2Xv7Pp4Rt9Wk3Jn6Hb1Yc5Df0Gs8Ae2Qw4Er7Ty"
VARIABLES = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS")


@pytest.fixture
def collector(otlp_collector: Collector, monkeypatch: pytest.MonkeyPatch) -> Collector:
    """A loopback collector taking every request, with no OTLP header variable set around the test."""
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return otlp_collector


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=3, output_tokens=2)
    return "ok"


@pytest.fixture
def run(runs_dir: Path) -> Path:
    return runs_dir / noesis_nb.solve("t", using=_agent, runs_dir=runs_dir)


# (the endpoint's path and query, the request target the OTLP exporter spec gives for it)
TARGETS = [
    ("?tenant=acme", "/v1/traces?tenant=acme"),  # a base URL: /v1/traces joined to its (empty) path
    ("/?tenant=acme&region=eu", "/v1/traces?tenant=acme&region=eu"),
    ("/v1/traces?tenant=acme", "/v1/traces?tenant=acme"),  # the traces URL: used as given
    ("/otlp/?tenant=acme", "/otlp/v1/traces?tenant=acme"),  # a base URL behind a prefix
    ("/otlp/v1/traces", "/otlp/v1/traces"),
    ("", "/v1/traces"),
]


@pytest.mark.parametrize(("tail", "target"), TARGETS)
def test_the_traces_path_joins_the_endpoints_path_and_its_query_is_kept(
    run: Path, collector: Collector, tail: str, target: str
) -> None:
    noesis_nb.export_otel(run, endpoint=collector.url + tail, timeout=10)
    assert collector.requests and {request.path for request in collector.requests} == {target}


def test_a_live_export_posts_where_a_whole_one_does(runs_dir: Path, collector: Collector) -> None:
    async def cell() -> Any:
        handle = noesis_nb.start("live", using=_agent, runs_dir=runs_dir)
        live = noesis_nb.export_otel(handle, endpoint=collector.url + "?tenant=acme", live=True, interval=0.02, timeout=10)
        return await asyncio.wait_for(live, 60)

    live = asyncio.run(cell())
    assert live.errors == [] and live.sent >= 2
    assert {request.path for request in collector.requests} == {"/v1/traces?tenant=acme"}


@pytest.mark.parametrize("tail", ["/#frag", "/v1/traces#x", "?tenant=acme#top", "#"])
def test_a_fragment_is_refused_before_a_run_is_read(run: Path, collector: Collector, tail: str) -> None:
    """No request carries a fragment: the spans went to the URL before it and nothing said so."""
    with pytest.raises(InvalidOptionError, match="fragment"):
        noesis_nb.export_otel(run, endpoint=collector.url + tail, timeout=10)
    assert collector.requests == []


BAD_ENTRIES = [
    f"authorization=Bearer%20{SECRET}%0Ax",  # a line break once URL-decoded
    f"x-k={SECRET}%E2%82%AC",  # '€': past Latin-1
    f"x-k={SECRET}%00",  # NUL
    f"authorization:Bearer {SECRET}",  # no name=value: the exporter logged the entry whole and dropped it
    f"x-tenant=acme,Bearer {SECRET}",  # a second entry that is no pair
    f"x api key={SECRET}",  # a name that is no HTTP token
]


@pytest.mark.parametrize("variable", VARIABLES)
@pytest.mark.parametrize("entry", BAD_ENTRIES)
def test_a_bad_header_in_the_environment_is_named_without_its_value(
    run: Path,
    collector: Collector,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    entry: str,
) -> None:
    monkeypatch.setenv(variable, entry)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(InvalidOptionError) as raised:
        noesis_nb.export_otel(run, endpoint=collector.url, timeout=2)
    said = str(raised.value)
    assert variable in said and "entry" in said, said
    out = capsys.readouterr()
    for text in (said, caplog.text, out.out, out.err):
        assert SECRET not in text and SECRET[:12] not in text
    assert collector.requests == []  # refused before anything was sent


def test_the_exporters_choice_of_variable_is_the_one_checked(
    run: Path, collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``…_TRACES_HEADERS`` set: the exporter never reads ``…_HEADERS``, so a bad value there stops nothing; a
    URL-encoded value is sent decoded, as the exporter sends it."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"x-k={SECRET}%E2%82%AC")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", f"authorization=Bearer%20{SECRET}, x-tenant = acme")
    noesis_nb.export_otel(run, endpoint=collector.url, timeout=10)
    headers = collector.requests[0].headers
    assert headers["authorization"] == f"Bearer {SECRET}" and headers["x-tenant"] == "acme"
    assert "x-k" not in headers


def test_a_query_token_stays_out_of_urllib3s_debug_log(run: Path, collector: Collector, caplog: pytest.LogCaptureFixture) -> None:
    """The request line urllib3 logs at DEBUG held the query whole; the collector still gets it whole."""
    caplog.set_level(logging.DEBUG, logger="urllib3")
    noesis_nb.export_otel(run, endpoint=f"{collector.url}/v1/traces?token={SECRET}&tenant=acme", timeout=10)
    assert collector.requests[0].path == f"/v1/traces?token={SECRET}&tenant=acme"
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("urllib3")]
    assert any('"POST /v1/traces?token=' in line for line in logged), logged  # the line is still logged
    assert not any(SECRET in line for line in logged), logged


# values requests re-quotes before urllib3 logs the request line: hidden only where they were logged as given
REQUOTED = ["S3cr\u00e9t" + SECRET, f"{SECRET}|x", f'{SECRET}"x', f"{SECRET}<x>", f"{SECRET}{{x}}", f"{SECRET}`x", f"{SECRET}'x"]


@pytest.mark.parametrize("value", REQUOTED)
def test_a_query_value_requests_requotes_stays_out_of_urllib3s_debug_log(
    run: Path, collector: Collector, caplog: pytest.LogCaptureFixture, value: str
) -> None:
    """``é``, ``|``, ``"``, ``<>``, ``{}``, a backtick: requests sent them percent-encoded, and urllib3 logged the
    encoded form, which the raw value hidden in the records never matched."""
    caplog.set_level(logging.DEBUG, logger="urllib3")
    noesis_nb.export_otel(run, endpoint=f"{collector.url}?token={value}&tenant=acme", timeout=10)
    assert collector.requests[0].path.startswith("/v1/traces?token=")  # sent, the query kept
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("urllib3"))
    assert '"POST /v1/traces?token=[REDACTED]&tenant=[REDACTED] HTTP/1.1"' in logged, logged
    assert SECRET[:12] not in logged, logged
