"""One run directory → one record: its documents, status, counts and model calls, read as cheaply as possible.

``summary.json`` carries most fields. ``events.jsonl`` is read only for what the documents lack:
the terminate event when the summary has no status (older Noēsis runs), the start event when
there is no summary or state, and model calls (only lines mentioning ``"model.call"`` are
parsed) unless the summary already lists usage by model with every token part known, for a run
within one UTC day (then the per-model sums price exactly as the calls would).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

import numpy as np
import orjson

from .._jsonkeys import loads_checked, repeated_reason, screened
from ..secrets.quoted import quoted
from ..store.eventlog import WIDE_BOMS, WIDE_TEXT, lone_cr_as_newline, parse_lines
from ..store.layout import PREPARED_DIRS
from ..store.sealing import SealState, UnreadableSealFile
from ..store.status import run_status
from ..store.vocab import RECORDED_APPROVALS_TAG, RECORDED_TOOL_CALLS_TAG
from ..tools.awaiting import awaits_decision
from .coerce import obj
from .eventids import names_only, other_episodes
from .fs import BadFile, Stat, dir_stamp, local_unchanged
from .problems import NO_EVENTS_IN_SEALED_RUN, LoadProblem
from .shapes import FINAL, MANIFEST, STATE, SUMMARY, Spec, check
from .source import RunRef
from .summaryusage import usage_disagreement
from .timetext import utc_micros
from .toolcalls import ToolEventsSeen, seen_in, tool_calls
from .toolfolders import ToolFolders
from .usage import MODEL_CALL, scan_model_calls
from .values import describe, is_time
from .waits import PauseSpans

__all__ = [
    "read_run",
    "run_stamp",
    "run_unchanged",
    "stamp_checks",
    "calls_from_events",
    "status_from_log",
    "RunRecord",
    "ToolCounts",
    "Call",
    "PARTS",
]

_TAIL = 16384
_DAY_US = 86_400_000_000
PARTS = (
    ("cached_input", "cached_input_tokens"),
    ("cache_write", "cache_write_input_tokens"),
    ("reasoning", "reasoning_tokens"),
)  # (price field, count)
Call = tuple[Any, dict[str, Any]]  # (timestamp, model.call payload or a per-model sum)


class ToolCounts(TypedDict):
    """Draft counts from the run's ``tool_invocations/`` listings."""

    drafts: int
    pending: int
    present: bool


class RunRecord(TypedDict):
    """What ``read_run`` read from one run directory (documents as checked) and derived from it; cached per run."""

    ref: RunRef
    summary: dict[str, Any] | None
    state: dict[str, Any] | None
    final: dict[str, Any] | None
    manifest: dict[str, Any] | None
    seal: NotRequired[SealState]  # the seal documents as read (``_seal_doc``); an indexed record has its row's ``sealed``
    status: str | None
    waiting: NotRequired[float | None]  # seconds paused for people (``waits``); None when the log could not be read
    head: dict[str, Any] | None  # the first event (when there is no summary or state)
    tail_end: str | None  # timestamp of the terminate event
    vetoes: NotRequired[int | None]  # enforced vetoes the log holds, when it was read whole for a run with no summary
    calls: list[Call]
    calls_from: Literal["summary", "events"]
    tools: ToolCounts
    tool_calls: int | None  # ``tool_calls_of``: the calls tools_df lists; None when not known without reading more
    tool_calls_from: NotRequired[Literal["summary", "events"]]
    stamp: dict[str, Any]  # file name (a folder's ends with "/") -> its change marker (see ``run_stamp``)
    listings: dict[str, list[str]]  # tool folders listed while reading, by relative path
    problems: list[LoadProblem]
    manifest_clean: bool  # the manifest's fields all fit their shape
    known_sizes: dict[str, int]  # sizes of the run's top-level files, from their stat
    manifest_ok: NotRequired[bool | None]  # set by runs_df, which knows how to verify
    calls_unknown: NotRequired[bool]  # set by runs_df: a sealed run's log gone or changed since (``run_usage``)
    # set by runs_df: its log or summary changed since the seal (reported so): not compared (``summaryusage``)
    usage_unchecked: NotRequired[bool]
    written_here: NotRequired[bool]  # set by runs_df: sealed by noesis_nb, unedited (its text screened as written)
    revealed: NotRequired[frozenset[str]]  # set by runs_df for a run not written here: its files' secrets (``runlearned``)
    row: NotRequired[dict[str, Any]]  # runs_df's column values
    sums_checked: NotRequired[dict[str, bool]]  # price table version -> whether the per-model sums hide priced parts
    indexed: NotRequired[bool]  # from ``runindex`` (row and calls, no documents): read in full when those are needed
    call_columns: NotRequired[tuple[list[Call], Any]]  # (the calls, ``runusage``'s columns of them), read once


