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


@contextlib.contextmanager
def query_kept_out_of_logs(url: str) -> Iterator[None]:
    """For the block, urllib3's records logged on this thread show ``url``'s query with its values hidden."""
    query = urlsplit(url).query
    if not query:
        yield
        return
    hidden = _hidden_query(query)
    thread = threading.get_ident()

    def hide(record: logging.LogRecord) -> bool:
        if record.thread == thread:
            if isinstance(record.msg, str) and query in record.msg:
                record.msg = record.msg.replace(query, hidden)
            if isinstance(record.args, tuple):
                record.args = tuple(a.replace(query, hidden) if isinstance(a, str) else a for a in record.args)
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
