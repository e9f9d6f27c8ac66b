"""One batch of event rows: Python lists while filling, compact typed arrays once sealed.

A run's events are checked (``eventcheck``) and appended column by column; timestamps are kept as
fixed-width bytes (``isotimes``) and parsed in one numpy pass when the batch is sealed, when the
lists become arrays (``_arrays.build``) and the Python objects are freed. Without pyarrow, text
categories are coded run by run (``coded``) too, so nothing but those small codes and bytes
accumulates and sealing is numpy work; the batches are then larger (fewer, cheaper seals).
Timestamp strings that do not parse are reported to their run when the batch is sealed.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, compress, repeat
from typing import Any, Protocol

import numpy as np
import pandas as pd

from . import _arrays
from .coded import CodedColumn
from .columns import Column
from .eventcheck import check_run
from .eventids import any_repeated, repeated_ids
from .extravalues import said_once, typed_values
from .isotimes import TimeColumn
from .rowsource import system_rows
from .timetext import NAT
from .values import describe

__all__ = ["Batch", "EVENT_KINDS", "Report"]


class Report(Protocol):
    """Where a run's problems go: (event index in its run, reason) -> recorded with a line number."""

    def __call__(self, bad: list[tuple[int, str]]) -> None: ...

    def line(self, index: int) -> int:
        """The line of the run's event ``index`` (to name an earlier line in a reason)."""
        ...


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
_EMPTY: dict[str, Any] = {}
_EVENT_KEYS = ("id", "timestamp", "phase", "agent_id", "caused_by", "faculty", "event_type", "metrics", "payload")
_EVENT_FIELDS = ("event_id", "timestamp", "phase", "agent_id", "caused_by", "faculty", "event_type", "metrics", "payload")
_PAYLOAD_FIELDS = ("event_name", "status", "tool", "draft_id", "model", "source")
_CHUNK_ROWS = 256  # queued rows turned into columns together (see Batch.add); a bigger run goes at once, hot