def _doc(ref: RunRef, name: str, problems: list[LoadProblem], stamp: dict[str, Any], shape: Spec) -> dict[str, Any] | None:
    """A run document, its misfit fields read as None; every problem (unreadable, not JSON, bad field) reported."""
    try:
        got = ref.read(name)
    except BadFile as exc:
        _unreadable_doc(ref, name, exc, problems, stamp)
        return None
    return _parsed(ref, name, got, problems, stamp, shape)


def _seal_doc(
    ref: RunRef, name: str, problems: list[LoadProblem], stamp: dict[str, Any], shape: Spec
) -> tuple[dict[str, Any] | None, bool, str | None]:
    """A seal document (``_doc``) read as ``store.sealing.seal_state`` counts it, never through a link, with
    whether a regular file is there (read or not) and what is there instead of one (None: nothing else is).
    Known from the read itself: no system call of its own."""
    try:
        got = ref.read_seal(name)
    except BadFile as exc:
        _unreadable_doc(ref, name, exc, problems, stamp)
        what = exc.what if isinstance(exc, UnreadableSealFile) else None
        if what is not None:  # its stat follows a link: removing a dangling one changes the run's folder, not it
            stamp["."] = ref.fs.stat(ref.path)
        return None, what is None, what
    return _parsed(ref, name, got, problems, stamp, shape), got is not None, None


def _unreadable_doc(ref: RunRef, name: str, exc: BadFile, problems: list[LoadProblem], stamp: dict[str, Any]) -> None:
    path = ref.file(name)
    stamp[name] = ref.fs.stat(path)
    problems.append(_Unreadable(ref.fs.url(path), None, f"{exc.reason}; the run is read without it", name, exc.reason))


def _parsed(
    ref: RunRef, name: str, got: tuple[bytes, Stat] | None, problems: list[LoadProblem], stamp: dict[str, Any], shape: Spec
) -> dict[str, Any] | None:
    """The document ``got`` (bytes and stat, None when absent) parsed and checked against ``shape``."""
    url = ref.fs.url(ref.file(name))
    if got is None:
        stamp[name] = None
        return None
    data, stamp[name] = got
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        reason = WIDE_TEXT if data[:2] in WIDE_BOMS else f"invalid JSON ({exc})"
        problems.append(LoadProblem(url, None, f"{reason}; the run is read without it"))
        return None
    if type(value) is not dict:
        problems.append(LoadProblem(url, None, f"{describe(value)}, not an object; the run is read without it"))
        return None
    value, repeated = screened(data, value)
    if repeated:
        problems.append(LoadProblem(url, None, repeated_reason(repeated)))
    return check(value, shape, lambda reason: problems.append(LoadProblem(url, None, reason)))


