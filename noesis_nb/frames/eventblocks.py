"""The event hot path: events.jsonl bytes → ``parse_lines`` → column lists → compact batch arrays.

Each file is read once (never from outside its run) and parsed with the store's one line parser.
Its events are checked and turned into columns while they are hot in cache (``Batch``, small runs
a few hundred rows at a time), and each batch becomes compact arrays when sealed, so Python string
objects are freed. A run's rows are a slice of a batch: the cache keeps that slice with the run's
problems (file, line, reason), and assembling a frame from cached runs is slicing and concatenating
arrays, not parsing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..secrets.records import shown_records
from ..store.eventlog import parse_lines
from . import _arrays
from .cache import CACHE, MEMO
from .columns import Column
from .eventbatch import EVENT_KINDS, Batch
from .eventids import names_only, other_episodes
from .fs import UNREAD, BadFile, prefetch_remote, settled
from .gcpause import gc_paused
from .problems import CUT_IN_SEALED_RUN, NO_EVENTS_IN_SEALED_RUN, LoadProblem, Problems
from .progress import progress
from .provenance import written_as
from .rowsource import NOESIS, read_run_source, read_run_source_stamped, source_column
from .runlearned import docs_revealed
from .sealsizes import is_seal_change, listed_sizes, size_changes
from .source import RunRef
from .toolfolders import ToolFolders

__all__ = ["EVENT_KINDS", "load_events", "EventColumns"]

# Rows per batch. With pyarrow, sealing small batches keeps the values hot in cache (measured: ~25%
# faster than 32k). A compact batch (the default without pyarrow) holds only codes, fixed-width
# timestamp bytes and the objects the frame keeps anyway, and each seal costs a dozen pandas calls:
# fewer, larger batches are faster (16k: as little memory as 1k batches, measured).
_COMPACT = not _arrays.HAVE_ARROW  # Batch(compact=...): codes and timestamp bytes while filling
_BATCH_ROWS = 1 << 14 if _COMPACT else 1024
_NO_EVENTS: tuple[None, int, int] = (None, 0, 0)


class EventColumns:
    """Assembled event columns (pandas arrays, read-only) plus per-run lengths and sources, before any filtering."""

    def __init__(
        self,
        columns: dict[str, Any],
        names: list[str],
        lengths: list[int],
        run_sources: list[str],
        df: pd.DataFrame | None = None,
        sealed_tools: list[list[Any] | None] | None = None,
        folders: list[Any] | None = None,
    ):
        self.columns = columns
        self.names = names
        self.lengths = lengths
        self.run_sources = run_sources
        self._df = df
        # per run: the tool records its seal vouches for (``provenance.written_as``), None when none
        self.sealed_tools = sealed_tools if sealed_tools is not None else [None] * len(names)
        # per run: its folder's stamp taken before its events were read (``_folder_stamp``): its seal since then
        self.folders = folders if folders is not None else [None] * len(names)
        # what the runs read never screened reveal as secrets (their documents, tool records and logs): a value one
        # run reveals is hidden in every frame of the load, in the others' rows too (``runlearned``)
        self.revealed: frozenset[str] = frozenset()
        # all of it, a load of one run too: hidden in the runs' ids (``ids_shown``), which no run's own rows hide
        self.revealed_ids: frozenset[str] = frozenset()

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
    manifests: list[Any] | None = None,
    tool_folders: list[ToolFolders | None] | None = None,
) -> EventColumns:
    """Every event of ``refs`` as typed columns; corrupt lines go to ``problems``.

    ``manifests``, when given, gets each run's manifest.json as this load read it with its seal (``read_seal``'s
    bytes and stat, None, or the ``BadFile``; ``UNREAD`` for a run served from the cache or read remotely): a frame
    that checks the run's other files against the seal (``tools_df``) takes it from there instead of reading it again.
    ``tool_folders``, when given, gets each run's ``ToolFolders`` whose folders the load listed for the values a run
    never screened reveals (``runlearned``), else None: ``tools_df`` makes its rows from the same listings.
    """
    extras_key = tuple((c.name, c.path, id(c.fn), c.type) for c in extras)
    segments: list[tuple[Batch | None, int, int]] = []
    run_sources: list[str] = []
    sealed_tools: list[list[Any] | None] = []  # per run: the tool records its seal vouches for
    folders: list[Any] = []  # per run: ``_folder_stamp``
    systems: list[Sequence[tuple[int, str]]] = []  # per run: (row, system) where payload.source names one (filled by the batch)
    batch = Batch(extras, _COMPACT)
    per_run: list[list[LoadProblem]] = []  # reported in run order once every batch is sealed
    fresh: list[tuple[Any, ...]] = []  # cache entries, stored once every batch they point into is sealed
    pool: set[str] = set()  # what the runs never screened reveal (``EventColumns.revealed``)
    with gc_paused():
        paths = [r.fs.join(r.path, "events.jsonl") for r in refs]
        prefetch_remote(refs, _events_and_source_doc)
        try:
            for ref, path in progress(list(zip(refs, paths)), show_progress, "events"):
                key = ("events", ref.fs.protocol, path, extras_key)
                run_folders: ToolFolders | None = None  # made only for a run never screened (``_tool_folders``)
                if tool_folders is not None:
                    tool_folders.append(None)
                seal_docs: tuple[Any, Any] = (UNREAD, UNREAD)  # final.json and manifest.json, when read with the stamp
                if use_cache and key in CACHE:  # read before: stat its files to see whether it changed since
                    folder = _folder_stamp(ref)  # taken before reading, as every stamp: a change while reading shows next time
                    folders.append(folder)
                    named_by = _source_stamp(ref)
                    stamp = ref.stat_events(path)
                    hit = CACHE.get(key, (stamp, named_by, folder)) if stamp is not None else None
                    # a run never screened: its events were redacted with what its documents revealed then
                    # (its summary or state and final.json: stat-ed just now for the keys above)
                    docs_now = None
                    if hit is not None and hit[5] is not None:
                        run_folders = _tool_folders(ref, tool_folders)
                        docs_now = docs_revealed(ref, run_folders, known=_known_stats(ref, named_by, folder))
                    if docs_now is not None and hit is not None and docs_now[0] != hit[5]:
                        hit = None
                    if hit is not None:
                        segment, cached_problems, source, named, tools, _, revealed_in_log = hit
                        if docs_now is not None:
                            pool.update(docs_now[1])
                            pool.update(revealed_in_log)
                        per_run.append(cached_problems)
                        segments.append(segment)
                        run_sources.append(source)
                        sealed_tools.append(tools)
                        systems.append(named)
                        if manifests is not None:
                            manifests.append(UNREAD)
                        continue
                    source = read_run_source(ref)  # fixed before the first event is written: cached with the events
                else:  # never read: each document's stat comes with its read (taken before its bytes), no stat of its own
                    source, named_by = read_run_source_stamped(ref)
                    folder, seal_docs = _read_seal_docs(ref, source)
                    folders.append(folder)
                if manifests is not None:
                    manifests.append(seal_docs[1])
                run_sources.append(source)
                run_problems: list[LoadProblem] = []
                per_run.append(run_problems)
                got = _read_events(ref, path, run_problems)
                if got is None and not run_problems and ref.seal().final:  # ``seal_state``: final.json a regular file
                    run_problems.append(LoadProblem(ref.fs.url(path), None, NO_EVENTS_IN_SEALED_RUN))
                if got is None:
                    run_problems.extend(_seal_changes(ref, None, named_by, folder, seal_docs[1]))
                    segments.append(_NO_EVENTS)
                    systems.append(())
                    sealed_tools.append(None)
                    stamp = ref.fs.stat(path)
                    if use_cache and run_problems and stamp is not None and settled(stamp, folder):  # unreadable: keep its report
                        CACHE.put(key, (stamp, named_by, folder), (_NO_EVENTS, run_problems, source, (), None, None, ()))
                    continue
                data, stamp = got
                url = ref.fs.url(path)
                sealed = False
                if not data.endswith(b"\n") and data.strip() and (sealed := _sealed(ref)):
                    # a line cut while being appended, then the run sealed (its log closed first)? read it again
                    got = _read_events(ref, path, run_problems)
                    data, stamp = got if got is not None else (b"", stamp)
                corruptions: list[Any] = []
                torn: list[int] = []
                numbers: list[int] = []
                summary = named_by[1] if named_by[0] == "summary.json" else None
                as_written, tools = written_as(ref, source, len(data), stamp, summary, seal_docs[0])
                evs = parse_lines(
                    data, url, strict=problems.strict, errors=corruptions, torn=torn, numbers=numbers, as_written=as_written
                )
                sealed_tools.append(tools)
                docs = None  # the stats of the documents whose secrets its events were redacted with
                in_log: frozenset[str] = frozenset()  # the secrets its events reveal (kept with them)
                ids_read = None if as_written else [e.get("episode_id") for e in evs]  # (a hidden id's length said)
                if not as_written:  # never screened: redacted once, with what its other files reveal, then cached
                    known = _known_stats(ref, named_by, folder)  # (taken by the reads of the source and the seal)
                    run_folders = run_folders or _tool_folders(ref, tool_folders)
                    docs, values = docs_revealed(ref, run_folders, known=known, use_cache=use_cache)
                    in_log = frozenset(shown_records(evs, values))
                    pool.update(values)
                    pool.update(in_log)
                if corruptions:
                    run_problems.extend(LoadProblem(c.path, c.line_number, c.reason) for c in corruptions)
                if torn and sealed:  # cut although the run was sealed before this read: damage, not a line in transit
                    run_problems.append(LoadProblem(url, torn[0], CUT_IN_SEALED_RUN))
                report = _LineReport(url, numbers, run_problems)
                # every event naming the run's folder (read from the events: cheaper than counting the log's bytes)
                # leaves nothing to report; else the bytes are counted and the events looked at as before
                owners = [e.get("episode_id") for e in evs]
                if owners.count(ref.name) != len(owners) and not names_only(data, ref.name, len(evs)):
                    report(other_episodes(owners, ref.name, ids_read))
                start, stop, named = batch.add(evs, report)
                # after the lines' own problems: a strict load names the line a change broke, then the change itself
                run_problems.extend(_seal_changes(ref, (len(data), *stamp[1:]), named_by, folder, seal_docs[1]))
                systems.append(named)
                del evs
                segment = (batch, start, stop)
                segments.append(segment)
                # a file changed this very moment is read again next time; so is a live run's cut last line: it is in
                # transit, or, once the run is sealed with it still cut, damage to report (the seal leaves its stamp)
                if use_cache and settled(stamp, folder) and not (torn and not sealed):
                    value = (segment, run_problems, source, named, tools, docs, in_log)
                    fresh.append((key, (stamp, named_by, folder), value, stop - start))
                if batch.rows >= _BATCH_ROWS:
                    batch.seal()
                    batch = Batch(extras, _COMPACT)
        finally:  # also when a strict load raises: the last batch's arrays are built
            batch.seal()
        for key, stamp, value, rows in fresh:  # a load that raised stores none: no entry points into a batch left half-built
            CACHE.put(key, stamp, value, rows=rows)
        revealed = frozenset(pool)
        problems.hide(revealed)  # a value one run reveals is said by no problem of the load
        # a run's own rows were redacted with its own values as read: only a load of several needs them pooled (its
        # folder's name was not: the ids hide all of them)
        revealed_ids = revealed
        revealed = revealed if len(refs) > 1 else frozenset()
        for run_problems in filter(None, per_run):  # most runs have none
            problems.extend([p for p in run_problems if not is_seal_change(p)])
            problems.extend_later([p for p in run_problems if is_seal_change(p)])
        names = [r.name for r in refs]
        memo_key = ("events", extras_key, tuple(names))
        hit = MEMO.get(memo_key, tuple(segments)) if use_cache else None
        if hit is not None:
            served = EventColumns(hit.columns, hit.names, hit.lengths, run_sources, hit._df, sealed_tools, folders)
            served.revealed = revealed
            served.revealed_ids = revealed_ids
            return served
        loaded = _assemble(segments, names, extras, run_sources, systems)
        loaded.sealed_tools = sealed_tools
        loaded.folders = folders
        loaded.revealed = revealed
        loaded.revealed_ids = revealed_ids
        if use_cache:
            MEMO.put(memo_key, tuple(segments), loaded)
        return loaded


def _seal_changes(ref: RunRef, events: Any, named_by: tuple[str, Any], folder: Any, manifest: Any = UNREAD) -> list[LoadProblem]:
    """The run's log (``events``: its stamp as read; None: gone, reported on its own), summary and final.json against
    the sizes its manifest lists (``sealsizes``); nothing for a run not sealed. ``named_by``: ``_source_stamp``;
    ``folder``: ``_folder_stamp`` (locally the stats of final.json and manifest.json, taken before the read: a size
    that differs is checked against the file as it is now, and a manifest written since changes the cache key);
    ``manifest``: manifest.json as ``_read_seal_docs`` read it (``UNREAD``: read here)."""
    local = ref.fs.protocol == "file"
    if local and folder[1] is None:  # no manifest: not sealed, nothing listed
        return []
    # read whenever the run is: no time tells a file or the manifest edited since the seal
    listed = listed_sizes(ref, manifest)
    if not listed:
        return []
    summary = named_by[1] if named_by[0] == "summary.json" else None
    final = folder[0] if local else ref.fs.stat(ref.file("final.json"))
    stats = {"summary.json": summary, "final.json": final}
    if events is not None:
        stats["events.jsonl"] = events
    return size_changes(ref, listed, stats)


def _tool_folders(ref: RunRef, tool_folders: list[ToolFolders | None] | None) -> ToolFolders:
    """The run's ``ToolFolders`` for ``runlearned``, handed on in ``tool_folders`` (its last entry: this run's)."""
    made = ToolFolders(ref)
    if tool_folders is not None:
        tool_folders[-1] = made
    return made


def _known_stats(ref: RunRef, named_by: tuple[str, Any], folder: Any) -> dict[str, Any]:
    """The stats of the run's documents this load took for its cache keys (``_source_stamp`` or the source's read,
    ``_folder_stamp`` or the seal's read): a kept reading of the documents is checked without a ``stat`` of them."""
    known = {named_by[0]: named_by[1]}
    if named_by[0] == "state.json":  # named by state.json: the run has no summary
        known["summary.json"] = None
    if ref.fs.protocol == "file":
        known["final.json"] = folder[0]
    return known


