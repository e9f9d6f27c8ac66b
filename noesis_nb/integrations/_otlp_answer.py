"""What an OTLP/HTTP collector answered, for the one error ``export_otel`` raises when it refuses (imports requests).

The OpenTelemetry exporter says only "failure" to its caller and writes the reason to its logger,
the collector's URL whole (a key in its query string too) and once per retry. So the exporter is
given a ``requests`` session that notes the last answer or connection error, and its log lines on
the sending thread are held back while it sends: the error raised says it once, redacted.

The exporter also counts a redirect (3xx, which it does not follow) as success, and reads no
``partial_success`` in a 200 answer: the session notes both, so the sender can say the spans were
not delivered, or which of them the collector rejected. An answer's body is read up to
``BODY_LIMIT`` bytes and within the request's timeout (a hostile collector's endless body is cut).
"""

from __future__ import annotations

import contextlib
import datetime
import email.utils
import errno
import logging
import re
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import requests

from ..secrets import REDACTED_VALUE, shown
from ..secrets.quoted import quoted
from ._jsontext import JSONTextError, loads_text
from .otel_url import filtering

__all__ = [
    "HeardSession",
    "unsendable",
    "retry_after_s",
    "permanent",
    "quiet_exporter",
    "refusal",
    "redirected",
    "partly_rejected",
    "hidden",
    "BODY_LIMIT",
    "SHORTEST_HIDDEN",
]

BODY_LIMIT = 64 * 1024  # bytes of an answer read: an OTLP answer is a few bytes; the rest is cut, never held

#: the exporter's loggers (its module's, and the shared HTTP client's that recent versions log through)
_LOGGERS = ("opentelemetry.exporter.otlp.proto.http.trace_exporter", "opentelemetry.exporter.otlp.common.http")
_ERRNO = re.compile(r"\[Errno -?\d+\] [^'\"()\]]+")


def unsendable(url: str) -> str | None:
    """Why requests refuses to send to ``url``, said before a run is read (it was said after, as a collector that
    could not be reached): a host with a letter or sign no domain name holds (IDNA). None when it can be sent."""
    try:
        requests.models.PreparedRequest().prepare_url(url, None)
    except requests.exceptions.InvalidURL as exc:  # its words quote the URL whole (a query token too): not repeated
        if "label" in str(exc):
            return "its host is no name a request can go to (a letter or sign a domain name cannot hold)"
        return "requests cannot send to it (InvalidURL)"
    return None


class HeardSession(requests.Session):
    """A session that keeps the last answer (status and reason) or the last connection error's kind."""

    def __init__(self) -> None:
        super().__init__()
        self.status: int | None = None
        self.reason = ""
        self.failure: str | None = None
        self.lasting = False  # the failure is one the same request meets again (see ``_lasting``)
        self.location: str | None = None  # where a redirect pointed (absolute), not followed
        self.content_type = ""
        self.retry_after: float | None = None  # seconds the collector asked to be left alone (``Retry-After``)
        self.body = b""  # the answer's body, at most BODY_LIMIT bytes
        # every header value the exporter sends: hidden in the collector's words before they are quoted (and cut)
        self.sent_headers: dict[str, str] = {}

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        self.status, self.reason, self.failure, self.location, self.body = None, "", None, None, b""
        self.lasting = False
        self.content_type, self.retry_after = "", None
        timeout = kwargs.get("timeout")
        kwargs["stream"] = True  # the body is read here, bounded, not whole by requests
        try:
            response = super().request(*args, **kwargs)
            body = _bounded_body(response, timeout if isinstance(timeout, (int, float)) else None)
        except Exception as exc:
            self.failure, self.lasting = _kind(exc), _lasting(exc)
            raise
        self.status, self.reason, self.body = response.status_code, str(response.reason or ""), body
        self.content_type = str(response.headers.get("Content-Type") or "")
        self.retry_after = retry_after_s(response.headers.get("Retry-After"))
        if 300 <= response.status_code < 400:
            self.location = urljoin(response.url, response.headers.get("Location") or "") or None
        return response


