"""OpenTelemetry out: runs as OTLP traces, for Phoenix, Jaeger, Langfuse or any collector.

    noesis_nb.export_otel("ep_01K…", endpoint="http://localhost:4318")   # OTLP/HTTP (protobuf)
    noesis_nb.export_otel(runs, path="traces.json")                        # OTLP/JSON file
    noesis_nb.export_otel(handle, path="episode.json")                    # a live episode, as far as it got

One trace per episode. The episode is the root span (``invoke_agent``); each timed step (an event
with ``metrics``: interpret, plan, act …) is a child span; each ``model.call`` is a ``chat`` span
with the GenAI attributes (``gen_ai.usage.*`` by the conventions' rule, which is the run's: input
and output are totals, cache reads / writes and reasoning are parts); each tool request is an
``execute_tool`` span with ``noesis.tool.effect``, ``.risk``, ``.decision`` and ``.status``; other
events are span events of the root. Trace and span ids derive from the episode and event ids, so
exporting a run twice gives the same ids (backends keep one copy). Needs ``pip install
'noesis_nb[otel]'``.
"""

from __future__ import annotations

import json
import os
import stat
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, overload
from urllib.parse import urlsplit

from .._jsonio import atomic_write_bytes
from .._safetext import frame_given, pandas_kind, unseen_said
from ..errors import InvalidIdError, InvalidOptionError, OtlpExportError, RunWriteError
from ..secrets import REDACTED_VALUE
from ..secrets.quoted import quoted, quoted_url
from ..store import find_run_dir, is_run_dir
from ._extras import require
from .otel_clean import clean_text
from .otel_headers import check_env_headers, check_headers, env_headers
from .otel_live import LiveExport
from .otel_spans import SpanSpec, TraceIncomplete, run_spans, status_code
from .otel_url import query_kept_out_of_logs, traces_url

__all__ = ["export_otel", "run_spans", "SpanSpec", "OtlpSender", "TraceIncomplete"]


def _run_dirs(target: Any, runs_dir: Any) -> list[Path]:
    said = frame_given(target, "run_or_runs (an episode id, or a list of ids)")
    if said is not None:  # a frame's run_dir would be read as an attribute: its whole column, not a path
        raise InvalidIdError(said)
    column = pandas_kind(target) == "Series"
    items = list(target) if column or isinstance(target, (list, tuple)) else [target]  # a column: its ids or run dirs
    out: dict[str, Path] = {}  # one run named twice (its id and its folder, a handle) is exported once
    for item in items:
        run_dir = getattr(item, "run_dir", None)  # an EpisodeHandle or DiskRun
        found = Path(run_dir) if run_dir is not None else find_run_dir(item, runs_dir)
        out.setdefault(os.path.realpath(found), found)
    return list(out.values())


@overload
def export_otel(
    run_or_runs: Any,
    *,
    endpoint: str | None = None,
    path: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    service_name: str = "noesis_nb",
    runs_dir: Any = None,
    timeout: float = 10.0,
    live: Literal[False] = False,
    interval: float = 1.0,
) -> int: ...


@overload
def export_otel(
    run_or_runs: Any,
    *,
    endpoint: str | None = None,
    path: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    service_name: str = "noesis_nb",
    runs_dir: Any = None,
    timeout: float = 10.0,
    live: Literal[True],
    interval: float = 1.0,
) -> LiveExport: ...


