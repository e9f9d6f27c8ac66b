"""What an OTLP/HTTP collector answers, taken at its word: a redirect, a partial success, a body without end.

The OpenTelemetry exporter counts a 3xx answer as success (it follows none), so a collector behind a
redirect got nothing while ``export_otel`` returned the number of spans "sent"; it reads no
``partial_success`` either, so spans a collector rejected were said to be sent; and requests read an
answer's body whole, however long a hostile collector made it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import warnings
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.integrations.otel_spans import TraceIncomplete
from noesis_nb.secrets import REDACTED_VALUE as REDACTED

from ..otlp_collector import Collector, answer_with, closed_port, partial_success, take_all

trace_pb = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
KEY = "x-collector-key-0123456789"  # a header value the collector asks for: it goes to no other address


def _agent(task: str, ctx: Any) -> str:
    for _ in range(3):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=1)
    return "ok"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("otel-answers")
    return runs / noesis_nb.solve("export me", using=_agent, runs_dir=runs)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_host_is_an_error_naming_it_and_carries_no_header_there(
    run: Path, otlp_collectors: Callable[..., Collector], status: int
) -> None:
    elsewhere = otlp_collectors(take_all)
    target = elsewhere.url.replace("127.0.0.1", "localhost") + "/v1/traces"  # another host name, the same machine
    redirecting = otlp_collectors(lambda h: answer_with(h, status, Location=target))

    with pytest.raises(ConnectionError) as raised:
        noesis_nb.export_otel(run, endpoint=redirecting.url, headers={"x-api-key": KEY}, timeout=5)

    message = str(raised.value)
    assert redirecting.url in message and str(status) in message and target in message, message
    assert "endpoint=" in message and KEY not in message
    assert len(redirecting.spans) > 0 and elsewhere.requests == [], "the spans went nowhere else, nor the header"


def test_a_redirect_pointing_at_a_secret_names_it_redacted(run: Path, otlp_collectors: Callable[..., Collector]) -> None:
    redirecting = otlp_collectors(lambda h: answer_with(h, 307, Location=f"/v1/traces?api_key={SECRET}"))
    with pytest.raises(ConnectionError, match="307") as raised:
        noesis_nb.export_otel(run, endpoint=redirecting.url, timeout=5)
    assert SECRET not in str(raised.value) and redirecting.url in str(raised.value)


def test_spans_a_collector_rejects_are_a_warning_with_its_count_and_words(
    run: Path, otlp_collectors: Callable[..., Collector]
) -> None:
    partial = otlp_collectors(lambda h: answer_with(h, 200, partial_success(2, f"spans too old; token {SECRET}")))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sent = noesis_nb.export_otel(run, endpoint=partial.url, timeout=5)

    said = [str(w.message) for w in caught if issubclass(w.category, TraceIncomplete)]
    assert sent == len(partial.spans) and len(partial.requests) == 1, "sent once: a partial success is not retried"
    assert len(said) == 1 and "rejected 2 of the spans" in said[0] and "spans too old" in said[0], said
    assert partial.url in said[0] and SECRET not in said[0]


@pytest.mark.parametrize("count", ["3", 3])  # OTLP/JSON writes a 64-bit count as text; some write a number
def test_spans_rejected_in_an_otlp_json_answer_are_a_warning_too(
    run: Path, otlp_collectors: Callable[..., Collector], count: Any
) -> None:
    body = json.dumps({"partialSuccess": {"rejectedSpans": count, "errorMessage": "over the span limit"}}).encode()
    partial = otlp_collectors(lambda h: answer_with(h, 200, body, **{"Content-Type": "application/json"}))
    with pytest.warns(TraceIncomplete, match=r"rejected 3 of the spans: 'over the span limit'"):
        noesis_nb.export_otel(run, endpoint=partial.url, timeout=5)


@pytest.mark.parametrize(
    "body",
    [
        b'{"partialSuccess": {"rejectedSpans": 0}, "partialSuccess": {"rejectedSpans": 3}}',  # which one counts?
        b'{"partialSuccess": {"rejectedSpans": 3, "rejectedSpans": 0}}',
        b'{"partialSuccess": {"rejectedSpans": NaN}}',
        b'{"partialSuccess": {"rejectedSpans": "\xc2\xb2"}}',  # a superscript two: str.isdigit says yes
        b'{"partialSuccess": {"rejectedSpans": 3}} and then some',
        b'{"partialSuccess": {"rejectedSpans": true}}',
        b'{"partialSuccess": {"rejectedSpans": "3", "errorMessage": ["over", "limit"]}}',
    ],
    ids=["key-twice", "count-twice", "nan", "superscript", "trailing", "bool", "message-list"],
)
def test_an_otlp_json_answer_that_cannot_be_read_strictly_says_the_spans_fate_is_unknown(
    run: Path, otlp_collectors: Callable[..., Collector], body: bytes
) -> None:
    """Read leniently, such an answer was taken as 'every span taken' (0 rejected) or as the last of two values."""
    unclear = otlp_collectors(lambda h: answer_with(h, 200, body, **{"Content-Type": "application/json"}))
    with pytest.warns(TraceIncomplete, match=r"JSON that cannot be read .*whether it took every span is unknown"):
        noesis_nb.export_otel(run, endpoint=unclear.url, timeout=5)


TAKEN_ANSWERS = [  # (Content-Type, body) of a 200 that says every span was taken, or nothing of them
    ("application/x-protobuf", b""),  # an empty OTLP answer: no partial success
    ("application/json", b""),
    ("application/json", b"{}"),
    ("application/json", b'{"partialSuccess": {}}'),
    ("application/json", b'{"partialSuccess": {"rejectedSpans": "0"}}'),
]


@pytest.mark.parametrize(
    ("content_type", "body"), TAKEN_ANSWERS, ids=["protobuf", "json-empty", "json-{}", "json-no-count", "json-0"]
)
def test_a_collector_answer_saying_every_span_was_taken_warns_nothing(
    run: Path, otlp_collectors: Callable[..., Collector], content_type: str, body: bytes
) -> None:
    taking = otlp_collectors(lambda h: answer_with(h, 200, body, **{"Content-Type": content_type}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert noesis_nb.export_otel(run, endpoint=taking.url, timeout=5) == len(taking.spans) > 0


NO_OTLP_ANSWERS = [  # a 200 from something that is no OTLP collector: OTLP answers are protobuf or JSON
    ("text/html", b"<!doctype html><html><body>Sign in</body></html>"),  # a web app on the port given
    ("text/html", b"\n\x06\x12\x04spam"),  # bytes a protobuf reader takes for a partial_success saying 'spam'
    ("application/x-protobuf", b"<html>not protobuf</html>"),
]


@pytest.mark.parametrize(("content_type", "body"), NO_OTLP_ANSWERS, ids=["html-page", "html-protobuf-like", "bad-protobuf"])
def test_a_200_that_is_no_otlp_answer_is_one_warning_naming_the_endpoint(
    run: Path, otlp_collectors: Callable[..., Collector], content_type: str, body: bytes
) -> None:
    page = otlp_collectors(lambda h: answer_with(h, 200, body, **{"Content-Type": content_type}))
    with pytest.warns(TraceIncomplete) as caught:
        noesis_nb.export_otel(run, endpoint=page.url, timeout=5)
    said = [str(w.message) for w in caught if issubclass(w.category, TraceIncomplete)]
    assert len(said) == 1 and page.url in said[0], said
    assert "not an OTLP answer" in said[0] and "whether it took the spans is unknown" in said[0], said
    assert "spam" not in said[0]


def test_more_rejected_spans_than_were_sent_is_said_as_such(run: Path, otlp_collectors: Callable[..., Collector]) -> None:
    partial = otlp_collectors(lambda h: answer_with(h, 200, partial_success(50, "quota")))
    with pytest.warns(TraceIncomplete) as caught:
        noesis_nb.export_otel(run, endpoint=partial.url, timeout=5)
    sent = len(partial.spans)
    assert 0 < sent < 50
    said = [str(w.message) for w in caught if issubclass(w.category, TraceIncomplete)]
    assert len(said) == 1 and f"rejected 50 spans, more than the {sent} sent" in said[0], said


def test_a_live_export_notes_rejected_spans_and_sends_none_twice(
    otlp_collectors: Callable[..., Collector], tmp_path: Path
) -> None:
    partial = otlp_collectors(lambda h: answer_with(h, 200, partial_success(1, "one span too large")))

    async def main() -> Any:
        handle = noesis_nb.start("live", using=_agent, runs_dir=tmp_path)
        live = noesis_nb.export_otel(handle, endpoint=partial.url, live=True, interval=0.05, timeout=5)
        await handle.wait()
        await asyncio.to_thread(live.wait, 30)
        return live

    live = asyncio.run(main())
    assert not live.running
    assert any("rejected 1 of the spans" in e and "one span too large" in e for e in live.errors), live.errors
    assert live.sent == len(partial.spans) > 0, "each span sent once: a partial success is not sent again"


ENDLESS = 256 * 1024 * 1024  # the size a hostile collector says its answer is


def test_a_collector_answering_without_end_is_cut_not_read_whole(run: Path, otlp_collectors: Callable[..., Collector]) -> None:
    written: list[int] = []  # what the collector wrote of each answer before the client hung up

    def endless(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/x-protobuf")
        handler.send_header("Content-Length", str(ENDLESS))
        handler.end_headers()
        chunk, done = b"\0" * 65536, 0
        try:
            while done < ENDLESS:
                handler.wfile.write(chunk)
                done += len(chunk)
        except OSError:  # the client hung up
            pass
        written.append(done)

    collector = otlp_collectors(endless)
    noesis_nb.export_otel(run, endpoint=collector.url, timeout=30)
    deadline = time.monotonic() + 60
    while not written and time.monotonic() < deadline:  # noted once the client hung up
        time.sleep(0.01)
    assert written, "the client never hung up on the endless answer"
    assert written[0] < ENDLESS, "the client read the hostile answer to its end"


def test_a_live_export_to_a_collector_that_never_answers_ends_soon_after_its_episode(tmp_path: Path) -> None:
    """Each look was spaced by ten times the clock time it took, a collector's wait included: one that accepts and
    never answers (timeout=1) held the last looks, and ``wait()``, back 10 s after each of the four tries past the
    episode's end (a minute and more; seven at the default timeout). The bound below is a liveness check: the
    export now ends within a few of its timeouts, where it took over forty seconds."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # closed by the test
                return
            held.append(connection)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()

    async def main() -> Any:
        handle = noesis_nb.start("hung collector", using=_agent, runs_dir=tmp_path)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        live = noesis_nb.export_otel(handle, endpoint=url, live=True, interval=0.05, timeout=1)
        await handle.wait()
        await asyncio.to_thread(live.wait, 30)
        return handle, live

    try:
        handle, live = asyncio.run(main())
    finally:
        listener.close()
        for connection in held:
            connection.close()
    assert handle.status == "ok" and live.sent == 0 and live.errors
    assert not live.running, "the export still waits on a collector that never answers, long after its episode"