def retry_after_s(value: str | None) -> float | None:
    """The seconds a ``Retry-After`` header asks for (a number of seconds, or an HTTP date), None when absent or
    unreadable (RFC 9110 10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=datetime.UTC)
    return max(at.timestamp() - time.time(), 0.0)


def _bounded_body(response: requests.Response, timeout: float | None) -> bytes:
    """At most ``BODY_LIMIT`` bytes of the answer, read within ``timeout`` seconds (the connection closed when cut)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    cut = True  # until the body was read to its end: the connection is then closed, not kept for the next request
    try:
        for chunk in response.iter_content(8192):
            chunks.append(chunk)
            size += len(chunk)
            if size >= BODY_LIMIT or (deadline is not None and time.monotonic() > deadline):
                break
        else:
            cut = False
    finally:
        if cut:
            response.close()
    body = b"".join(chunks)[:BODY_LIMIT]
    response._content = body  # what the exporter reads as the answer (requests' own cache of the body)
    return body


def _kind(exc: BaseException) -> str:
    """A connection error as its type and OS or TLS reason (``[Errno 111] Connection refused``, ``[SSL:
    CERTIFICATE_VERIFY_FAILED]``), never its text: that repeats the URL, and a header value requests refuses."""
    found = _ERRNO.search(str(exc)) or _SSL_REASON.search(str(exc))
    return f"{type(exc).__name__}: {found.group(0).strip()}" if found else type(exc).__name__


_SSL_REASON = re.compile(r"\[SSL: [A-Z0-9_]+\]")
#: TLS failures the same request meets again: a certificate not trusted here (or for another host name), and a
#: collector speaking plain HTTP on an https:// URL. A handshake cut short (EOF, reset) may be the network's: not these
_LASTING_SSL = ("CERTIFICATE_VERIFY_FAILED", "WRONG_VERSION_NUMBER")


def _lasting(exc: BaseException) -> bool:
    """Whether sending the same request again meets the same failure: an invalid URL or header, or a TLS failure above."""
    if isinstance(exc, (requests.exceptions.InvalidURL, requests.exceptions.InvalidSchema, requests.exceptions.MissingSchema)):
        return True
    if isinstance(exc, requests.exceptions.InvalidHeader):
        return True
    return isinstance(exc, requests.exceptions.SSLError) and any(reason in str(exc) for reason in _LASTING_SSL)


class _HeldBack(logging.Filter):
    """Drops the records logged on one thread (the one sending); other threads' exports log as before."""

    def __init__(self) -> None:
        super().__init__()
        self.thread = threading.get_ident()

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread != self.thread


@contextlib.contextmanager
def quiet_exporter() -> Iterator[None]:
    """The exporter's log lines held back on this thread for the block (``refusal`` says what they would)."""
    with filtering(tuple(_LOGGERS), _HeldBack()):
        yield


#: the shortest header value hidden in an answer: one of 1–3 characters (``1``, ``on``) is no credential, and
#: hiding it would blank ordinary words and numbers of the answer (``401``, ``spans 1``)
SHORTEST_HIDDEN = 4
#: header values that say how to talk, not who talks: never hidden (``x-debug: true``, ``accept: application/json``)
_PLAIN_VALUES = frozenset(
    {"true", "false", "none", "null", "gzip", "deflate", "identity", "close", "keep-alive", "no-cache", "trailers"}
)
_MEDIA_TYPE = re.compile(r"[a-z]+/[a-z0-9.+-]+\Z")
#: the scheme before a credential (``Bearer <token>``): the token is hidden, the scheme's name is no secret
_SCHEMES = frozenset({"bearer", "basic", "token", "digest", "negotiate", "apikey", "api-key", "key"})


def hidden(text: str, headers: dict[str, str] | None, shortest: int = SHORTEST_HIDDEN) -> str:
    """``text`` with each header value given, and each word of one (the token after ``Bearer``), redacted: a
    collector's answer may echo what it was sent (``401 bad token <token>``), and a plain token matches no
    pattern ``shown`` knows. A value of 8 characters or more is redacted wherever it stands; a shorter one where it
    stands as a word of its own (not inside a longer word or number); one under ``SHORTEST_HIDDEN`` characters, an
    auth scheme's name and a protocol word (``true``, ``gzip``, a media type) are left as they are. ``shortest``:
    for a text that is not the collector's (the error's own words, the endpoint), only values at least that long."""
    values = {
        v for value in (headers or {}).values() for v in (value.strip(), *value.split()) if len(v) >= shortest and _hideable(v)
    }
    for value in sorted(values, key=len, reverse=True):
        if len(value) >= 8:
            text = text.replace(value, REDACTED_VALUE)
        else:
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", REDACTED_VALUE, text)
    return text