def export_otel(
    run_or_runs: Any,
    *,
    endpoint: str | None = None,
    path: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    service_name: str = "noesis_nb",
    runs_dir: Any = None,
    timeout: float = 10.0,
    live: bool = False,
    interval: float = 1.0,
) -> int | LiveExport:
    """Export runs (ids, run directories, handles, or a list of them) as OTLP spans; returns how many were sent.

    ``endpoint``: an OTLP/HTTP collector (``http://host:4318``, to whose path ``/v1/traces`` is joined, or its full
    ``…/v1/traces`` URL, used as given; a query string is kept). Credentials go in ``headers=`` (or
    ``OTEL_EXPORTER_OTLP_HEADERS``), not in the URL: proxies and collectors log a request's URL;
    ``path``: an OTLP/JSON file (one ``resourceSpans`` document). Give one or both.
    ``live=True`` (one running episode's handle, and an ``endpoint``): spans are sent while the
    episode runs, each once, when it is finished (checked every ``interval`` seconds, in a thread of
    its own), the root span when the episode ends; returns the ``LiveExport`` (``wait``, ``stop``,
    ``sent``, ``errors``). When the interpreter exits first (a script ending with ``await handle``), it
    takes one last look, sending what is final and writing ``path``, within ``timeout`` (at most 5 s), and
    warns of what it left unsent.

    A part of a run that cannot be read is a ``TraceIncomplete`` warning naming the file (and
    lines) left out; a live export notes it in ``errors``. A live export asks a collector that is down
    or failing (no answer, 5xx, 429) less and less often while the episode runs (the wait doubles, up to 60 s).

    Every ``headers=`` value (and those of ``OTEL_EXPORTER_OTLP_HEADERS`` / ``…_TRACES_HEADERS``) is
    redacted from what a collector answers before an error or warning quotes it: one of 8 characters or
    more wherever it stands, a shorter one as a whole word; values under 4 characters, auth scheme names
    (``Bearer``) and protocol words (``true``, ``gzip``, a media type) are left, since hiding them would
    blank the answer's own words and numbers.
    """
    if endpoint is None and path is None:
        raise InvalidOptionError("export_otel needs endpoint='http://host:4318' (OTLP/HTTP) or path='traces.json' (OTLP/JSON)")
    _check_target(endpoint, path, headers)
    if endpoint is not None:
        check_env_headers()
    _check_sending(timeout, service_name)
    if not isinstance(live, bool):  # "no" or 0.5 was taken as a yes, and the call returned a LiveExport, not a count
        raise TypeError(f"export_otel(live={quoted(live, 80)}): pass True (follow a running episode) or False")
    if live:
        return _start_live(run_or_runs, endpoint, path, headers, service_name, timeout, interval)
    if path is not None:
        path = check_out_path(path)
    run_dirs = _run_dirs(run_or_runs, runs_dir)
    if path is not None:
        refuse_inside_a_run(path, run_dirs)
    problems: list[str] = []
    specs = [s for run_dir in run_dirs for s in run_spans(run_dir, problems=problems)]
    for problem in problems:
        warnings.warn(problem, TraceIncomplete, stacklevel=2)
    if path is not None:
        _write_trace(path, json.dumps(otlp_json(specs, service_name), allow_nan=False).encode())
    if endpoint is not None:
        _send(specs, endpoint, headers, service_name, timeout)
    return len(specs)