def read_run(
    ref: RunRef, *, strict: bool, folders: ToolFolders | None = None
) -> tuple[RunRecord, dict[str, Any], list[LoadProblem]]:
    """(record, stamp of every file consulted, problems). The record holds documents and derived facts.

    ``folders`` lists the run's tool folders (pass the one the manifest check will use, to look once).
    """
    problems: list[LoadProblem] = []
    # every file consulted, stamped from the very file read (a later replacement by rename has another stat)
    stamp: dict[str, Any] = {}
    summary = _doc(ref, "summary.json", problems, stamp, SUMMARY)
    final, final_there, final_odd = _seal_doc(ref, "final.json", problems, stamp, FINAL)
    before = len(problems)
    manifest, manifest_there, manifest_odd = _seal_doc(ref, "manifest.json", problems, stamp, MANIFEST)
    manifest_clean = len(problems) == before  # a manifest with a malformed field cannot vouch for the run
    odd_name, odd = ("final.json", final_odd) if final_odd else ("manifest.json", manifest_odd)
    seal = SealState(final_there, manifest_there, (Path(ref.file(odd_name)), odd) if odd else None)
    ended = seal.ended  # a seal written (or being written): nothing more is appended to the log
    state = _doc(ref, "state.json", problems, stamp, STATE)  # read even when the summary says it all: its bad values are reported
    ext = (summary or {}).get("x-noesis_nb") or {}
    usage = ext.get("usage") if isinstance(ext, dict) else None
    by_model = usage.get("by_model") if isinstance(usage, dict) else None
    # the log's terminate decides a status (``run_status``); a summary's own word stands in for it only in a sealed
    # run (the seal vouches they agree; ``runs`` re-reads the log where the summary changed since)
    need_status = summary is None or not summary.get("status") or not seal.manifest
    no_calls = isinstance(usage, dict) and usage.get("model_calls") == 0
    day_sums = None if no_calls else _day_sums(by_model, summary)
    need_calls = not no_calls and day_sums is None
    events_path = ref.file("events.jsonl")
    url = ref.fs.url(events_path)
    tail: list[dict[str, Any]] = []
    head: dict[str, Any] | None = None
    vetoes: int | None = None  # enforced vetoes in the log, counted where no summary counts them
    calls: list[Call] = []
    # what the log's tool events say of its tool calls (``toolcalls``); None: the log not read whole
    seen: ToolEventsSeen | None = None
    paused = _paused_ever(ref, stamp)
    waiting: float | None = 0.0 if paused is False else None  # a run never paused waited for nobody: its log is not read
    pause_open = False
    counted = ext.get("tool_requests") if isinstance(ext, dict) else None
    counted = counted if type(counted) is int and counted >= 0 else None
    # a summary that does not count its tool requests (an older release's, another writer's): its log counts them
    need_requests = counted is None
    # no start time in summary or state (absent, or not text: reported): the first event's, as a run with neither
    need_start = not _has_text(summary, "started_at") and not _has_text((state or {}).get("episode"), "started_at")
    if need_calls or need_status or need_start or paused or need_requests:
        got = _events(ref, need_calls or summary is None or paused is True or need_requests or need_start, problems)
        if got is not None and paused:
            waiting, pause_open = _waiting(got[0])
        if got is not None:
            data, stamp["events.jsonl"], whole = got
            if need_status or summary is None:
                tail = _parse_tail(data, whole, url, problems)
            if whole and need_start:
                head = _first_event(data[: data.find(b"\n") + 1 or len(data)])
            if whole:
                unreadable: list[int] = []  # tool event lines that do not parse: the count is not known
                seen = seen_in(_tool_events(data, unreadable))
                if unreadable or not _lines_whole(data, ended):
                    seen = None
                vetoes = _vetoes(data) if summary is None else None
            if need_calls:
                calls = scan_model_calls(data, url, problems, sealed=ended)
            if whole:
                _other_episodes(ref, data, url, problems)
        else:
            stamp["events.jsonl"] = ref.fs.stat(events_path)
    if seal.final and not seal.manifest:  # a manifest says what is missing itself
        if "events.jsonl" not in stamp:
            stamp["events.jsonl"] = ref.stat_events(events_path)  # the listing's stat: free; kept, so a log put back shows
        if stamp["events.jsonl"] is None:
            problems.append(LoadProblem(url, None, NO_EVENTS_IN_SEALED_RUN))
    if summary is not None and not seal.manifest and not (seal.final and stamp.get("events.jsonl", 0) is None):
        _ended_log_lost(ref, summary, stamp, problems)
    if paused is not None and (seal.sealed or "events.jsonl" in stamp):
        # a pause writes the log before its checkpoint, and a sealed run pauses no more: the folder's stamp would
        # tell a warm reload nothing the others do not (one stat a run saved)
        stamp.pop("checkpoints/", None)
    if day_sums is not None:
        calls = day_sums
    listings: dict[str, list[str]] = {}
    folders = folders or ToolFolders(ref)
    tools = _tools(folders, stamp, problems, listings, sealed=ended)
    drafted = {n[:-5] for sub in PREPARED_DIRS for n in listings.get(f"tool_invocations/{sub}", ()) if n.endswith(".json")}
    tool_calls = tool_calls_of(drafted, seen, counted)
    status = _known_status(_status(ref, summary, state, tail, problems), problems)
    if pause_open and status == "paused":
        waiting = None  # it waits for a person now: how long is not known until the run resumes (as its duration)
    undrafted_calls, undrafted_approvals = _recorded_tools(summary, state)
    if undrafted_calls:
        tool_calls = None  # some of an imported trace's calls became no drafts: tools_df lists none of them, so not 0
    if undrafted_approvals:
        waiting = None  # those calls' approval waits are not in its log: how long a person took is not known
    record: RunRecord = {
        "ref": ref,
        "summary": summary,
        "state": state,
        "final": final,
        "manifest": manifest,
        "seal": seal,
        "waiting": waiting,
        "status": status,
        "head": head,
        "tail_end": next((e.get("timestamp") for e in reversed(tail) if e.get("phase") == "terminate"), None),
        "vetoes": vetoes,
        "calls": calls,
        "calls_from": "events" if need_calls else "summary",  # "summary" for its sums and its "no calls" alike
        "tools": tools,
        "tool_calls": tool_calls,
        "tool_calls_from": "events" if seen is not None else "summary",
        "stamp": stamp,
        "listings": listings,
        # a bad line both the tail and the calls' scan read is one problem, not two
        "problems": _one_for_unreadable(ref, list(dict.fromkeys(problems))),
        "manifest_clean": manifest_clean,
        "known_sizes": {k: v[0] for k, v in stamp.items() if v is not None and k.endswith((".json", ".jsonl"))},
    }
    return record, stamp, record["problems"]


def _recorded_tools(summary: dict[str, Any] | None, state: dict[str, Any] | None) -> tuple[int, int]:
    """The tool calls and approval requests an imported trace records that became no drafts (its summary's
    ``x-noesis_nb.undrafted_tool_calls`` / ``undrafted_approvals``): 0 for any other run. A run an earlier release
    imported (its tags hold the import's ``trace_digest``, its summary no such count) drafted none of its calls: its
    ``RECORDED_TOOL_CALLS_TAG`` and ``RECORDED_APPROVALS_TAG`` count them; the same tags in another run are a user's."""
    ext = obj(summary, "x-noesis_nb") if summary is not None else {}
    if "undrafted_tool_calls" in ext:
        said = [ext.get(k) for k in ("undrafted_tool_calls", "undrafted_approvals")]
    else:
        tags = obj(summary, "tags") if summary is not None else obj(obj(state, "episode"), "tags")
        legacy = isinstance(tags.get(_DIGEST_TAG), str)
        said = [tags.get(k) if legacy else None for k in (RECORDED_TOOL_CALLS_TAG, RECORDED_APPROVALS_TAG)]
    calls, approvals = (v if type(v) is int and v > 0 else 0 for v in said)
    return calls, approvals