def _source_stamp(ref: RunRef) -> tuple[str, Any]:
    """Which document names the run's source (``rowsource``) and its stat: the cached source is redone when it changes."""
    summary = ref.fs.stat(ref.file("summary.json"))
    return ("summary.json", summary) if summary is not None else ("state.json", ref.fs.stat(ref.file("state.json")))


def _folder_stamp(ref: RunRef) -> Any:
    """What changes when the run's seal does: locally the stamps of final.json and manifest.json (writing, editing,
    renaming or removing either, or swapping it for a link or a folder, changes its size, times or inode), remotely
    the seal as the root's listing shows it. What the seal decides (whether the events are as noesis_nb screened
    them, which tool records it vouches for, whether a cut last line is damage, the sizes the seal-size check
    compares) is cached with the events: a warm load says what a cold one does."""
    fs = ref.fs
    if fs.protocol == "file":
        return fs.stat(ref.file("final.json")), fs.stat(ref.file("manifest.json"))
    seal = ref.seal()
    return seal.final, seal.manifest, fs.stat(ref.file("manifest.json"))


def _read_seal_docs(ref: RunRef, source: str) -> tuple[Any, tuple[Any, Any]]:
    """``_folder_stamp`` of a run read for the first time, and its final.json and manifest.json as ``read_seal`` gives
    them (bytes and stat, None, or the ``BadFile`` it raised; ``UNREAD`` when not read), read before its events.

    Locally each document is read in place of its ``stat`` (the read's stat is the same stamp, taken before its
    bytes): their stats are what decides a cached entry, and their bytes (the seal, the sizes it lists) are then read
    anyway. A document that is no regular file (a link, a folder) is stat-ed as ``_folder_stamp`` does; the final.json
    of a run no marker names noesis_nb's is only stat-ed (``written_as`` reads none for it).
    """
    fs = ref.fs
    if fs.protocol != "file":
        return _folder_stamp(ref), (UNREAD, UNREAD)
    stamps: list[Any] = []
    docs: list[Any] = []
    for name in ("final.json", "manifest.json"):
        if name == "final.json" and source == NOESIS:
            stamps.append(fs.stat(ref.file(name)))
            docs.append(UNREAD)
            continue
        try:
            got = ref.read_seal(name)
        except BadFile as exc:
            stamps.append(fs.stat(ref.file(name)))
            docs.append(exc)
            continue
        stamps.append(None if got is None else got[1])
        docs.append(got)
    return (stamps[0], stamps[1]), (docs[0], docs[1])