def _heard(words: str, session: HeardSession) -> str:
    """What the collector said, as an error may quote it: the headers it was sent hidden first (a cut made
    afterwards would leave a token's first characters), then any secret ``shown`` finds."""
    return shown(hidden(words, session.sent_headers))


def _hideable(value: str) -> bool:
    lowered = value.lower()
    if len(value) < SHORTEST_HIDDEN or lowered in _PLAIN_VALUES or lowered in _SCHEMES:
        return False
    return not _MEDIA_TYPE.match(lowered)


def redirected(url: str, session: HeardSession) -> str | None:
    """The error for a redirect the exporter took as success (it sent the spans nowhere), or None."""
    if session.status is None or not 300 <= session.status < 400:
        return None
    answer = f"{session.status} {_heard(session.reason, session)}".strip()
    to = f" to {quoted(_heard(session.location, session), 200)}" if session.location else ""
    return (
        f"the OTLP endpoint {quoted(shown(url))} answered {quoted(answer)}, a redirect{to}, and the spans were not "
        "sent (a redirect is not followed: it would carry headers= to another address); give the collector's own "
        "OTLP/HTTP URL as endpoint="
    )


def partly_rejected(url: str, session: HeardSession, sent: int | None = None) -> str | None:
    """What the collector said of the spans it rejected in a 200 answer's ``partial_success`` (``sent``: how many
    the request carried), or None. An answer that is no OTLP answer (the spec's are protobuf or JSON, per their
    Content-Type) is said too: a web page there is no collector, and whether it took the spans is unknown."""
    if session.status is None or not 200 <= session.status < 300 or not session.body:
        return None
    where = f"the OTLP endpoint {quoted(shown(url))}"
    kind = session.content_type.split(";")[0].strip().lower()
    if kind == "application/json":  # the OTLP/JSON answer some collectors give whatever they were sent
        try:
            rejected, said = _json_partial(session.body)
        except JSONTextError as exc:
            return (
                f"{where} answered {session.status} with JSON that cannot be read "
                f"({exc.reason}): whether it took every span is unknown (see the collector's log)"
            )
    elif kind in ("", "application/x-protobuf", "application/protobuf"):
        found = _protobuf_partial(session.body)
        if found is None:
            return _no_otlp_answer(where, session.status, "a body that is no OTLP protobuf answer")
        rejected, said = found
    else:  # a page or text: no OTLP answer (a web app on the port given)
        return _no_otlp_answer(where, session.status, f"{quoted(kind, 60)} content")
    if rejected <= 0 and not said:
        return None
    why = f": {quoted(_heard(said, session), 300)}" if said else ""
    if sent is not None and rejected > sent:
        return (
            f"{where} said it rejected {rejected} spans, more than the {sent} sent in that request{why}: its answer "
            "cannot be taken at its word, and whether it took the others is unknown (see the collector's log)"
        )
    return (
        f"{where} rejected {max(rejected, 0)} of the spans{why}; the others were taken (see the collector's log for its limits)"
    )


def _no_otlp_answer(where: str, status: int, what: str) -> str:
    """The warning for a 2xx answer that is neither OTLP protobuf nor OTLP JSON."""
    return (
        f"{where} answered {status} with {what}, not an OTLP answer (protobuf or JSON): it is likely no OTLP "
        "collector (a web app on that port?), and whether it took the spans is unknown; give the collector's OTLP/HTTP "
        "traces URL as endpoint= (port 4318, path …/v1/traces)"
    )