#: the tag an import gives its run (``integrations._dedupe.DIGEST_TAG``; frames do not import integrations)
_DIGEST_TAG = "trace_digest"


def _ended_log_lost(ref: RunRef, summary: dict[str, Any], stamp: dict[str, Any], problems: list[LoadProblem]) -> None:
    """Report an ended run (its summary written) whose events.jsonl is missing or empty: every ended run logged at
    least its terminate, and its summary's counts (``act_count``) equal its log's events, so its model calls, tokens
    and tool events are unknown, not 0 (the problem at the log's path makes ``runusage`` read them as unknown)."""
    path = ref.file("events.jsonl")
    if "events.jsonl" not in stamp:
        stamp["events.jsonl"] = ref.stat_events(path)  # the listing's stat: free
    now = stamp["events.jsonl"]
    if now is not None and now[0] != 0:  # a size not known (a remote file with no Content-Length) is not said empty
        return
    counts = obj(summary, "metrics")
    said = ", ".join(f"{k} {counts[k]}" for k in _SUMMARY_COUNTS if type(counts.get(k)) is int)
    what = "missing" if now is None else "empty (0 bytes)"
    problems.append(
        LoadProblem(
            ref.fs.url(path),
            None,
            f"run {quoted(ref.name, 80)}: events.jsonl is {what} although summary.json says the run ended"
            + (f" ({said}; the log holds 0 events)" if said else " (the log holds no terminate event)")
            + "; its events, model calls and tool events are not known. Copy the run's events.jsonl back",
        )
    )


#: the counts of events a summary's metrics give (a Noēsis run's ``act_count`` equals its ``act`` events)
_SUMMARY_COUNTS = ("act_count", "reflect_count", "interpret_count", "plan_count")


def status_from_log(record: RunRecord, problems: list[LoadProblem]) -> None:
    """Set ``record``'s status from its log, its summary's own status left out: that summary is no longer the one
    the run was sealed with, so its word is not the run's (``run_status`` with the log's tail, as every reader)."""
    ref: RunRef = record["ref"]
    got = _events(ref, False, problems)
    if got is None:
        return
    tail = _parse_tail(got[0], got[2], ref.fs.url(ref.file("events.jsonl")), problems)
    summary = {k: v for k, v in (record["summary"] or {}).items() if k != "status"}
    record["status"] = _known_status(_status(ref, summary, record["state"], tail, problems), problems)
    record["tail_end"] = next((e.get("timestamp") for e in reversed(tail) if e.get("phase") == "terminate"), None)
    record["stamp"].setdefault("events.jsonl", got[1])


def tool_calls_of(drafts: set[str], seen: ToolEventsSeen | None, sealed_requests: int | None) -> int | None:
    """A run's tool calls, as ``tools_df`` has a row for each: by ``toolcalls``' rule, from its prepared records'
    names (``drafts``) and what its log's tool events say (``seen``).

    The log not read (``seen`` None): the ``tool.requested`` events noesis_nb sealed the summary with
    (``x-noesis_nb.tool_requests``: each draft of its runs comes of one), when the drafts are not more; else
    None, unknown. A summary without that count (an older release's, another writer's) has its log read for it
    (``read_run``), so None is left for a log that cannot be read whole or a count fewer than the drafts.
    """
    if seen is not None:
        calls = tool_calls(drafts, seen)
        return len(calls.drafts) + len(calls.requests)
    if sealed_requests is not None and sealed_requests >= len(drafts):
        return sealed_requests
    return None


def _tool_events(data: bytes, unreadable: list[int]) -> Iterator[tuple[Any, Any]]:
    """``(event_name, payload)`` of the tool events (phase ``tool``) of a log that ``toolcalls``' count reads: those
    naming a draft or asking for a call. Only lines holding ``"draft_id"`` or ``"tool.requested"`` are parsed, the
    first kind then the second (the count does not depend on their order); where such a line starts is added to
    ``unreadable`` when it does not parse as an object (a NaN in a request: it may have been one)."""
    for key in (b'"draft_id"', b'"tool.requested"'):
        for event in _events_holding(data, key, unreadable):
            if event.get("phase") == "tool":
                payload = event.get("payload")
                yield (payload.get("event_name") if type(payload) is dict else None), payload


def _vetoes(data: bytes) -> int:
    """The enforced vetoes in a log, as a summary counts them (``governance`` events, ``decision`` ``veto``,
    ``enforced``): only lines holding ``"veto"`` are parsed."""
    count = 0
    for event in _events_holding(data, b'"veto"'):
        payload = event.get("payload") if event.get("phase") == "governance" else None
        if type(payload) is dict and payload.get("decision") == "veto" and payload.get("enforced"):
            count += 1
    return count