PROXY_LIMIT = 1024 * 1024  # nginx's default client_max_body_size, in front of many collectors


def _many_calls(task: str, ctx: Any) -> str:
    model = "a-model-with-a-long-deployment-name-" + "x" * 180
    for n in range(2500):
        ctx.model_call(model, provider="azure.ai.openai", input_tokens=n, output_tokens=1)
    return "ok"


def test_a_long_run_reaches_a_collector_behind_a_proxys_body_limit(
    otlp_collectors: Callable[..., Collector], tmp_path: Path
) -> None:
    """The whole export went in one request: a proxy's 1 MB limit refused it (413) and nothing arrived; past the
    exporter's own 64 MB cap it was dropped and said as a collector nobody listens on."""
    proxied = otlp_collectors(take_all, body_limit=PROXY_LIMIT)
    run = tmp_path / noesis_nb.solve("many calls", using=_many_calls, runs_dir=tmp_path)

    sent = noesis_nb.export_otel(run, endpoint=proxied.url, timeout=30)

    ids = [span.span_id for span in proxied.spans]
    assert sent > 2500 and len(ids) == len(set(ids)) == sent, "every span arrived, once"


def test_a_collector_that_stops_taking_spans_midway_is_named_with_how_many_arrived(
    otlp_collectors: Callable[..., Collector], tmp_path: Path
) -> None:
    answers = iter([200])
    tiring = otlp_collectors(lambda h: answer_with(h, next(answers, 413)))
    run = tmp_path / noesis_nb.solve("many calls", using=_many_calls, runs_dir=tmp_path)

    with pytest.raises(ConnectionError, match=r"413 .* body limit") as raised:
        noesis_nb.export_otel(run, endpoint=tiring.url, timeout=30)

    taken_first, refused = [len(request.spans) for request in tiring.requests]  # the second request, refused, ends the export
    assert f"({taken_first} of the " in str(raised.value) and "spans were sent before it" in str(raised.value)
    assert 0 < refused <= 512 and tiring.url in str(raised.value)