def _protobuf_partial(body: bytes) -> tuple[int, str] | None:
    """Rejected spans and the collector's words in a protobuf ``ExportTraceServiceResponse`` (0, "" when none);
    None when the body is no such answer."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    answer = ExportTraceServiceResponse()
    try:
        answer.ParseFromString(body)
    except Exception:  # no OTLP answer
        return None
    return answer.partial_success.rejected_spans, answer.partial_success.error_message


def _json_partial(body: bytes) -> tuple[int, str]:
    """The same from an OTLP/JSON answer (``partialSuccess.rejectedSpans``: an int64, which OTLP/JSON may write as
    decimal text). Read as the package reads other systems' JSON (``loads_text``: a key written twice is refused);
    an answer whose ``partialSuccess`` cannot be read that way raises :class:`JSONTextError` (the spans' fate is then
    unknown, never taken as all sent). An empty answer, or JSON without ``partialSuccess``, says nothing."""
    try:
        text = body.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise JSONTextError("not UTF-8 text") from None
    if not text.strip():
        return 0, ""
    doc = loads_text(text)
    partial = doc.get("partialSuccess") if isinstance(doc, dict) else None
    if partial is None:
        return 0, ""
    if not isinstance(partial, dict):
        raise JSONTextError(f"partialSuccess is {type(partial).__name__}, not an object")
    count, said = partial.get("rejectedSpans", 0), partial.get("errorMessage", "")
    rejected = _span_count(count)
    if rejected is None:
        raise JSONTextError(f"rejectedSpans is {quoted(count, 40)}, not a count of spans")
    if said is None:
        said = ""
    if not isinstance(said, str):
        raise JSONTextError(f"errorMessage is {type(said).__name__}, not text")
    return rejected, said


def _span_count(value: Any) -> int | None:
    """An int64 count as OTLP/JSON writes one (a number, or its decimal digits as text); None for anything else."""
    if value is None:
        return 0
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,19}", value):
        value = int(value)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        return None
    return value


def refusal(url: str, session: HeardSession, result: Any, timeout: float) -> str:
    """The error for spans the collector at ``url`` did not take: its answer and what to do about it."""
    where = f"the OTLP endpoint {quoted(shown(url))}"
    if session.status is not None:
        answer = f"{session.status} {_heard(session.reason, session)}".strip()
        return f"{where} answered {quoted(answer)} and did not take the spans; {_fix(session.status)}"
    if session.failure is not None and session.failure.startswith("SSLError"):
        return (
            f"{where} could not be reached: its TLS handshake failed ({session.failure}); a collector that speaks plain "
            "HTTP is given as http://, and one whose certificate this machine does not trust needs its CA named "
            "(REQUESTS_CA_BUNDLE=/path/to/ca.pem)"
        )
    if session.failure is not None and _refused_connection(session.failure):
        return (
            f"{where} refused the connection ({session.failure}): nothing listens there. Start the collector, or "
            "give the address it listens on"
        )
    if session.failure is not None:
        return (
            f"{where} could not be reached within timeout={timeout} s ({session.failure}); is a collector listening "
            "there? Start it, or give its address"
        )
    return f"{where} did not accept the spans ({result}); is a collector listening there?"


def _refused_connection(failure: str) -> bool:
    """Whether the request failed because nothing listens at the address (the host said no at once)."""
    return "Connection refused" in failure or "ECONNREFUSED" in failure or f"[Errno {errno.ECONNREFUSED}]" in failure


def permanent(status: int | None) -> bool:
    """Whether an answer with ``status`` will be given again to the same request, however long one waits: a
    redirect (not followed) or a client error (4xx), but for 408 (request timeout) and 429 (too many requests)."""
    return status is not None and 300 <= status < 500 and status not in (408, 429)


def _fix(status: int) -> str:
    """What to do about a collector's answer ``status`` (one that is no success)."""
    if status >= 500:
        return "the collector failed on its side: see its log, then export again (the same spans, the same ids)"
    if status == 429:
        return "the collector is overloaded or limits this sender's rate: export again later (the same spans, the same ids)"
    if status == 413:
        return (
            "it (or a proxy before it) takes no request that large: raise its body limit (requests of at most "
            "512 spans, about 1 MB, are sent)"
        )
    if status in (401, 403, 407):
        return (
            "it refused the credentials: give the ones it asks for in headers= (or OTEL_EXPORTER_OTLP_HEADERS), e.g. "
            "headers={'authorization': 'Bearer …'}"
        )
    if status in (404, 405):
        return "no OTLP/HTTP traces endpoint is there: give the collector's URL (port 4318, path …/v1/traces)"
    return (
        "check that the URL is the collector's OTLP/HTTP traces endpoint (…/v1/traces) and that headers= carries what it asks for"
    )