def _lines_whole(data: bytes, sealed: bool) -> bool:
    """Whether every line of a log is a JSON object, blank lines aside: a line cut or garbled (``{"torn": ``) may
    have been a tool request, so a count read past it would be a guess. A live run's cut last line is one being
    written (not counted yet); a sealed run's is damage. Only lines not ending in ``}`` are parsed (a line that
    does and holds a tool event's key is parsed by ``_tool_events``)."""
    body = data if sealed or data.endswith(b"\n") else data[: data.rfind(b"\n") + 1]
    if not body or (body.endswith(b"\n") and body.count(b"\n") == body.count(b"}\n")):  # memchr: the usual case
        return True
    for line in body.split(b"\n"):
        line = line.strip()
        if line and not line.endswith(b"}"):
            try:
                if type(orjson.loads(line)) is not dict:
                    return False
            except orjson.JSONDecodeError:
                return False
    return True


def _events_holding(data: bytes, key: bytes, unreadable: list[int] | None = None) -> Iterator[dict[str, Any]]:
    """The events of a log whose line holds ``key``, each such line parsed once; a line that does not parse, or is
    no object, is left out (events_df reports it), its start added to ``unreadable`` when given."""
    start = 0
    while (at := data.find(key, start)) >= 0:
        begin = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        start = end + 1
        try:
            event = orjson.loads(data[begin:end])
        except orjson.JSONDecodeError:
            event = None
        if type(event) is dict:
            yield event
        elif unreadable is not None:
            unreadable.append(begin)


@dataclass(frozen=True)
class _Unreadable(LoadProblem):
    """A run file that could not be read at all (a FIFO, a folder, a link out of the run, no permission)."""

    name: str = ""
    why: str = ""


def _one_for_unreadable(ref: RunRef, problems: list[LoadProblem]) -> list[LoadProblem]:
    """``problems`` with the files of the run that cannot be read at all said once, naming each, in the place of
    the first: a run folder whose files were all replaced is one problem, not one per file."""
    bad = [p for p in problems if isinstance(p, _Unreadable)]
    if len(bad) < 2:
        return [LoadProblem(p.path, p.line, p.reason) for p in problems]
    files = "; ".join(f"{p.name}: {p.why}" for p in bad)
    events = any(p.name == "events.jsonl" for p in bad)
    merged = LoadProblem(
        ref.fs.url(ref.path),
        None,
        f"{len(bad)} files of the run cannot be read ({files}); the run is read without them"
        + (" (its events are not read)" if events else "")
        + ". Put back the run's own files, or move the folder out of the runs root if it is no run",
    )
    first = problems.index(bad[0])
    return [merged if i == first else p for i, p in enumerate(problems) if i == first or not isinstance(p, _Unreadable)]


def _events(ref: RunRef, whole: bool, problems: list[LoadProblem]) -> tuple[bytes, Stat, bool] | None:
    """All of events.jsonl, or its last ``_TAIL`` bytes; None (reported) when it is not a readable file of the run."""
    try:
        if whole:
            got = ref.read("events.jsonl")
            return None if got is None else (_line_ends(ref, got[0], True, problems), got[1], True)
        tail = ref.read_tail("events.jsonl", _TAIL)
        return None if tail is None else (_line_ends(ref, tail[0], tail[2], problems), tail[1], tail[2])
    except BadFile as exc:
        url = ref.fs.url(ref.file("events.jsonl"))
        problems.append(_Unreadable(url, None, f"{exc.reason}; the run's events are not read", "events.jsonl", exc.reason))
        return None


def _line_ends(ref: RunRef, data: bytes, whole: bool, problems: list[LoadProblem]) -> bytes:
    """``data`` with lone ``\\r`` line ends read as newlines (reported once), as the event frames read them."""
    if b"\r" not in data:  # memchr: the usual case costs one pass
        return data
    errors: list[Any] = []
    data = lone_cr_as_newline(data, ref.fs.url(ref.file("events.jsonl")), errors=errors)
    problems.extend(LoadProblem(c.path, c.line_number if whole else None, c.reason) for c in errors)
    return data


def _day_sums(by_model: Any, summary: dict[str, Any] | None) -> list[Call] | None:
    """The summary's ``usage.by_model`` as calls priced on the run's day, when it can stand in for the run's
    ``model.call`` events; None when it cannot.

    Prices depend on the day: a run spanning midnight (UTC), or one without a start time, is
    priced per call from its events. A row with a null cached/cache-write part may also need
    the events (see ``calls_from_events``); that depends on the prices, so it is decided later.
    """
    if not isinstance(by_model, list) or not summary or not all(type(item) is dict for item in by_model):
        return None
    if not _one_day(summary.get("started_at"), summary.get("duration_sec")):
        return None
    return [(summary["started_at"], dict(item, event_name=MODEL_CALL)) for item in by_model]