PLAIN_TOKEN = "plain0token0no0pattern0finds"  # a header value no secret pattern knows


@pytest.mark.parametrize(
    ("status", "reason", "body"),
    [
        (401, f"token {PLAIN_TOKEN} is not valid", b""),
        (307, f"go {PLAIN_TOKEN}", b""),
        (200, "OK", partial_success(1, f"span refused for token {PLAIN_TOKEN}")),
    ],
    ids=["refusal", "redirect", "partial"],
)
def test_a_collector_echoing_the_headers_in_its_answer_reaches_no_error_with_them(
    run: Path, otlp_collectors: Callable[..., Collector], status: int, reason: str, body: bytes
) -> None:
    """The answer's reason phrase and ``partial_success`` message are quoted in the error: a collector that echoes
    the token it was sent put it there whole, as a plain token matches no secret pattern."""

    def echo(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status, reason)
        handler.send_header("Location", f"/v1/traces?seen={PLAIN_TOKEN}")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    echoing = otlp_collectors(echo)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            noesis_nb.export_otel(run, endpoint=echoing.url, headers={"authorization": f"Bearer {PLAIN_TOKEN}"}, timeout=5)
        except ConnectionError as exc:
            said = [str(exc)]
        else:
            said = [str(w.message) for w in caught if issubclass(w.category, TraceIncomplete)]
    assert said and echoing.url in said[0], said
    assert all(PLAIN_TOKEN not in text for text in said), said
    assert echoing.requests[0].headers.get("authorization") == f"Bearer {PLAIN_TOKEN}"  # the request itself keeps it