class Batch:
    """Rows of several runs: Python lists (or codes) while filling, compact arrays once sealed.

    Each run added leaves a ``report`` callback: timestamps are parsed when the batch is sealed
    (one call for all its rows), and the strings that do not parse are reported to their run then.
    """

    __slots__ = (
        "lists",
        "coded",
        "compact",
        "times",
        "arrays",
        "payload",
        "rows",
        "extras",
        "reports",
        "pending",
        "pending_rows",
    )

    def __init__(self, extras: tuple[Column, ...], compact: bool = not _arrays.HAVE_ARROW):
        """``compact``: categories as codes and timestamps as bytes while filling (the default without pyarrow)."""
        self.extras = extras
        kinds = {**EVENT_KINDS, **{c.name: c.type for c in extras}}
        self.coded = {name: CodedColumn() for name, kind in kinds.items() if compact and kind == "category"}
        self.compact = compact
        self.times: TimeColumn | None = TimeColumn()  # kept as fixed-width bytes, parsed at once when sealed
        self.lists: dict[str, list[Any]] | None = {name: [] for name in kinds if name not in self.coded and name != "timestamp"}
        self.payload: list[Any] | np.ndarray = []
        self.arrays: dict[str, Any] = {}
        self.rows = 0
        self.reports: list[tuple[int, Report]] = []
        self.pending: list[tuple[list[dict[str, Any]], Report, list[tuple[int, str]], list[list[Any]]]] = []
        self.pending_rows = 0

    def add(self, evs: list[dict[str, Any]], report: Report) -> tuple[int, int, list[tuple[int, str]]]:
        """Append a run's events; returns their (start, stop) rows and where a payload names its system.

        Runs are queued and turned into columns together once 256 rows wait (or when sealed): the
        per-run cost of small runs is then paid once per chunk. Values that break their rule are
        read as None and passed to ``report`` as (event index, reason) then; the returned list of
        (event index, system) is filled then too.
        """
        named: list[tuple[int, str]] = []
        extra_values: list[list[Any]] = []
        if self.extras:
            # user code: may raise, here (the events of a run noesis_nb did not screen as it wrote are redacted already)
            extra_values = [[column.value(e) for e in evs] for column in self.extras]
            for k, column in enumerate(self.extras):  # a value of another kind than the column's: unknown, said once
                extra_values[k], bad = typed_values(column.type, extra_values[k])
                if bad:
                    report([said_once(column, bad)])
        start = self.rows
        self.rows += len(evs)
        self.reports.append((start, report))
        self.pending.append((evs, report, named, extra_values))
        self.pending_rows += len(evs)
        if self.pending_rows >= _CHUNK_ROWS:
            self._flush()
        return start, self.rows, named

    def _flush(self) -> None:
        """Column values for the queued runs, checked as one chunk; problems and systems go back to each run."""
        runs, self.pending, self.pending_rows = self.pending, [], 0
        if not runs:
            return
        evs = runs[0][0] if len(runs) == 1 else [e for run in runs for e in run[0]]
        lists = self.lists
        assert lists is not None
        cols = _columns(evs)
        payloads, gp, names = cols["payload"], cols["payloads"], cols["event_name"]
        bad = check_run(cols)
        phases, types = cols["phase"], cols["event_type"]
        i = -1
        try:  # runtime events name themselves in event_type; list.index scans at C speed
            while True:
                i = phases.index("runtime", i + 1)
                names[i] = types[i] or names[i]
        except ValueError:
            pass
        if self.compact:  # caused_by names earlier events, so share their id strings, not copies
            cols["caused_by"] = _shared(cols["event_id"], cols["caused_by"])
        for name in EVENT_KINDS:
            if name in lists:
                lists[name] += cols[name]
            elif name in self.coded:  # checked: text or None, except a tool (an object is named by _text)
                self.coded[name].extend(cols[name], text=name != "tool")
        assert self.times is not None
        self.times.extend(cols["timestamp"])
        for k, column in enumerate(self.extras):
            values = runs[0][3][k] if len(runs) == 1 else [v for run in runs for v in run[3][k]]
            if column.name in self.coded:
                self.coded[column.name].extend(values)
            else:
                lists[column.name] += values
        self.payload += payloads
        offsets = list(accumulate((len(run[0]) for run in runs[:-1]), initial=0))
        for run, found in _by_run(bad, offsets).items():
            runs[run][1](found)
        ids = cols["event_id"]
        if any_repeated(ids):  # in this chunk; one set at C speed, then run by run (a copied run shares its ids)
            for run, begin in enumerate(offsets):
                report = runs[run][1]
                own = ids[begin : begin + len(runs[run][0])]
                if any_repeated(own):
                    report(repeated_ids(own, report.line))
        for run, found in _by_run(system_rows(gp, cols["source"]), offsets).items():
            runs[run][2].extend(found)

    def seal(self) -> None:
        if self.lists is None:
            return
        self._flush()
        kinds = {**EVENT_KINDS, **{c.name: c.type for c in self.extras}}
        for name, values in self.lists.items():
            kind = kinds[name]
            self.arrays[name] = _arrays.build(kind if kind in ("str", "category", "datetime", "float") else "object", values)
        for name, coded in self.coded.items():
            self.arrays[name] = coded.build()
        assert self.times is not None
        micros, unparsed = self.times.micros()
        self.arrays["timestamp"] = _arrays.utc_times(micros, arrow=not self.compact)
        self._report_times(unparsed)
        self._report_backwards(micros)
        self.payload = _arrays.objects(self.payload)
        self.lists = None
        self.coded = {}
        self.times = None
        self.reports = []

    def _report_times(self, unparsed: list[tuple[int, Any]]) -> None:
        """Report timestamp strings that did not parse (missing ones were reported when added)."""
        reasons = [(row, f"timestamp {describe(value)} is not an ISO-8601 time; read as unknown") for row, value in unparsed]
        for run, bad in _by_run(reasons, [start for start, _ in self.reports]).items():
            self.reports[run][1](bad)

    def _report_backwards(self, micros: np.ndarray) -> None:
        """Report each event whose time is before the event just before it in its run (a time unknown is skipped).

        Noēsis and noesis_nb keep a log's times in order, so a step back is a log edited, merged or written
        by a clock set back: durations and ``since``/``until`` filters read from it may mislead. One diff over the
        batch decides; only a run where a step back shows is walked.
        """
        starts = [start for start, _ in self.reports]
        if len(micros) < 2:
            return
        back = micros[1:] < micros[:-1]  # a NaT (the least int64) after a time is a step back, sorted out below
        back[[start - 1 for start in starts if 0 < start <= len(back)]] = False  # a run's first event follows no event
        if not back.any():
            return
        runs = sorted({bisect_right(starts, row + 1) - 1 for row in np.flatnonzero(back).tolist()})
        ends = [*starts[1:], len(micros)]
        for run in runs:
            times = micros[starts[run] : ends[run]]
            rows = np.flatnonzero(times != NAT)
            known = times[rows]
            stepped = rows[1:][known[1:] < known[:-1]]
            if len(stepped):
                ids = _texts(self.arrays.get("event_id"), starts[run], ends[run])
                seen = {i for i in ids if i is not None}  # a line written again is said as such (``eventids``), not here
                before = {
                    int(r): int(rows[np.searchsorted(rows, r) - 1])
                    for r in stepped.tolist()
                    if ids[r] is None or ids[r] not in seen or ids.index(ids[r]) == r
                }
                self.reports[run][1]([(r, _STEP_BACK.format(_iso(times[r]), _iso(times[b]))) for r, b in before.items()])