def calls_from_events(record: RunRecord) -> list[LoadProblem]:
    """Replace the summary's per-model sums by the run's ``model.call`` events; returns new problems.

    A sum is null when any call left that part unknown, so a row cannot say which calls had
    cached/cache-write tokens; when that part has its own price, only the calls price the run as
    ``usage_df`` does. The record keeps the calls, and the stat of ``events.jsonl`` joins its stamp.
    """
    ref = record["ref"]
    path = ref.file("events.jsonl")
    found: list[LoadProblem] = []
    got = _events(ref, True, found)
    sealed = record["seal"].ended
    record["calls"] = scan_model_calls(got[0], ref.fs.url(path), found, sealed=sealed) if got is not None else []
    if got is not None:
        _other_episodes(ref, got[0], ref.fs.url(path), found)
    record["calls_from"] = "events"
    record["stamp"]["events.jsonl"] = got[1] if got is not None else ref.fs.stat(path)
    if got is not None and (disagreement := usage_disagreement(record)) is not None:
        found.append(disagreement)
    found = [p for p in dict.fromkeys(found) if p not in record["problems"]]  # a line the tail's read reported: once
    record["problems"].extend(found)
    return found


def _other_episodes(ref: RunRef, data: bytes, url: str, problems: list[LoadProblem]) -> None:
    """Report the events of the log that name another episode than the run's folder (``eventids``), at their lines.

    Decided by counting bytes; only a log where the count is off (an event naming another run or none, a
    blank line) is parsed whole to find which. A torn last line (no event) is left out of the count.
    """
    # counted by numpy: bytes.count of one byte is a plain loop, ~3x slower
    newlines = int(np.count_nonzero(np.frombuffer(data, np.uint8) == 10))
    last = data[data.rfind(b"\n") + 1 :]  # b"" unless the last line has no newline
    if names_only(data, ref.name, newlines + bool(last)):
        return
    if last and not _whole_event(last) and names_only(data[: len(data) - len(last)], ref.name, newlines):
        # a torn last line (being written, or cut by a crash) is no event (``parse_lines``): the whole lines decide,
        # without parsing a crashed run's log whole to learn nothing
        return
    numbers: list[int] = []
    events = parse_lines(data, url, strict=False, errors=[], numbers=numbers)
    found = other_episodes([e.get("episode_id") for e in events], ref.name)
    problems.extend(LoadProblem(url, numbers[i], reason) for i, reason in found)


def _whole_event(line: bytes) -> bool:
    """Whether a last line without its newline is an event, as ``parse_lines`` reads one: a JSON object."""
    try:
        return type(orjson.loads(line)) is dict
    except orjson.JSONDecodeError:
        return False


def _one_day(started: Any, duration: Any) -> bool:
    """True when a run started at ``started`` and lasting ``duration`` seconds stays within one UTC day."""
    begin = utc_micros(started)  # the rule the calls are priced by: a time it cannot read is no day
    if begin is None or not isinstance(duration, (int, float)) or isinstance(duration, bool) or not 0 <= duration < 86400:
        return False
    return begin // _DAY_US == (begin + int(duration * 1_000_000)) // _DAY_US


def _paused_ever(ref: RunRef, stamp: dict[str, Any]) -> bool | None:
    """Whether the run has a ``checkpoints`` folder: every pause a run came back from wrote a checkpoint there (a
    resume needs one). One stat (a listing remotely), stamped, so a pause added later is seen on reload. None when
    it cannot be told (the run's folder is another user's): the wait is then unknown, not 0."""
    path = ref.file("checkpoints")
    if ref.fs.protocol == "file":
        try:
            os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            stamp["checkpoints/"] = None
            return False
        except OSError:  # no permission to look into the run (its files are reported as they are read)
            stamp["checkpoints/"] = ref.fs.stat(path)
            return None
        stamp["checkpoints/"] = ref.fs.stat(path)
        return True
    try:
        names = ref.listdir("checkpoints")
    except BadFile:
        return None
    stamp["checkpoints/"] = tuple(sorted(names))
    return bool(names)


def _waiting(data: bytes) -> tuple[float, bool]:
    """``waits.waiting_seconds`` of the lines of ``data`` that may be a pause or a resume (parsed only those), and
    whether a pause is still open at the end of them."""
    spans = PauseSpans()
    for start, end in _lines_holding(data, _PAUSE_NEEDLES):
        line = data[start:end]
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:  # events_df reports the line
            continue
        if type(event) is dict:
            spans.note(screened(line, event)[0])  # a key written twice: unknown (events_df reports it)
    return spans.waited, spans.pausing


_PAUSE_NEEDLES = (b"run.resume", b"run.interrupt", b"run.checkpoint")


