"""The event hot path: events.jsonl bytes → ``parse_lines`` → column lists → compact batch arrays.

Each file is read once and parsed with the store's one line parser. Its events are turned into
column lists while they are hot in cache, and every ~32k rows the lists become compact arrays
(Arrow strings/dictionaries, timestamps parsed in one call), so Python string objects are freed
and their memory reused. A run's rows are a slice of a batch: the cache keeps that slice, and
assembling a frame from cached runs is slicing and concatenating arrays, not parsing.
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ..store.eventlog import parse_lines
from . import _arrays
from .cache import CACHE, MEMO
from .columns import Column
from .eventcheck import check_run
from .fs import BadFile, prefetch_remote
from .problems import LoadProblem, Problems
from .progress import progress
from .rowsource import read_run_source, source_column, system_rows
from .source import RunRef
from .values import describe

__all__ = ["EVENT_KINDS", "load_events", "EventColumns", "gc_paused"]

EVENT_KINDS: dict[str, str] = {
    "event_id": "str",
    "timestamp": "datetime",
    "phase": "category",
    "event_name": "category",
    "agent_id": "category",
    "caused_by": "str",
    "duration_ms": "float",
    "faculty": "category",
    "status": "category",
    "tool": "category",
    "draft_id": "str",
    "model": "category",
}
_BATCH_ROWS = 1024  # sealing small batches keeps the values hot in cache (measured: ~25% faster than 32k)
_EMPTY: dict[str, Any] = {}
_NO_EVENTS: tuple[None, int, int] = (None, 0, 0)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building millions of acyclic dicts (it would rescan them repeatedly)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Batch:
    """Rows of several runs: Python lists while filling, compact arrays once sealed.

    Each run added leaves a ``report`` callback: timestamps are parsed when the batch is sealed
    (one call for all its rows), and the strings that do not parse are reported to their run then.
    """

    __slots__ = ("lists", "arrays", "payload", "rows", "extras", "reports")

    def __init__(self, extras: tuple[Column, ...]):
        self.extras = extras
        self.lists: dict[str, list[Any]] | None = {name: [] for name in EVENT_KINDS}
        for column in extras:
            self.lists[column.name] = []
        self.payload: list[Any] | np.ndarray = []
        self.arrays: dict[str, Any] = {}
        self.rows = 0
        self.reports: list[tuple[int, Callable[[list[tuple[int, str]]], None]]] = []

    def add(self, evs: list[dict[str, Any]], report: Callable[[list[tuple[int, str]]], None]
            ) -> tuple[int, int, tuple[tuple[int, str], ...]]:
        """Append a run's events; returns their (start, stop) rows and where a payload names its system.

        Values that break their rule are read as None and passed to ``report`` as (event index, reason).
        """
        lists = self.lists
        assert lists is not None
        payloads = [e.get("payload") for e in evs]
        try:
            names = [p.get("event_name") for p in payloads]
            gp = payloads
        except AttributeError:  # a payload that is not an object: checked below, read as empty
            gp = [p if type(p) is dict else _EMPTY for p in payloads]
            names = [p.get("event_name") for p in gp]
        metrics = [e.get("metrics") for e in evs]
        cols = {
            "event_id": [e.get("id") for e in evs], "timestamp": [e.get("timestamp") for e in evs],
            "phase": [e.get("phase") for e in evs], "agent_id": [e.get("agent_id") for e in evs],
            "caused_by": [e.get("caused_by") for e in evs], "faculty": [e.get("faculty") for e in evs],
            "event_type": [e.get("event_type") for e in evs], "metrics": metrics,
            "duration_ms": [m.get("duration_ms") if type(m) is dict else None for m in metrics],
            "payload": payloads, "payloads": gp, "event_name": names,
            "status": [p.get("status") for p in gp], "tool": [p.get("tool") for p in gp],
            "draft_id": [p.get("draft_id") for p in gp], "model": [p.get("model") for p in gp],
            "source": [p.get("source") for p in gp],
        }
        bad = check_run(cols)
        phases, types = cols["phase"], cols["event_type"]
        i = -1
        try:  # runtime events name themselves in event_type; list.index scans at C speed
            while True:
                i = phases.index("runtime", i + 1)
                names[i] = types[i] or names[i]
        except ValueError:
            pass
        for name in EVENT_KINDS:
            lists[name] += cols[name]
        for column in self.extras:
            lists[column.name] += [column.value(e) for e in evs]
        self.payload += payloads  # type: ignore[operator]
        start = self.rows
        self.rows += len(evs)
        if bad:
            report(bad)
        self.reports.append((start, report))
        return start, self.rows, system_rows(gp)

    def seal(self) -> None:
        if self.lists is None:
            return
        kinds = {**EVENT_KINDS, **{c.name: c.type for c in self.extras}}
        for name, values in self.lists.items():
            kind = kinds[name]
            self.arrays[name] = _arrays.build(kind if kind in ("str", "category", "datetime", "float") else "object", values)
        self._report_times(self.lists["timestamp"], self.arrays["timestamp"])
        payload = np.empty(self.rows, dtype=object)
        payload[:] = self.payload
        self.payload = payload
        self.lists = None
        self.reports = []

    def _report_times(self, raw: list[Any], parsed: Any) -> None:
        """Report timestamp strings that did not parse (missing ones were reported when added)."""
        missing = _arrays.missing(parsed)
        if int(missing.sum()) == raw.count(None):
            return
        rows = np.flatnonzero(missing & np.fromiter((v is not None for v in raw), dtype=bool, count=len(raw)))
        starts = [start for start, _ in self.reports]
        by_run: dict[int, list[tuple[int, str]]] = {}
        for row in rows.tolist():
            run = bisect_right(starts, row) - 1
            start = starts[run]
            by_run.setdefault(run, []).append((row - start, f"timestamp {describe(raw[row])} is not an ISO-8601 time; read as unknown"))
        for run, bad in by_run.items():
            self.reports[run][1](bad)


class EventColumns:
    """Assembled event columns (pandas arrays, read-only) plus per-run lengths and sources, before any filtering."""

    def __init__(self, columns: dict[str, Any], names: list[str], lengths: list[int], run_sources: list[str],
                 df: pd.DataFrame | None = None):
        self.columns = columns
        self.names = names
        self.lengths = lengths
        self.run_sources = run_sources
        self._df = df

    def frame(self) -> pd.DataFrame:
        """The events as a frame the caller owns: editing it never changes what the cache serves next."""
        if self._df is None:
            self._df = pd.DataFrame(self.columns, copy=False)
        return _arrays.detached(self._df)


def _slice(arr: Any, start: int, stop: int) -> Any:
    if _arrays.HAVE_ARROW and hasattr(arr, "slice") and not isinstance(arr, (np.ndarray, pd.Categorical)):
        return arr.slice(start, stop - start)
    return arr[start:stop]


def load_events(
    refs: Sequence[RunRef],
    problems: Problems,
    *,
    extras: tuple[Column, ...] = (),
    use_cache: bool = True,
    show_progress: bool | None = None,
) -> EventColumns:
    """Every event of ``refs`` as typed columns; corrupt lines go to ``problems``."""
    extras_key = tuple((c.name, c.path, id(c.fn), c.type) for c in extras)
    segments: list[tuple[_Batch | None, int, int]] = []
    run_sources: list[str] = []
    systems: list[tuple[tuple[int, str], ...]] = []  # per run: (row, system) where payload.source names one
    batch = _Batch(extras)
    per_run: list[list[LoadProblem]] = []  # reported in run order once every batch is sealed
    with gc_paused():
        paths = [r.fs.join(r.path, "events.jsonl") for r in refs]
        prefetch_remote(refs, _events_and_source_doc)
        try:
            for ref, path in progress(list(zip(refs, paths)), show_progress, "events"):
                key = ("events", ref.fs.protocol, path, extras_key)
                if use_cache:
                    stamp = ref.stat_events(path)
                    hit = CACHE.get(key, stamp) if stamp is not None else None
                    if hit is not None:
                        segment, cached_problems, source, named = hit
                        per_run.append(cached_problems)
                        segments.append(segment)
                        run_sources.append(source)
                        systems.append(named)
                        continue
                source = read_run_source(ref)  # fixed before the first event is written: cached with the events
                run_sources.append(source)
                run_problems: list[LoadProblem] = []
                per_run.append(run_problems)
                got = _read_events(ref, path, run_problems)
                if got is None:
                    segments.append(_NO_EVENTS)
                    systems.append(())
                    stamp = ref.fs.stat(path)
                    if use_cache and run_problems and stamp is not None:  # an unreadable file: keep its report
                        CACHE.put(key, stamp, (_NO_EVENTS, run_problems, source, ()))
                    continue
                data, stamp = got
                url = ref.fs.url(path)
                corruptions: list[Any] = []
                torn: list[int] = []
                evs = parse_lines(data, url, strict=problems.strict, errors=corruptions, torn=torn)
                run_problems.extend(LoadProblem(c.path, c.line_number, c.reason) for c in corruptions)
                if torn and _sealed(ref):
                    run_problems.append(LoadProblem(url, torn[0], "the last line is cut off (no newline) although the run "
                                                                  "is sealed; it is not read"))
                start, stop, named = batch.add(evs, _reporter(url, data, run_problems))
                systems.append(named)
                del evs
                segment = (batch, start, stop)
                segments.append(segment)
                if use_cache:
                    CACHE.put(key, stamp, (segment, run_problems, source, named), rows=stop - start)
                if batch.rows >= _BATCH_ROWS:
                    batch.seal()
                    batch = _Batch(extras)
        finally:  # also when a strict load raises: cached segments must never point into an unsealed batch
            batch.seal()
        for run_problems in per_run:
            problems.extend(run_problems)
        names = [r.name for r in refs]
        memo_key = ("events", extras_key, tuple(names))
        hit = MEMO.get(memo_key, tuple(segments)) if use_cache else None
        if hit is not None:
            return EventColumns(hit.columns, hit.names, hit.lengths, run_sources, hit._df)
        loaded = _assemble(segments, names, extras, run_sources, systems)
        if use_cache:
            MEMO.put(memo_key, tuple(segments), loaded)
        return loaded


def _read_events(ref: RunRef, path: str, run_problems: list[LoadProblem]) -> tuple[bytes, Any] | None:
    """The bytes of the run's events.jsonl; None (and a report) when it is not a readable file of the run."""
    try:
        return ref.read("events.jsonl")
    except BadFile as exc:
        run_problems.append(LoadProblem(ref.fs.url(path), None, f"{exc.reason}; the run's events are not read"))
        return None


