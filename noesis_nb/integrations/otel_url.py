"""Where an OTLP export posts: the traces URL made from ``endpoint=``, and its query kept out of urllib3's log.

``endpoint`` is a collector's base URL (as ``OTEL_EXPORTER_OTLP_ENDPOINT``: ``/v1/traces`` is joined to its
path) or its traces URL (as ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``: a path ending in ``/v1/traces``, used as
given). The query is kept where it was: ``http://h:4318?tenant=acme`` posts to
``http://h:4318/v1/traces?tenant=acme`` (the path was glued after the query: ``/?tenant=acme/v1/traces``).

A credential belongs in ``headers=`` (or ``OTEL_EXPORTER_OTLP_HEADERS``), not in the URL: a query string is
part of the request line, which proxies and collectors log. urllib3 logs that line too (at DEBUG); while
noesis_nb sends, the query's values are hidden from those records.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

from ..secrets import REDACTED_VALUE

__all__ = ["traces_url", "query_kept_out_of_logs", "filtering", "SIGNAL_PATH"]

SIGNAL_PATH = "/v1/traces"
_URLLIB3_LOGGERS = ("urllib3.connectionpool", "urllib3.util.retry")  # the request line; a retry's target


def traces_url(endpoint: str) -> str:
    """The URL the spans are posted to (``endpoint`` holds no fragment: ``export_otel`` refuses one)."""
    parts = urlsplit(endpoint)
    path = parts.path if parts.path.rstrip("/").endswith(SIGNAL_PATH) else parts.path.rstrip("/") + SIGNAL_PATH
    return urlunsplit(parts._replace(path=path))


def _hidden_query(query: str) -> str:
    """``query`` with each value replaced (``tenant=[REDACTED]&sig=[REDACTED]``): its names say what was there."""
    return "&".join(f"{p.partition('=')[0]}={REDACTED_VALUE}" if "=" in p else REDACTED_VALUE for p in query.split("&"))


# a query in a logged line: from its "?" to the next space or '"' (the request line's closing quote). requests sends
# the URL re-quoted (``é`` as ``%C3%A9``, ``|`` as ``%7C``), so the text logged is not the text given: every query in
# the records hides its values, whatever form it was logged in
_LOGGED_QUERY = re.compile(r'\?([^\s"]*)')


@contextlib.contextmanager
def query_kept_out_of_logs(url: str) -> Iterator[None]:
    """For the block, urllib3's records logged on this thread show every query with its values hidden.

    The record is formatted and its text kept: the query's values were hidden only where the raw query stood in
    its arguments, so one re-quoted before it was sent (a non-ASCII letter, ``|``, ``"``) was logged whole."""
    if not urlsplit(url).query:
        yield
        return
    thread = threading.get_ident()

    def hide(record: logging.LogRecord) -> bool:
        if record.thread == thread:
            try:
                text = record.getMessage()
            except Exception:  # a record that cannot be formatted is kept out rather than shown raw
                return False
            if "?" in text:
                record.msg, record.args = _LOGGED_QUERY.sub(lambda m: "?" + _hidden_query(m.group(1)), text), ()
        return True

    with filtering(_URLLIB3_LOGGERS, hide):
        yield


@contextlib.contextmanager
def filtering(names: tuple[str, ...], log_filter: logging.Filter | Callable[[logging.LogRecord], bool]) -> Iterator[None]:
    """``log_filter`` on the loggers ``names`` for the block (taken off again however it ends)."""
    loggers = [logging.getLogger(name) for name in names]
    for logger in loggers:
        logger.addFilter(log_filter)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(log_filter)