def _lines_holding(data: bytes, needles: tuple[bytes, ...]) -> list[tuple[int, int]]:
    """(start, end) of each line of ``data`` holding one of ``needles``, once each, in file order: found by
    ``bytes.find``, so a long log of other events costs no Python work a line (a paused run's log is read whole)."""
    found: dict[int, int] = {}
    find = data.find
    for needle in needles:
        i = find(needle)
        while i != -1:
            start = data.rfind(b"\n", 0, i) + 1
            end = find(b"\n", i)
            end = len(data) if end == -1 else end
            found[start] = end
            i = find(needle, end)
    return sorted(found.items())


#: the files a run's status is read from: when one of them cannot be read, "running" or "paused" is only a guess
_STATUS_FILES = frozenset({"summary.json", "state.json", "events.jsonl", "final.json", "manifest.json"})


def _known_status(status: str | None, problems: list[LoadProblem]) -> str | None:
    """``status``, or None (unknown) where it is ``running`` or ``paused`` only because a file that would say
    otherwise could not be read (another user's run, no permission): such a run may well have ended."""
    if status in ("running", "paused") and any(isinstance(p, _Unreadable) and p.name in _STATUS_FILES for p in problems):
        return None
    return status


def _status(
    ref: RunRef,
    summary: dict[str, Any] | None,
    state: dict[str, Any] | None,
    tail: list[dict[str, Any]],
    problems: list[LoadProblem],
) -> str | None:
    """``run_status``; fields of the wrong shape are read as empty rather than failing the load.

    ``runs_df`` reports those fields itself; a status that still cannot be read is reported here.
    """
    try:
        return run_status(summary, state, tail)
    except (AttributeError, TypeError, ValueError):
        pass
    metrics = {k: v for k, v in obj(summary, "metrics").items() if k != "veto_count" or isinstance(v, (int, float))}
    summary = None if summary is None else {**summary, "metrics": metrics, "flags": obj(summary, "flags")}
    state = None if state is None else {**state, "outcomes": obj(state, "outcomes")}
    tail = [e for e in tail if e.get("payload") is None or type(e.get("payload")) is dict]
    try:
        return run_status(summary, state, tail)
    except (AttributeError, TypeError, ValueError) as exc:
        problems.append(LoadProblem(ref.url, None, f"the status cannot be read from malformed fields ({exc})"))
        return None


def _parse_tail(data: bytes, whole: bool, url: str, problems: list[LoadProblem]) -> list[dict[str, Any]]:
    """The events in the last ``_TAIL`` bytes (enough for terminate and the last lifecycle event)."""
    errors: list[Any] = []
    cut = data.find(b"\n", len(data) - _TAIL) + 1 if len(data) > _TAIL else 0
    if cut == 0 and not whole:
        cut = data.find(b"\n") + 1  # the first bytes of a tail read are a partial line
    tail = [_plain(e) for e in parse_lines(data[cut:], url, strict=False, errors=errors)]
    offset = data.count(b"\n", 0, cut) if whole else None
    problems.extend(
        LoadProblem(
            c.path,
            None if offset is None else offset + c.line_number,
            c.reason if whole else f"{c.reason} (in the last {_TAIL} bytes)",
        )
        for c in errors
    )
    return tail


_TEXT_KEYS = frozenset({"status", "task", "using", "kind", "type", "event"})


def _plain(event: dict[str, Any]) -> dict[str, Any]:
    """An event with the fields runs_df reads (phase, timestamp, payload text fields) kept only when well typed.

    A misfit is read as absent (events_df reports it with its line): ``status: 5`` must not become "5". A misfit
    status is kept as None: a terminate saying no readable word is ``unknown`` (``run_status``), not ``ok``.
    """
    payload = event.get("payload")
    if type(payload) is dict:
        payload = {
            k: v if k not in _TEXT_KEYS or type(v) is str else None
            for k, v in payload.items()
            if k not in _TEXT_KEYS or type(v) is str or k == "status"
        }
    else:
        payload = None
    return {
        "phase": event["phase"] if type(event.get("phase")) is str else None,
        "payload": payload,
        "timestamp": event["timestamp"] if is_time(event.get("timestamp")) else None,
    }


def _has_text(doc: Any, key: str) -> bool:
    value = doc.get(key) if type(doc) is dict else None
    return type(value) is str and value != ""