_STEP_BACK = "timestamp {} is before the event above's ({}): the log's times go backwards (edited, merged, or a clock set back)"


def _texts(column: Any, start: int, stop: int) -> list[Any]:
    """The values of rows ``start:stop`` of a built text column (numpy, pandas or pyarrow) as Python objects."""
    if column is None:
        return [None] * (stop - start)
    part = column[start:stop]
    if hasattr(part, "to_pylist"):
        return list(part.to_pylist())
    return [None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v for v in list(part)]


def _iso(micros: Any) -> str:
    return str(np.datetime64(int(micros), "us")) + "Z"


def _columns(evs: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The fields ``check_run`` and the columns read, one list each: a ``map`` of ``dict.get`` a field.

    The loop over the events is C's (no Python frame or tuple an event, no transposing of rows); ``payloads``
    is the payloads with a value that is not an object read as empty (``payload`` keeps them as written).
    """
    if not evs:
        cols: dict[str, list[Any]] = {name: [] for name in (*_EVENT_FIELDS, *_PAYLOAD_FIELDS, "payloads", "duration_ms")}
        return cols
    n = len(evs)
    get = dict.get  # every event is an object (``parse_lines``): a column is one ``map`` at C speed, no frame an event
    cols = {name: list(map(get, evs, repeat(key, n))) for name, key in zip(_EVENT_FIELDS, _EVENT_KEYS)}
    payloads = cols["payload"]
    # unchecked JSON: a payload that is not an object is read as empty
    cols["payloads"] = payloads if set(map(type, payloads)) == {dict} else [p if type(p) is dict else _EMPTY for p in payloads]
    for name in _PAYLOAD_FIELDS:
        cols[name] = list(map(get, cols["payloads"], repeat(name, n)))
    _act_adapters(cols["phase"], cols["payloads"], cols["tool"])
    metrics = cols["metrics"]
    durations: list[Any] = [None] * len(metrics)
    for i in compress(range(len(metrics)), metrics):  # most events have none; an empty object has none either
        m = metrics[i]
        if type(m) is dict:
            durations[i] = m.get("duration_ms")
    cols["duration_ms"] = durations
    return cols


def _act_adapters(phases: list[Any], payloads: list[dict[str, Any]], tools: list[Any]) -> None:
    """An act names its actor under ``tool`` or ``adapter`` (Noēsis' rule; its synthetic act: ``adapter``): ``tools``
    takes the adapter of each act whose payload has no ``tool`` key (``list.index`` finds the acts at C speed)."""
    i = -1
    try:
        while True:
            i = phases.index("act", i + 1)
            if "tool" not in payloads[i]:
                tools[i] = payloads[i].get("adapter")
    except ValueError:
        pass


def _shared(ids: list[Any], caused_by: list[Any]) -> list[Any]:
    """``caused_by`` with each value that is an id of these events as that id's string (one object kept, not two).

    A writer's log chains each event to the one before: then the ids are the values, compared at C speed.
    """
    if len(caused_by) > 1 and caused_by[1:] == ids[:-1]:
        return [caused_by[0], *ids[:-1]]
    same = dict(zip(ids, ids))
    return [same.get(c, c) for c in caused_by]


def _by_run(items: list[tuple[int, Any]] | tuple[tuple[int, Any], ...], starts: list[int]) -> dict[int, list[tuple[int, Any]]]:
    """(row, x) pairs, rows in order, as {run: [(row within the run, x), ...]} for runs starting at ``starts``."""
    by_run: dict[int, list[tuple[int, Any]]] = {}
    for row, value in items:
        run = bisect_right(starts, row) - 1
        by_run.setdefault(run, []).append((row - starts[run], value))
    return by_run
