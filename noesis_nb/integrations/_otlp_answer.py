"""What an OTLP/HTTP collector answered, for the one error ``export_otel`` raises when it refuses (imports requests).

The OpenTelemetry exporter says only "failure" to its caller and writes the reason to its logger,
the collector's URL whole (a key in its query string too) and once per retry. So the exporter is
given a ``requests`` session that notes the last answer or connection error, and its log lines on
the sending thread are held back while it sends: the error raised says it once, redacted.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Iterator
from typing import Any

import requests

from ..secrets import shown
from ..secrets.quoted import quoted

__all__ = ["HeardSession", "quiet_exporter", "refusal"]

#: the exporter's loggers (its module's, and the shared HTTP client's that recent versions log through)
_LOGGERS = ("opentelemetry.exporter.otlp.proto.http.trace_exporter", "opentelemetry.exporter.otlp.common.http")
_ERRNO = re.compile(r"\[Errno -?\d+\] [^'\"()\]]+")


class HeardSession(requests.Session):
    """A session that keeps the last answer (status and reason) or the last connection error's kind."""

    def __init__(self) -> None:
        super().__init__()
        self.status: int | None = None
        self.reason = ""
        self.failure: str | None = None

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        try:
            response = super().request(*args, **kwargs)
        except Exception as exc:
            self.status, self.failure = None, _kind(exc)
            raise
        self.status, self.reason, self.failure = response.status_code, str(response.reason or ""), None
        return response


def _kind(exc: BaseException) -> str:
    """A connection error as its type and OS reason (``[Errno 111] Connection refused``), never its text: that
    repeats the URL, and a header value requests refuses."""
    found = _ERRNO.search(str(exc))
    return f"{type(exc).__name__}: {found.group(0).strip()}" if found else type(exc).__name__


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
    held = _HeldBack()
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    for logger in loggers:
        logger.addFilter(held)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(held)


def refusal(url: str, session: HeardSession, result: Any, timeout: float) -> str:
    """The error for spans the collector at ``url`` did not take: its answer and what to do about it."""
    where = f"the OTLP endpoint {quoted(shown(url))}"
    if session.status is not None:
        answer = f"{session.status} {shown(session.reason)}".strip()
        fix = (
            "the collector failed on its side: see its log, then export again (the same spans, the same ids)"
            if session.status >= 500
            else "check that the URL is the collector's OTLP/HTTP traces endpoint (…/v1/traces) and that headers= "
            "carries what it asks for"
        )
        return f"{where} answered {quoted(answer)} and did not take the spans; {fix}"
    if session.failure is not None:
        return (
            f"{where} could not be reached within timeout={timeout} s ({session.failure}); is a collector listening "
            "there? Start it, or give its address"
        )
    return f"{where} did not accept the spans ({result}); is a collector listening there?"