def _first_event(line: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return _plain(screened(line, value)[0]) if type(value) is dict else None  # events_df reports a repeated key


def _tools(
    folders: ToolFolders, stamp: dict[str, Any], problems: list[LoadProblem], listings: dict[str, list[str]], *, sealed: bool
) -> ToolCounts:
    """Draft counts from ``tool_invocations/`` listings; pending = undecided, unexecuted drafts awaiting a decision."""
    ref = folders.ref
    if not sealed and not _listing(folders, ("tool_invocations",), stamp, problems, listings, keep=False):
        stamp["tool_invocations/"] = None
        return {"drafts": 0, "pending": 0, "present": False}
    where: dict[str, tuple[str, ...]] = {}  # draft -> its folder (Noēsis' prepared/, or the python extension folder)
    for sub in PREPARED_DIRS:
        parts = ("tool_invocations", *sub.split("/"))
        where.update((n[:-5], parts) for n in _listing(folders, parts, stamp, problems, listings) if n.endswith(".json"))
    if sealed:  # nothing can be pending; the drafts are the prepared records
        return {"drafts": len(where), "pending": 0, "present": bool(where)}
    names = {"prepared": set(where)}
    for kind in ("approvals", "executions"):
        names[kind] = {
            n[:-5] for n in _listing(folders, ("tool_invocations", kind), stamp, problems, listings) if n.endswith(".json")
        }
    pending = 0
    for draft in sorted(names["prepared"] - names["executions"]):
        doc = _record(ref, (*where[draft], draft + ".json"), stamp)[0]
        if not (isinstance(doc, dict) and awaits_decision(doc)):  # a sealed run returned above: its seal has not begun
            continue
        if draft not in names["approvals"]:
            pending += 1
            continue
        # a decision file resume_run would not honour (a status written twice, not JSON, no decision) decides nothing:
        # the draft still waits (it was counted decided whatever the file held)
        parts = ("tool_invocations", "approvals", draft + ".json")
        decision, repeated = _record(ref, parts, stamp)
        status = decision.get("status") if isinstance(decision, dict) else None
        if status not in ("approved", "rejected"):
            pending += 1
            why = repeated.reason if repeated is not None else f"its status is {quoted(status, 40)}, not approved or rejected"
            problems.append(
                LoadProblem(
                    ref.fs.url(ref.file(*parts)),
                    repeated.line if repeated is not None else None,
                    f"{why}: no decision resume_run accepts, so the draft still waits for one (pending_approvals counts "
                    "it); decide it again with approve_draft or reject_draft",
                )
            )
    return {"drafts": len(where), "pending": pending, "present": True}


def _record(ref: Any, parts: tuple[str, ...], stamp: dict[str, Any]) -> tuple[Any, Any]:
    """A tool record of the run as JSON, each key written twice read as unknown, and what was repeated (``Repeated``);
    ``(None, None)`` when it cannot be read (``tools_df`` reports the record itself). Stamped: an edit in place shows."""
    name = "/".join(parts)
    try:
        got = ref.read(*parts)
        stamp[name] = got[1] if got else None
        return loads_checked(got[0]) if got else (None, None)
    except (BadFile, orjson.JSONDecodeError):
        stamp.setdefault(name, ref.fs.stat(ref.file(*parts)))
        return None, None


def _listing(
    folders: ToolFolders,
    parts: tuple[str, ...],
    stamp: dict[str, Any],
    problems: list[LoadProblem],
    listings: dict[str, list[str]],
    keep: bool = True,
) -> list[str]:
    """A tool folder's names (stamped for the cache, kept in ``listings`` for the manifest check);
    a folder that is not one of the run's is reported and read as empty."""
    ref = folders.ref
    try:
        listing = folders.listdir_stamped(parts, stamp) if keep else folders.listdir(parts)
    except BadFile as exc:
        problems.append(LoadProblem(ref.fs.url(ref.file(*parts)), None, f"{exc.reason}; its tool records are not read"))
        listing = []
    else:
        listings["/".join(parts)] = listing
    return listing


def run_unchanged(ref: RunRef, stamp: dict[str, Any], checks: Checks | None = None) -> bool:
    """Whether every file and folder a cached record was built from still has its stamp (early exit on the first change).

    Every one is looked at, not only the documents a seal rewrites: an edit in place of a sealed
    run's state or final changes neither the folder nor the other files, and must show.
    ``checks``: ``stamp_checks(ref, stamp)`` made once when the record was cached (a warm load of
    10,000 runs makes ~90,000 of them; building the paths each time cost a third as much as the stats).
    """
    if ref.fs.protocol != "file":
        return run_stamp(ref, list(stamp)) == stamp
    if "events.jsonl" in stamp:  # its stat was taken while listing the root (else taken now)
        now = ref.events_stat if ref.events_stat is not None else ref.fs.stat(ref.file("events.jsonl"))
        if now != stamp["events.jsonl"]:
            return False
    return local_unchanged(stamp_checks(ref, stamp) if checks is None else checks)


Checks = tuple[tuple[str, Any], ...]  # (local path, its stamp) for every entry but events.jsonl


def stamp_checks(ref: RunRef, stamp: dict[str, Any]) -> Checks:
    """The local paths ``run_unchanged`` stats, with the stamp each must still have (events.jsonl is checked apart)."""
    base = ref.path + os.sep
    return tuple((ref.path if n == "." else base + n, v) for n, v in stamp.items() if n != "events.jsonl")


def run_stamp(ref: RunRef, names: list[str]) -> dict[str, Any]:
    """Re-stat the files a cached record was built from (same keys as ``read_run``'s stamp)."""
    fs = ref.fs
    out: dict[str, Any] = {}
    for name in names:
        path = ref.path if name == "." else fs.join(ref.path, name)
        if name == "events.jsonl":
            out[name] = ref.stat_events(path)
        else:
            out[name] = dir_stamp(fs, path.rstrip("/"), None) if name.endswith("/") else fs.stat(path)
    return out