def _read_events(ref: RunRef, path: str, run_problems: list[LoadProblem]) -> tuple[bytes, Any] | None:
    """The bytes of the run's events.jsonl; None (and a report) when it is not a readable file of the run."""
    try:
        return ref.fs.read(path, within=ref.path)  # ``ref.read("events.jsonl")``, its path joined once per load
    except BadFile as exc:
        run_problems.append(LoadProblem(ref.fs.url(path), None, f"{exc.reason}; the run's events are not read"))
        return None


def _sealed(ref: RunRef) -> bool:
    """A seal written or being written (``seal_state``: final.json or manifest.json a regular file): the log was closed
    before it, so a cut last line is damage. A link or folder in their place is no seal: such a line is in transit."""
    return ref.seal().ended


class _LineReport:
    """Turns (event index, reason) into problems with line numbers; ``numbers``: each event's line.

    It lives until the batch is sealed (a timestamp is reported then), so it keeps the line
    numbers only when some line was not an event, never the file's bytes.
    """

    __slots__ = ("url", "lines", "sink")

    def __init__(self, url: str, numbers: list[int], sink: list[LoadProblem]):
        self.url, self.sink = url, sink
        self.lines = None if not numbers or numbers[-1] == len(numbers) else numbers  # None: event i is line i + 1

    def line(self, index: int) -> int:
        """The line of the run's event ``index``."""
        return index + 1 if self.lines is None else self.lines[index]

    def __call__(self, bad: list[tuple[int, str]]) -> None:
        line = self.line
        self.sink.extend(LoadProblem(self.url, line(i), reason) for i, reason in bad)