def _check_target(endpoint: Any, path: Any, headers: Any) -> None:
    """Where the spans go, checked before a run is read: an http(s) URL, a file path, headers as a dict of text."""
    if endpoint is not None and (not isinstance(endpoint, str) or not endpoint.lower().startswith(("http://", "https://"))):
        given = quoted_url(endpoint, 80) if isinstance(endpoint, str) else quoted(endpoint, 80)
        # the value with a scheme before it, when it shows whole (a hidden host makes no example: the marker read
        # as a host, ``'http://EDACTED]'``, once the scheme put before it was cut off again)
        whole = isinstance(endpoint, str) and "://" not in endpoint and given[:1] == "'" and REDACTED_VALUE not in given
        fix = f"'http://{given[1:-1]}'" if whole and given.endswith("'") else "'http://localhost:4318'"
        raise InvalidOptionError(f"export_otel(endpoint={given}): give the collector's OTLP/HTTP URL, e.g. {fix}")
    # the exporter found a URL it cannot send to only after the run was read, as a collector it could not reach
    if isinstance(endpoint, str) and (wrong := _url_problem(endpoint)) is not None:
        raise InvalidOptionError(
            f"export_otel(endpoint={quoted_url(endpoint, 80)}): {wrong}; give the collector's OTLP/HTTP URL, e.g. "
            "'http://localhost:4318'"
        )
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"export_otel(path={quoted(path, 80)}): give a file path (a str or pathlib.Path), e.g. 'traces.json'")
    if headers is not None and (
        not isinstance(headers, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
    ):
        kind = type(headers).__name__ if not isinstance(headers, Mapping) else "a dict with values that are not text"
        # the value itself is not shown: headers carry credentials
        raise TypeError(f"export_otel(headers=…) got {kind}; give a dict of header name -> text, e.g. {{'x-api-key': '…'}}")
    check_headers(headers or {})


_MAX_WAIT = 86_400  # seconds: the longest timeout= or interval= taken (a day)


def _check_sending(timeout: Any, service_name: Any) -> None:
    """``timeout`` a positive number of seconds and ``service_name`` text, checked before a run is read (the exporter
    raised a TypeError from inside for ``timeout='5'`` and sent nothing for ``-1``, saying no collector listened)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"export_otel(timeout={quoted(timeout, 80)}): give the seconds to wait for the collector, e.g. 10.0")
    if not 0 < timeout <= _MAX_WAIT:  # nan compares false; 1e300 overflowed the socket's timeout inside the exporter
        raise InvalidOptionError(
            f"export_otel(timeout={quoted(timeout, 80)}): give the seconds to wait for the collector, above 0 and at most "
            f"{_MAX_WAIT} (a day), e.g. 10.0"
        )
    if not isinstance(service_name, str) or not service_name.strip():
        raise TypeError(f"export_otel(service_name={quoted(service_name, 80)}): give the service's name as text, e.g. 'my-agent'")


def _url_problem(url: str) -> str | None:
    """What makes ``url`` no URL a request can go to (a space, no host, a port out of range), or None."""
    if any(c.isspace() for c in url):
        return "a URL has no spaces or line breaks (write %20 for a space in its path)"
    at = next((i for i, c in enumerate(url) if unicodedata.category(c) in ("Cc", "Cf")), None)
    if at is not None:  # a NUL was sent as part of the path; a U+202E read as a collector that did not answer
        return f"it {unseen_said(url[at], at)}, which no URL has"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it checks it: a ValueError when no number from 0 to 65535
    except ValueError:
        return "its host or port cannot be read (a port is a number from 0 to 65535)"
    if parts.fragment or "#" in url:  # no request carries it: the spans went to the URL before it, said nowhere
        return "a #fragment is never sent to a server; leave it out"
    if not parts.hostname:
        return "it names no host"
    try:
        from ._otlp_answer import unsendable  # imports requests, which sending needs anyway
    except ImportError:  # the otel extra is missing: export_otel says so next
        return None
    return unsendable(url)


def _send(specs: Iterable[SpanSpec], endpoint: str, headers: dict[str, str] | None, service: str, timeout: float) -> None:
    sender = OtlpSender(endpoint, headers, service, timeout)
    try:
        rejected = sender.send(list(specs))
    finally:
        sender.close()
    if rejected is not None:  # the others were taken: a warning, and no retry (the OTLP spec forbids one)
        warnings.warn(rejected, TraceIncomplete, stacklevel=3)


class OtlpSender:
    """One OTLP/HTTP exporter for span specs (needs the ``otel`` extra); ``send`` raises ConnectionError on refusal."""

    def __init__(self, endpoint: str, headers: dict[str, str] | None, service: str, timeout: float):
        require("opentelemetry.sdk.trace", "otel", "export_otel")
        exporter_module = require("opentelemetry.exporter.otlp.proto.http.trace_exporter", "otel", "export_otel")
        from ._otlp_answer import HeardSession  # imports requests, which the exporter needs anyway

        self.url = traces_url(endpoint)
        self.service = service
        self.timeout = timeout
        # every header the exporter sends (the OTEL_EXPORTER_OTLP_*HEADERS variables' too): their values are hidden in
        # what the collector's answer is quoted in
        self._headers = {**env_headers(), **(headers or {})}
        self._session = HeardSession()
        self._session.sent_headers = self._headers
        self._exporter = exporter_module.OTLPSpanExporter(
            endpoint=self.url, headers=headers, timeout=timeout, session=self._session
        )
        from ._otel_sdk import service_resource  # imports opentelemetry

        self._resource = service_resource(service)  # made now: at interpreter exit it could not be (a thread pool)

    def send(self, specs: list[SpanSpec], sent: Callable[[list[SpanSpec]], None] | None = None) -> str | None:
        """Send ``specs`` in requests of at most ``BATCH_SPANS`` spans and about ``BATCH_BYTES`` (``sent`` is told
        each batch delivered); ConnectionError when one was not delivered (a refusal, no answer, a redirect), and
        what the collector said of the spans it rejected (OTLP ``partial_success``) when it took only some.

        One request for a whole export went over the exporter's 64 MB cap (dropped, said as a collector nobody
        listens on) or a proxy's body limit (nginx's is 1 MB) as soon as the runs were many or long."""
        from ._otel_sdk import readable_spans  # imports opentelemetry
        from ._otlp_answer import hidden, partly_rejected, quiet_exporter, redirected, refusal

        rejected: list[str] = []
        done = 0
        for batch in _batches(specs):
            with quiet_exporter(), query_kept_out_of_logs(self.url):
                result = self._exporter.export(readable_spans(batch, self._resource))
            problem = (
                refusal(self.url, self._session, result, self.timeout)
                if getattr(result, "name", "") != "SUCCESS"
                else redirected(self.url, self._session)  # the exporter takes a 3xx for success, following none
            )
            if problem is not None:
                before = f" ({done} of the {len(specs)} spans were sent before it)" if done else ""
                # the collector's words are hidden already; here the rest, the endpoint too (not its short words)
                raise OtlpExportError(hidden(problem, self._headers, shortest=8) + before)
            done += len(batch)
            said = partly_rejected(self.url, self._session, len(batch))
            said = None if said is None else hidden(said, self._headers, shortest=8)
            if said is not None and said not in rejected:
                rejected.append(said)
            if sent is not None:
                sent(batch)
        return "; ".join(rejected) or None

    def refused_at_once(self) -> bool:
        """Whether the last request failed in a way that asking again soon will not mend: nobody answered (connection
        refused, no route, a timeout), or the collector said it is failing or overloaded (5xx, 429)."""
        status = self._session.status
        return self._session.failure is not None or (status is not None and (status >= 500 or status == 429))

    def refused_for_good(self) -> int | str | None:
        """What the last request met when the same request would meet it again however long one waits, else None:
        the status of an answer (a redirect, a 4xx but 408 and 429: wrong URL, credentials, body too large), or the
        kind of a failure (a TLS certificate not trusted, an https:// URL to a plain HTTP collector, a bad header)."""
        from ._otlp_answer import permanent

        status = self._session.status
        if permanent(status):
            return status
        return self._session.failure if self._session.lasting else None

    def retry_after(self) -> float | None:
        """The seconds the last answer asked to be left alone for (its ``Retry-After``), None when it did not say."""
        return self._session.retry_after

    def close(self) -> None:
        self._exporter.shutdown()


BATCH_SPANS = 512  # spans in one request (the SDK's batch processor sends as many)
BATCH_BYTES = 1_000_000  # about this much text in one request: under a proxy's usual 1 MB body limit


def _batches(specs: list[SpanSpec]) -> Iterator[list[SpanSpec]]:
    """``specs`` in order, in lists of at most ``BATCH_SPANS`` and about ``BATCH_BYTES`` of text (a span is never split)."""
    batch: list[SpanSpec] = []
    size = 0
    for spec in specs:
        weight = _weight(spec)
        if batch and (len(batch) >= BATCH_SPANS or size + weight > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(spec)
        size += weight
    if batch:
        yield batch


def _weight(spec: SpanSpec) -> int:
    """About the bytes ``spec`` takes in a request: its texts (UTF-8 up to 3 bytes a character), ids and times."""
    texts = [spec["name"], str(spec["error"] or "")]
    for attrs in (spec["attributes"], *(a for _, _, a in spec["events"])):
        texts += [*attrs, *(str(v) for v in attrs.values())]
    texts += [name for name, _, _ in spec["events"]]
    return 100 + 30 * (len(spec["attributes"]) + len(spec["events"])) + 3 * sum(map(len, texts))


def _start_live(
    target: Any, endpoint: str | None, path: Any, headers: dict[str, str] | None, service: str, timeout: float, interval: float
) -> LiveExport:
    if endpoint is None:
        raise InvalidOptionError("export_otel(live=True) sends spans as they finish: give endpoint='http://host:4318'")
    if not hasattr(target, "subscribe") or not hasattr(target, "done"):
        raise TypeError(
            f"export_otel(live=True) follows one running episode: pass the handle of noesis_nb.start(...), not "
            f"{quoted(target, 80)}"
        )
    # up to a day: the thread's wait took inf or 1e300 as out of range and died, its spans unsent and no error said
    if not isinstance(interval, (int, float)) or isinstance(interval, bool) or not 0 < interval <= _MAX_WAIT:
        raise InvalidOptionError(
            f"interval={quoted(interval)}: give the seconds between checks for finished spans, above 0 and at most "
            f"{_MAX_WAIT} (a day), e.g. 1.0"
        )
    if path is not None:
        path = check_out_path(path)
        refuse_inside_a_run(path, [Path(target.run_dir)])  # a run just started may hold no file yet
    sender = OtlpSender(endpoint, headers, service, timeout)
    return LiveExport(target, sender, float(interval), path, spans=run_spans, to_json=otlp_json)


def check_out_path(path: str | os.PathLike[str]) -> Path:
    """``path`` when a trace file may be written there: not a directory, not a symbolic link (whose target
    a rename would silently replace by a plain file), not a FIFO, device or socket (replaced the same way:
    ``/dev/null`` too), in a folder, not under a file, and not inside a run directory (its files are the run)."""
    if "\0" in os.fspath(path):
        raise InvalidOptionError(
            f"export_otel(path={quoted(os.fspath(path), 120)}): a path has no NUL character; give a file name"
        )
    out = Path(path)
    try:
        out.lstat()
    except (FileNotFoundError, NotADirectoryError):  # a new file; a file on its way is named below
        pass
    except OSError as exc:  # a name too long, a folder that cannot be searched
        raise _refused(out, exc) from None
    if out.is_symlink():
        raise InvalidOptionError(
            f"export_otel(path={quoted(str(out))}): that is a symbolic link (to {quoted(os.readlink(out))}); "
            "give the path of a plain file, e.g. the link's target"
        )
    if out.is_dir():
        raise InvalidOptionError(
            f"export_otel(path={quoted(str(out))}) is a directory; give a file name in it, e.g. "
            f"{quoted(str(out / 'traces.json'))}"
        )
    kind = _special_kind(out)
    if kind is not None:
        raise InvalidOptionError(
            f"export_otel(path={quoted(str(out))}) is {kind}, which the trace file would replace; give the path of a "
            "plain file, e.g. 'traces.json'"
        )
    above = next((p for p in out.parents if p.exists() or p.is_symlink()), None)
    if above is not None and not above.is_dir():
        raise InvalidOptionError(
            f"export_otel(path={quoted(str(out))}): {quoted(str(above))} is a file, not a folder; give a path in a "
            f"folder, e.g. {quoted(str(above.parent / 'traces.json'))}"
        )
    refuse_inside_a_run(out)
    return out


def refuse_inside_a_run(path: Path, runs: Iterable[Path] = ()) -> None:
    """ValueError when ``path`` lies inside a run directory: one of ``runs`` (the runs exported, a live one with no
    file yet among them), or its folder or one above that surely is one (a stray ``summary.json`` in a project
    folder does not make it a run). The trace file would replace or add to that run's own files:
    ``path=<run>/events.jsonl`` replaced its event log."""
    try:
        folder = Path(os.path.realpath(path.parent))
        given = {Path(os.path.realpath(run)) for run in runs}
    except (OSError, ValueError):  # a path the system cannot resolve: writing it says why
        return
    chain = [folder, *folder.parents]
    run = next((p for p in chain if p in given), None) or next((p for p in chain if _surely_a_run(p)), None)
    if run is not None:
        raise InvalidOptionError(
            f"export_otel(path={quoted(str(path))}) lies inside the run directory {quoted(str(run))}, whose files are "
            f"the run (its event log, its manifest); give a path outside it, e.g. {quoted(str(run.parent / 'traces.json'))}"
        )


def _surely_a_run(folder: Path) -> bool:
    """A folder every reader lists as a run that holds what only a run writes: its event log, or its seal."""
    try:
        return is_run_dir(folder) and any((folder / name).is_file() for name in ("events.jsonl", "final.json", "manifest.json"))
    except OSError:
        return False


def _special_kind(path: Path) -> str | None:
    """What ``path`` is when it exists and is no plain file (nor a directory), else None."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return None
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), None)


def _refused(path: Path, exc: OSError) -> RunWriteError:
    """A path the system refuses (a name too long, a folder that cannot be made) as one error naming it."""
    reason = exc.strerror or type(exc).__name__
    return RunWriteError(path, exc.errno, reason, "give the path of a file in a folder you can write, e.g. 'traces.json'")


def _write_trace(path: Path, data: bytes) -> None:
    """The OTLP/JSON file, written whole (``RunWriteError`` naming the path when the system refuses it)."""
    try:
        atomic_write_bytes(path, data)
    except RunWriteError:
        raise
    except OSError as exc:
        raise _refused(path, exc) from None


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _status(spec: SpanSpec) -> dict[str, Any]:
    """A span's OTLP/JSON status: its code (``status_code``, as a collector is sent it) and any message."""
    code, message = status_code(spec)
    return {"code": code} if message is None else {"code": code, "message": message}


def otlp_json(specs: list[SpanSpec], service: str) -> dict[str, Any]:
    """The OTLP/JSON document of ``specs`` (ids in hex, times as strings of nanoseconds, as the spec says)."""
    kinds = {"internal": 1, "client": 3}

    def keyvalues(values: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"key": k, "value": _value(v)} for k, v in values.items()]

    spans = [
        {
            "traceId": format(s["trace_id"], "032x"),
            "spanId": format(s["span_id"], "016x"),
            **({"parentSpanId": format(s["parent_id"], "016x")} if s["parent_id"] else {}),
            "name": s["name"],
            "kind": kinds[s["kind"]],
            "startTimeUnixNano": str(s["start_ns"]),
            "endTimeUnixNano": str(s["end_ns"]),
            "attributes": keyvalues(s["attributes"]),
            "events": [{"name": n, "timeUnixNano": str(t), "attributes": keyvalues(a)} for n, t, a in s["events"]],
            "status": _status(s),
        }
        for s in specs
    ]
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": keyvalues({"service.name": clean_text(service, 512)})},
                "scopeSpans": [{"scope": {"name": "noesis_nb"}, "spans": spans}],
            }
        ]
    }