def _sealed(ref: RunRef) -> bool:
    return ref.fs.stat(ref.file("final.json")) is not None or ref.fs.stat(ref.file("manifest.json")) is not None


def _reporter(url: str, data: bytes, sink: list[LoadProblem]) -> Callable[[list[tuple[int, str]]], None]:
    """Turns (event index, reason) into problems with line numbers (worked out only when a run has any)."""
    numbers: list[int] = []

    def report(bad: list[tuple[int, str]]) -> None:
        if not numbers:
            parse_lines(data, url, strict=False, errors=[], numbers=numbers)
        sink.extend(LoadProblem(url, numbers[i], reason) for i, reason in bad)

    return report


def _events_and_source_doc(ref: RunRef) -> list[str]:
    """What reading a run's events needs: ``events.jsonl`` and the document naming its source."""
    summary = ref.fs.join(ref.path, "summary.json")
    return [ref.fs.join(ref.path, "events.jsonl"), summary if ref.fs.stat(summary) is not None else ref.fs.join(ref.path, "state.json")]


def _assemble(segments: list[tuple[_Batch | None, int, int]], names: list[str], extras: tuple[Column, ...],
              run_sources: list[str], systems: list[tuple[tuple[int, str], ...]]) -> EventColumns:
    lengths = [stop - start for _, start, stop in segments]
    merged: list[list[Any]] = []
    for batch, start, stop in segments:
        if batch is None or stop == start:
            continue
        if merged and merged[-1][0] is batch and merged[-1][2] == start:
            merged[-1][2] = stop
        else:
            merged.append([batch, start, stop])
    kinds = {**EVENT_KINDS, **{c.name: (c.type if c.type in ("str", "category", "datetime", "float") else "object") for c in extras}}
    total = sum(lengths)
    codes, categories = pd.factorize(pd.Series(names, dtype=object)) if names else (np.empty(0, np.int64), [])
    columns: dict[str, Any] = {
        "episode_id": pd.Categorical.from_codes(np.repeat(codes, lengths), categories=pd.Index(categories, dtype="str")),
        "source": source_column(run_sources, systems, lengths),
        "seq": _seq(lengths, total),
    }
    for name, kind in kinds.items():
        parts = [_slice(b.arrays[name], s, e) for b, s, e in merged]
        columns[name] = _arrays.to_pandas(kind, _arrays.concat(kind, parts))
    for column in extras:
        if column.type in ("int", "bool"):  # stored as objects in batches; typed once here
            columns[column.name] = _arrays.series_of(column.type, list(columns[column.name])).array
    payload = [b.payload[s:e] for b, s, e in merged]
    columns["payload"] = np.concatenate(payload) if payload else np.empty(0, dtype=object)
    order = ["episode_id", "source", "seq", "event_id", "timestamp", "phase", "event_name", "agent_id", "caused_by",
             "duration_ms", "faculty", "status", "tool", "draft_id", "model", "payload", *[c.name for c in extras]]
    return EventColumns({k: columns[k] for k in order}, names, lengths, run_sources)


def _seq(lengths: list[int], total: int) -> np.ndarray:
    if total == 0:
        return np.empty(0, dtype=np.int64)
    lens = np.asarray(lengths, dtype=np.int64)
    starts = np.cumsum(lens) - lens
    return np.arange(total, dtype=np.int64) - np.repeat(starts, lens)