@pytest.mark.parametrize("differing", [None, 60])
def test_a_live_export_keeps_a_bounded_list_of_errors_however_many_looks_fail(
    tmp_path: Path, otlp_collectors: Callable[..., Collector], differing: Any
) -> None:
    """A collector whose answer differs each time (a request number in what it says of the spans it rejected) added
    one line to ``errors`` at every look of the export, as long as the episode ran: a list without end in a long
    session. The last line counts the problems left out, each once (``differing=60``: from the 60th request on, one
    answer repeated). (A collector refusing the request itself, a 400, is asked once: see test_otlp_live_refusals.)"""
    from noesis_nb.integrations.otel_live import MAX_ERRORS

    def numbering(handler: BaseHTTPRequestHandler) -> None:
        asked = len(numbered.requests)
        said = f"request {asked if differing is None else min(asked, differing)} refused"
        answer_with(handler, 200, partial_success(1, said))

    numbered = otlp_collectors(numbering)
    refused = numbered.requests

    def agent(task: str, ctx: Any) -> str:
        deadline = time.monotonic() + 60  # liveness only: the looks come every few milliseconds
        answered = -1
        while len(refused) < 2 * MAX_ERRORS and time.monotonic() < deadline:
            if len(refused) != answered:  # a new span for the next look to send (one a request: the run stays small)
                answered = len(refused)
                ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1, output_tokens=1)
            time.sleep(0.002)
        return "ok"

    async def main() -> Any:
        handle = noesis_nb.start("refused", using=agent, runs_dir=tmp_path)
        live = noesis_nb.export_otel(handle, endpoint=numbered.url, live=True, interval=0.005, timeout=5)
        await handle.wait()
        await asyncio.to_thread(live.wait, 60)
        return live

    live = asyncio.run(main())
    assert len(refused) >= 2 * MAX_ERRORS, "the collector was asked fewer times than the case needs"
    assert len(live.errors) == MAX_ERRORS and "request 1 refused" in live.errors[0]
    left_out = (len(refused) if differing is None else differing) - MAX_ERRORS + 1
    assert f"… and {left_out} more error(s) not kept" in live.errors[-1], (live.errors[-1], len(refused))


