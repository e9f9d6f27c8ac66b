"""The headers an OTLP export sends, checked before a run is read: those of ``headers=`` and those of the environment.

The exporter adds the headers of ``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` (else ``OTEL_EXPORTER_OTLP_HEADERS``)
to every request. Both are held to the same rules (an HTTP token as the name; a value of one line, no control
character, nothing past Latin-1): a bad one was sent anyway and failed inside the exporter, said as a
collector that could not be reached. An error names where the header came from and its name, never its
value (headers carry credentials).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping

from ..errors import InvalidOptionError
from ..secrets.quoted import quoted
from ._extras import require

__all__ = ["check_headers", "check_env_headers", "env_headers", "ENV_VARIABLES"]

ENV_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")  # the first set wins, as in the exporter
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # an HTTP token (RFC 9110)
_HEADER_VALUE_BAD = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]|[^\x00-\xff]")  # no field-vchar, space or tab (RFC 9110)
_NAME_RULE = "letters, digits and !#$%&'*+-.^_`|~ only"


def check_headers(headers: Mapping[str, str]) -> None:
    """InvalidOptionError for the first of ``headers=`` (a dict of text) an HTTP request cannot carry."""
    for name, value in headers.items():
        if not _HEADER_NAME.fullmatch(name):  # requests refused it after the run was read, as a connection error
            raise InvalidOptionError(
                f"export_otel(headers=…): {quoted(name, 80)} is no header name ({_NAME_RULE}); give one such as "
                "'authorization' or 'x-api-key'"
            )
        wrong = value_problem(value)
        if wrong is not None:
            raise InvalidOptionError(f"export_otel(headers=…): the value of {quoted(name, 80)} {wrong}")


def value_problem(value: str) -> str | None:
    """What makes ``value`` no HTTP header value, as the end of a sentence naming the fix (never the value), or None."""
    if value[:1].isspace() or "\r" in value or "\n" in value:  # requests refused it, quoting the value whole
        return "has a line break or starts with a space; give it as one line, e.g. 'Bearer <token>'"
    if _HEADER_VALUE_BAD.search(value):  # '€' failed inside the exporter, said as an unreachable collector; NUL went
        return (
            "holds a control character (NUL, DEL…) or one past Latin-1 ('€', an emoji), which an HTTP header cannot "
            "carry; give plain ASCII text, e.g. 'Bearer <token>' (a token copied with a stray character? strip() it)"
        )
    return None


def check_env_headers() -> None:
    """InvalidOptionError for an entry of the exporter's headers variable that it cannot send as given: no
    ``name=value`` (the exporter logged the entry whole, credential and all, and dropped it), a name that is no
    HTTP token, a value (URL-decoded, as the exporter reads it) with a line break, control character or one past
    Latin-1."""
    parse_env_headers = require("opentelemetry.util.re", "otel", "export_otel").parse_env_headers
    variable = next((v for v in ENV_VARIABLES if os.environ.get(v)), ENV_VARIABLES[-1])
    entries = [entry.strip() for entry in os.environ.get(variable, "").split(",")]
    fix = "write name=value pairs separated by commas, each value URL-encoded, e.g. 'authorization=Bearer%20<token>'"
    for number, entry in enumerate(entries, 1):
        if not entry:
            continue
        with held_back("opentelemetry.util.re"):
            parsed = parse_env_headers(entry, liberal=True)
        where = f"the environment variable {variable} (entry {number} of {len(entries)})"
        if len(parsed) != 1:
            raise InvalidOptionError(f"{where} is no name=value pair; {fix}")
        ((name, value),) = parsed.items()
        if not _HEADER_NAME.fullmatch(name):
            raise InvalidOptionError(f"{where} names no header ({_NAME_RULE} before the '='); {fix}")
        wrong = value_problem(value)
        if wrong is not None:
            raise InvalidOptionError(f"{where}: the value of {name!r}, URL-decoded, {wrong}")


def env_headers() -> dict[str, str]:
    """The headers the exporter may add from its environment variables (both read: their values are hidden in
    what a collector answers, so one more is harmless)."""
    from opentelemetry.util.re import parse_env_headers

    found: dict[str, str] = {}
    for name in reversed(ENV_VARIABLES):
        with held_back("opentelemetry.util.re"):
            found.update(parse_env_headers(os.environ.get(name, ""), liberal=True))
    return found


@contextlib.contextmanager
def held_back(logger_name: str) -> Iterator[None]:
    """The records of ``logger_name`` logged on this thread dropped for the block (other threads log as before):
    the headers parser logs an entry it cannot read whole."""
    thread = threading.get_ident()

    def keep(record: logging.LogRecord) -> bool:
        return record.thread != thread

    logger = logging.getLogger(logger_name)
    logger.addFilter(keep)
    try:
        yield
    finally:
        logger.removeFilter(keep)