def _events_and_source_doc(ref: RunRef) -> list[str]:
    """What reading a run's events needs: ``events.jsonl``, the document naming its source, and the seal's two
    (``manifest.json``: the sizes the run's files were sealed at)."""
    summary = ref.fs.join(ref.path, "summary.json")
    return [
        ref.fs.join(ref.path, "events.jsonl"),
        summary if ref.fs.stat(summary) is not None else ref.fs.join(ref.path, "state.json"),
        ref.fs.join(ref.path, "final.json"),
        ref.fs.join(ref.path, "manifest.json"),
    ]


def _assemble(
    segments: list[tuple[Batch | None, int, int]],
    names: list[str],
    extras: tuple[Column, ...],
    run_sources: list[str],
    systems: list[Sequence[tuple[int, str]]],
) -> EventColumns:
    lengths = [stop - start for _, start, stop in segments]
    merged: list[list[Any]] = []
    for batch, start, stop in segments:
        if batch is None or stop == start:
            continue
        if merged and merged[-1][0] is batch and merged[-1][2] == start:
            merged[-1][2] = stop
        else:
            merged.append([batch, start, stop])
    kinds = {
        **EVENT_KINDS,
        **{c.name: (c.type if c.type in ("str", "category", "datetime", "float") else "object") for c in extras},
    }
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
    order = [
        "episode_id",
        "source",
        "seq",
        "event_id",
        "timestamp",
        "phase",
        "event_name",
        "agent_id",
        "caused_by",
        "duration_ms",
        "faculty",
        "status",
        "tool",
        "draft_id",
        "model",
        "payload",
        *[c.name for c in extras],
    ]
    return EventColumns({k: columns[k] for k in order}, names, lengths, run_sources)


def _seq(lengths: list[int], total: int) -> np.ndarray:
    if total == 0:
        return np.empty(0, dtype=np.int64)
    lens = np.asarray(lengths, dtype=np.int64)
    starts = np.cumsum(lens) - lens
    return np.arange(total, dtype=np.int64) - np.repeat(starts, lens)