@pytest.mark.parametrize("variable", ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"])
def test_a_header_from_the_exporters_environment_echoed_in_a_refusal_is_redacted(
    run: Path, otlp_collectors: Callable[..., Collector], monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """The exporter adds the headers of OTEL_EXPORTER_OTLP_*HEADERS to each request: a collector echoing one put it
    whole in the error, as only headers= values were known."""
    monkeypatch.setenv(variable, f"x-api-key={PLAIN_TOKEN}")

    def echo(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(403, f"key {handler.headers.get('x-api-key')} refused")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    echoing = otlp_collectors(echo)
    with pytest.raises(ConnectionError, match="403") as raised:
        noesis_nb.export_otel(run, endpoint=echoing.url, timeout=5)
    assert echoing.requests[0].headers.get("x-api-key") == PLAIN_TOKEN and PLAIN_TOKEN not in str(raised.value)


@pytest.mark.parametrize("token", ["q8Zr", "k3j4h5g", "q8Zr2kLp", "Zr2kLp9xW4m"])  # 4 to 11 characters
@pytest.mark.parametrize("given", ["headers", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"])
@pytest.mark.parametrize("where", ["reason", "partial"])
def test_a_short_header_value_echoed_by_the_collector_is_redacted(
    run: Path, otlp_collectors: Callable[..., Collector], monkeypatch: pytest.MonkeyPatch, token: str, given: str, where: str
) -> None:
    """Only header values of 8 characters or more were hidden: a short key (a 10-character API key, a 6-character
    PIN) echoed in the collector's answer reached the error whole. Plain values ("1", "true") of other headers sent
    along leave the answer's own words and numbers as they are."""

    def echo(handler: BaseHTTPRequestHandler) -> None:
        seen = handler.headers.get("x-api-key")
        if where == "reason":
            handler.send_response(401, f"key {seen} refused (1 of 2 true checks)")
            body = b""
        else:
            handler.send_response(200, "OK")
            body = partial_success(1, f"span 1 refused: key {seen}; true")
        handler.send_header("Content-Type", "application/x-protobuf")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    echoing = otlp_collectors(echo)
    headers = {"x-debug": "1", "x-sampled": "true"}
    if given == "headers":
        headers["x-api-key"] = token
    else:
        monkeypatch.setenv(given, f"x-api-key={token}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            noesis_nb.export_otel(run, endpoint=echoing.url, headers=headers, timeout=5)
        except ConnectionError as exc:
            said = str(exc)
        else:
            said = " ".join(str(w.message) for w in caught if issubclass(w.category, TraceIncomplete))
    assert echoing.requests[0].headers.get("x-api-key") == token  # sent as given
    assert f"key {REDACTED}" in said and token not in said, said
    if where == "reason":
        assert "'401 key" in said and "(1 of 2 true checks)" in said, said
    else:
        assert "rejected 1 of the spans" in said and "span 1 refused" in said and "; true" in said, said


@pytest.mark.parametrize("pad", [280, 290, 295])
def test_a_header_value_echoed_where_the_quote_is_cut_leaves_none_of_it(
    run: Path, otlp_collectors: Callable[..., Collector], pad: int
) -> None:
    """The collector's words were cut to the quote's length before the headers were hidden: a token standing at the
    cut left its first characters in the warning."""
    token = "plain0token0no"  # no pattern or randomness rule finds it: only the header it was sent in says so

    def echo(handler: BaseHTTPRequestHandler) -> None:
        answer_with(handler, 200, partial_success(1, "x" * pad + " " + token + " rejected"))

    echoing = otlp_collectors(echo)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        noesis_nb.export_otel(run, endpoint=echoing.url, headers={"x-api-key": token}, timeout=5)
    (said,) = [str(w.message) for w in caught if issubclass(w.category, TraceIncomplete)]
    assert "rejected 1 of the spans" in said and token[:4] not in said, said


@pytest.mark.parametrize("refusal", ["503", "closed port"])
def test_a_live_export_backs_off_from_a_collector_that_refuses_at_once_and_says_so_once(
    tmp_path: Path, otlp_collectors: Callable[..., Collector], refusal: str
) -> None:
    """A collector that is down (nothing listens) or failing (5xx at once) was asked again at every look, for as long
    as the episode ran: with a short interval, hundreds of requests a minute. The wait between tries doubles after
    each refusal (a lower bound the thread keeps however busy the machine is), and ``errors`` says so once."""
    interval = 0.05
    failing = otlp_collectors(lambda handler: answer_with(handler, 503))
    asked = failing.requests
    # a closed port: each connection is refused at once
    endpoint = failing.url if refusal == "503" else f"http://127.0.0.1:{closed_port()}"
    seen: list[int] = []

    def agent(task: str, ctx: Any) -> str:
        deadline = time.monotonic() + 60  # liveness only
        while time.monotonic() < deadline and (len(asked) < 6 if refusal == "503" else not seen):
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1, output_tokens=1)  # new events at every look
            time.sleep(0.01)
        return "ok"

    async def main() -> Any:
        handle = noesis_nb.start("refused", using=agent, runs_dir=tmp_path)
        live = noesis_nb.export_otel(handle, endpoint=endpoint, live=True, interval=interval, timeout=0.5)
        if refusal != "503":  # nothing to count at a closed port: the export's own note says it backed off
            while not any("less and less often" in e for e in live.errors) and not handle.done():
                await asyncio.sleep(0.01)
            seen.append(1)
        await handle.wait()
        await asyncio.to_thread(live.wait, 60)
        return live

    live = asyncio.run(main())
    if refusal == "503":
        gaps = [b.at - a.at for a, b in zip(asked, asked[1:])]
        assert len(gaps) >= 5 and gaps[4] >= 16 * interval, gaps  # 2**5 intervals after the fifth refusal in a row
    backing_off = [e for e in live.errors if "less and less often" in e]
    assert len(backing_off) == 1 and "up to 60 s" in backing_off[0], live.errors


def test_a_short_header_value_that_is_also_a_word_of_the_endpoint_leaves_the_endpoint_named(
    run: Path, otlp_collectors: Callable[..., Collector]
) -> None:
    """A short header value (a tenant name) is hidden where the collector says it, not in the endpoint the error
    names: the error still says which collector refused."""

    def refuse(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(403, f"tenant {handler.headers.get('x-tenant')} refused")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    refusing = otlp_collectors(refuse)
    endpoint = refusing.url + "/prod"  # the collector's path holds the tenant's name too
    with pytest.raises(ConnectionError) as raised:
        noesis_nb.export_otel(run, endpoint=endpoint, headers={"x-tenant": "prod"}, timeout=5)
    said = str(raised.value)
    assert f"{refusing.url}/prod/v1/traces" in said and f"tenant {REDACTED} refused" in said, said
