"""export_otel's own options and a collector's refusal: one error naming the value and the fix, said once.

A ``timeout`` that is no positive number reached the OTLP exporter (a TypeError from inside it, or a
refusal asking whether a collector listens); a ``service_name`` went out unscreened as the resource's
``service.name``; a collector that answered 500 was reported as one nobody listens on, while the
exporter's own log lines repeated the URL whole, a key in its query string included.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import RunWriteError
from noesis_nb.integrations.otel_spans import TraceIncomplete

from ..otlp_collector import Collector, answer_with, closed_port

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=1)
    return "ok"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("otel-errors")
    return runs / noesis_nb.solve("export me", using=_agent, runs_dir=runs)


@pytest.mark.parametrize(
    ("options", "error", "fragment"),
    [
        ({"timeout": "5"}, TypeError, r"timeout='5'\): give the seconds"),  # was a TypeError from inside the exporter
        ({"timeout": -1}, ValueError, r"timeout=-1\): give the seconds"),  # was "is a collector listening there?"
        ({"timeout": float("nan")}, ValueError, r"timeout=nan\)"),
        ({"timeout": 0}, ValueError, r"timeout=0\)"),
        ({"timeout": 1e300}, ValueError, r"timeout=1e\+300\): .* at most 86400"),  # was an OverflowError inside
        ({"timeout": 10**400}, ValueError, r"timeout=\d+.*\): .* at most 86400"),  # was an OverflowError
        ({"timeout": True}, TypeError, r"timeout=True\)"),
        ({"service_name": 5}, TypeError, r"service_name=5\): give the service's name as text"),
        ({"service_name": ""}, TypeError, r"service_name=''\)"),
    ],
)
def test_a_timeout_or_service_name_of_the_wrong_kind_is_named_before_anything_is_written(
    run: Path, tmp_path: Path, options: dict[str, Any], error: type[Exception], fragment: str
) -> None:
    out = tmp_path / "t.json"
    with pytest.raises(error, match=fragment):
        noesis_nb.export_otel(run, endpoint="http://127.0.0.1:9", path=out, **options)
    assert not out.exists()


def test_a_service_name_holding_a_secret_leaves_redacted(run: Path, tmp_path: Path, otlp_collector: Collector) -> None:
    out = tmp_path / "t.json"
    noesis_nb.export_otel(run, endpoint=otlp_collector.url, path=out, service_name=f"agent {SECRET}", timeout=5)
    wire = b"".join(request.body for request in otlp_collector.requests)
    assert SECRET not in out.read_text() and SECRET.encode() not in wire
    assert "agent [REDACTED]" in out.read_text() and b"agent [REDACTED]" in wire


def test_a_collector_that_answers_an_error_is_named_with_its_answer(
    run: Path, caplog: pytest.LogCaptureFixture, otlp_collectors: Callable[..., Collector]
) -> None:
    refusing = otlp_collectors(lambda handler: answer_with(handler, 400))
    with caplog.at_level(logging.DEBUG), pytest.raises(ConnectionError) as raised:
        noesis_nb.export_otel(run, endpoint=refusing.url, timeout=5)
    message = str(raised.value)
    assert refusing.url in message and "400" in message and "listening" not in message
    assert not [r for r in caplog.records if r.name.startswith("opentelemetry")], "the refusal is said once, in the error"


def test_a_key_in_the_endpoints_query_reaches_no_log_line(run: Path, caplog: pytest.LogCaptureFixture) -> None:
    port = closed_port()  # nothing listens there any more
    with caplog.at_level(logging.DEBUG), pytest.raises(ConnectionError, match=f"{port}.*refused the connection") as raised:
        noesis_nb.export_otel(run, endpoint=f"http://127.0.0.1:{port}/v1/traces?api_key={SECRET}", timeout=1)
    assert SECRET not in str(raised.value) and "refused" in str(raised.value).lower()
    assert SECRET not in caplog.text and not [r for r in caplog.records if r.name.startswith("opentelemetry")]


def test_a_header_value_requests_would_refuse_is_named_without_the_value(run: Path) -> None:
    for value in (f"Bearer {SECRET}\n", f" {SECRET}", f"a\r{SECRET}"):
        with pytest.raises(ValueError, match=r"the value of 'authorization' has a line break") as raised:
            noesis_nb.export_otel(run, endpoint="http://127.0.0.1:9", headers={"authorization": value}, timeout=1)
        assert SECRET not in str(raised.value)


@pytest.mark.parametrize("damage", ["missing", "empty"])
def test_a_run_without_events_is_said_to_be_left_out_not_exported_as_nothing(run: Path, tmp_path: Path, damage: str) -> None:
    """A run folder whose events.jsonl is gone or empty exported zero spans and said nothing."""
    copy = tmp_path / run.name
    shutil.copytree(run, copy)
    log = copy / "events.jsonl"
    log.unlink() if damage == "missing" else log.write_bytes(b"")
    with pytest.warns(TraceIncomplete, match=r"events\.jsonl (is missing|holds no event); the run is left out"):
        assert noesis_nb.export_otel(copy, path=tmp_path / "t.json") == 0


def test_a_run_just_made_with_no_event_yet_exports_nothing_and_warns_nothing(tmp_path: Path) -> None:
    made = tmp_path / "ep_01K9ZZZZZZZZZZZZZZZZZZZZZZ"
    made.mkdir()
    (made / "learn.jsonl").touch()
    (made / "state.json").write_text("{}")
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceIncomplete)
        assert noesis_nb.export_otel(made, path=tmp_path / "t.json") == 0


def test_a_path_that_is_a_fifo_under_a_file_or_refused_is_named_and_left_alone(run: Path, tmp_path: Path) -> None:
    """A FIFO (a device the same: ``/dev/null``) was replaced by a plain trace file; a path under a file, with a NUL or
    a name too long raised the system's bare error from inside pathlib."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"path='.*pipe'\) is a FIFO, which the trace file would replace"):
        noesis_nb.export_otel(run, path=fifo)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    (tmp_path / "notes").write_text("keep")
    with pytest.raises(ValueError, match=r"'.*notes' is a file, not a folder; give a path in a folder"):
        noesis_nb.export_otel(run, path=tmp_path / "notes" / "t.json")
    assert (tmp_path / "notes").read_text() == "keep"
    with pytest.raises(ValueError, match="a path has no NUL character"):
        noesis_nb.export_otel(run, path=f"{tmp_path}/a\0b.json")
    with pytest.raises(RunWriteError, match=r"could not write .*: File name too long .*give the path of a file in a folder"):
        noesis_nb.export_otel(run, path=tmp_path / ("a" * 300 + ".json"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "pipe"]


def test_one_run_named_several_ways_is_exported_once(run: Path, tmp_path: Path) -> None:
    """Its id, its folder and the folder with a trailing slash gave the same spans over, with the same ids, in one
    OTLP document (a backend sees one trace whose spans all repeat)."""
    once = noesis_nb.export_otel(run, path=tmp_path / "one.json")
    named = [run, run.name, f"{run}/", run]
    assert noesis_nb.export_otel(named, path=tmp_path / "many.json", runs_dir=run.parent) == once
    assert (tmp_path / "many.json").read_bytes() == (tmp_path / "one.json").read_bytes()


@pytest.mark.parametrize("live", ["no", 1, None])
def test_live_that_is_no_bool_is_refused_not_taken_as_a_yes(run: Path, tmp_path: Path, live: Any) -> None:
    with pytest.raises(TypeError, match=r"export_otel\(live=.*\): pass True \(follow a running episode\) or False"):
        noesis_nb.export_otel(run, path=tmp_path / "t.json", live=live)
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("name", ["x api key", "x-api-key:", "x\nkey", ""])
def test_a_header_name_that_is_no_token_is_named_before_sending(run: Path, name: str) -> None:
    """requests refused it only once the run was read, and it came back as a collector that could not be reached."""
    with pytest.raises(ValueError, match=r"is no header name .* give one such as 'authorization'"):
        noesis_nb.export_otel(run, endpoint="http://127.0.0.1:9", headers={name: "k"}, timeout=1)


@pytest.mark.parametrize(
    ("endpoint", "fragment"),
    [
        ("http://exa mple.com:4318", "a URL has no spaces"),
        ("http://", "it names no host"),
        ("http://:4318/v1/traces", "it names no host"),
        ("http://127.0.0.1:99999", "its host or port cannot be read"),
        ("http://[::1:4318", "its host or port cannot be read"),
        # the phrase every refused character is named with (it said 'it holds U+202E, a control or invisible …')
        ("http://exa\u202emple.com:4318", r"it holds the invisible character '\\u202e' \(U\+202E [A-Z -]+\) at position 10, "),
        ("http://127.0.0.1:4318/\x00", r"it holds the control character '\\x00' \(U\+0000\) at position 22, which no URL has"),
        (
            "http://127.0.0.1:4318/v1/traces?a=\u200b",
            r"it holds the invisible character '\\u200b' \(U\+200B ZERO WIDTH SPACE\) at position 34",
        ),
        ("http://exa\u2603mple.com:4318", r"its host is no name a request can go to"),
    ],
)
def test_an_endpoint_that_is_no_reachable_url_is_named_before_reading(run: Path, endpoint: str, fragment: str) -> None:
    """It came back, after the run was read, as a collector that could not be reached (InvalidURL)."""
    with pytest.raises(ValueError, match=rf"export_otel\(endpoint=.*\): {fragment}.*e\.g\. 'http://localhost:4318'"):
        noesis_nb.export_otel(run, endpoint=endpoint, timeout=1)


def test_an_endpoint_holding_a_nul_reaches_no_collector(run: Path, otlp_collector: Collector) -> None:
    """``…/\\x00`` was sent as given (a NUL in the request line) and the collector asked with it."""
    with pytest.raises(ValueError, match=r"it holds the control character '\\x00' \(U\+0000\)"):
        noesis_nb.export_otel(run, endpoint=f"{otlp_collector.url}/\x00", timeout=5)
    assert otlp_collector.requests == []


@pytest.mark.parametrize("interval", [float("inf"), 1e300, 10**400, float("nan"), 0])
def test_a_live_interval_out_of_range_is_refused_before_the_thread_starts(tmp_path: Path, interval: Any) -> None:
    """inf or 1e300 started a thread that died at its first wait (a traceback on stderr, nothing sent, no error)."""
    import asyncio

    async def main() -> None:
        handle = noesis_nb.start("live", using=_agent, runs_dir=tmp_path)
        try:
            with pytest.raises(ValueError, match=r"interval=.*: give the seconds between checks .* at most 86400"):
                noesis_nb.export_otel(handle, endpoint="http://127.0.0.1:9", live=True, interval=interval)
        finally:
            await handle.wait()

    asyncio.run(main())


@pytest.mark.parametrize("value", [f"Bearer €{SECRET}", f"Bearer {SECRET}\0", f"Bearer\x7f{SECRET}", f"{SECRET}\x1b[0m", "😀"])
def test_a_header_value_http_cannot_carry_is_named_before_sending_without_the_value(
    run: Path, otlp_collector: Collector, value: str
) -> None:
    """'€' failed inside the exporter and was said as a collector nobody listens on; a NUL or DEL went out as sent."""
    with pytest.raises(ValueError, match=r"the value of 'authorization' holds a control character") as raised:
        noesis_nb.export_otel(run, endpoint=otlp_collector.url, headers={"authorization": value}, timeout=5)
    assert SECRET not in str(raised.value) and "😀" not in str(raised.value)
    assert otlp_collector.requests == [], "named before sending: nothing reached the collector"


def test_a_header_value_in_latin1_or_with_a_tab_is_still_sent(run: Path, otlp_collector: Collector) -> None:
    assert noesis_nb.export_otel(run, endpoint=otlp_collector.url, headers={"x-note": "caf\xe9\tok"}, timeout=5) > 0
    assert otlp_collector.requests[0].headers["x-note"] == "caf\xe9\tok"


@pytest.mark.parametrize(
    "options",
    [{}, {"endpoint": "ftp://host"}, {"path": "a\0b"}, {"endpoint": "http://localhost:4318", "timeout": -1}],
)
def test_a_call_given_wrong_options_is_one_noesis_nb_error_naming_the_fix(options: dict[str, Any]) -> None:
    """One line in a cell (a ``NoesisNbError``), still a ``ValueError`` for code that catches one."""
    from noesis_nb.errors import InvalidOptionError
    from noesis_nb.integrations.otel import export_otel

    with pytest.raises(InvalidOptionError, match=r"export_otel.*(give|needs)") as told:
        export_otel("ep_any", **options)
    assert isinstance(told.value, ValueError)
