"""``tools_df``: one row per tool draft, from ``tool_invocations/`` records and ``tool.*`` events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

import numpy as np
import orjson
import pandas as pd

from .._jsonkeys import repeated_reason, screened
from .._keywords import keywords_named
from .._safetext import cut_free_text
from ..secrets import redact
from ..secrets.display import environ_hidden
from ..secrets.environ import environ_secrets
from ..secrets.namemarks import marked
from ..secrets.quoted import quoted
from ..secrets.records import shown_value
from ..secrets.revealed import scrubbed
from ..store.layout import PREPARED_DIRS
from ..store.ownership import abandoned
from ..store.seal import vouched_records
from ..store.vocab import TOOL_REQUESTED
from . import _arrays
from .cache import CACHE, MEMO
from .coerce import Report, clean_row, obj
from .columns import TOOL_COLUMNS, Column, check_columns
from .eventblocks import EventColumns, load_events
from .extravalues import extra_series
from .fs import UNREAD, BadFile, dir_stamp, local_unchanged, prefetch_remote, settled
from .gcpause import without_gc
from .learnedtext import learned_hidden
from .loadwarning import warn_of_problems
from .problems import LoadProblem, Problems
from .runlearned import docs_revealed, log_revealed
from .sealsizes import listed_sizes, size_changes
from .shapes import APPROVAL, EXECUTION, PREPARED, check
from .shownids import ids_shown
from .source import RunRef, Source, distinct_runs, episode_filter, named_runs, resolve_source, stray_runs, unmatched_episodes
from .toolcalls import (
    ABANDONED,
    DENIED,
    INVALID,
    LOST,
    REQUESTED,
    UNDECIDED,
    ToolEventsSeen,
    call_status,
    note_tool_event,
    seen_in,
    tool_calls,
    tool_label,
)
from .toolfolders import ToolFolders
from .values import RULES, describe
from .waits import PAUSE_NAMES, PauseSpans, draft_wait, pause_kind

_TOOL = RULES["tool"]

__all__ = ["tools_df", "tool_label", "UNDECIDED", "ABANDONED", "INVALID", "DENIED", "REQUESTED", "LOST"]
_FREE_TEXT = ("approver_id", "decision_reason")  # text a person or a policy wrote: may hold what the environment keeps secret


_FOLDERS = {"prepared": PREPARED_DIRS, "approvals": ("approvals",), "executions": ("executions",)}
_SHAPES = {"prepared": PREPARED, "approvals": APPROVAL, "executions": EXECUTION}


def _folders(kind: str) -> list[tuple[str, ...]]:
    """The folders of one kind of record, as parts under the run (prepared drafts: Noēsis' folder and the python one)."""
    return [("tool_invocations", *sub.split("/")) for sub in _FOLDERS[kind]]


def _record_files(ref: RunRef) -> list[str]:
    """Every tool record of a run (prepared, approvals, executions) and the manifest listing their sealed sizes,
    for one concurrent remote fetch."""
    out = [ref.file("manifest.json")]
    for kind in _FOLDERS:
        for parts in _folders(kind):
            try:
                names = ref.listdir(*parts)
            except BadFile:  # reported when the records are read
                continue
            out += [ref.file(*parts, name) for name in names if name.endswith(".json")]
    return out


def _records(
    ref: RunRef,
    kind: str,
    problems: Problems,
    stamps: dict[str, Any],
    files: dict[str, Any],
    urls: dict[str, str] | None = None,
    record_names: dict[str, str] | None = None,
    folders: ToolFolders | None = None,
    listed: dict[str, None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Records of one kind by draft id (``urls``, when given, gets where each was read; ``record_names``,
    each one's name under the run; ``listed``, the draft of every record listed, read or not).

    ``stamps`` gets the change marker of every folder listed and file read (the run's cache stamp);
    ``files`` the stat of each record read, by its name under the run (what the run's seal may vouch for).
    An unreadable folder or record, or a field of the wrong kind, is reported with its own file.
    ``folders``: the run's ``ToolFolders`` (local runs), which looks at ``tool_invocations/`` once for every kind.
    """
    fs = ref.fs
    found = []
    for parts in _folders(kind):
        folder = ref.file(*parts)
        try:
            names = _listed(ref, parts, folders, stamps)
        except BadFile as exc:
            problems.add(fs.url(folder), f"{exc.reason}; its tool records are not read")
            names = []
        if folders is None:
            stamps[folder] = dir_stamp(fs, folder, names)
        found += [(name, parts) for name in names if name.endswith(".json")]
    out = {}
    for name, parts in sorted(found):
        if listed is not None:
            listed[name[:-5]] = None
        path = ref.file(*parts, name)
        url = fs.url(path)
        try:
            got = ref.read(*parts, name) if folders is None else folders.read(parts, name)
        except BadFile as exc:
            stamps[path] = fs.stat(path)
            problems.add(url, f"{exc.reason}; this tool record is not read")
            continue
        stamps[path] = None if got is None else got[1]
        if got is None:
            continue
        record_name = "/".join((*parts, name))
        files[record_name] = got[1]
        try:
            doc, repeated = screened(got[0], orjson.loads(got[0]))
        except orjson.JSONDecodeError as exc:
            problems.add(url, f"invalid JSON ({exc}); this tool record is not read")
            continue
        if repeated:  # a status or decision written twice: readers disagree on which counts
            problems.add(url, repeated_reason(repeated))
        if type(doc) is not dict:
            problems.add(url, f"{describe(doc)}, not an object; this tool record is not read")
            continue
        doc = check(doc, _SHAPES[kind], partial(problems.add, url))
        draft = name[:-5]  # every record is named after its draft: one naming another is not taken as either
        if doc.get("draft_id") not in (None, draft):
            problems.add(
                url,
                f"holds draft {quoted(doc.get('draft_id'))}, not {quoted(draft)} as its name says; this tool record "
                f"is not read (renamed by hand? move it back to {doc.get('draft_id')}.json; else restore {name} from a backup "
                "of the run, keeping this copy out of the run folder)",
            )
            continue
        out[draft] = doc
        if urls is not None:
            urls[draft] = url
        if record_names is not None:
            record_names[draft] = record_name
    return out


def _listed(ref: RunRef, parts: tuple[str, ...], folders: ToolFolders | None, stamps: dict[str, Any]) -> list[str]:
    """A tool folder's names. With ``folders`` (a local run), its stamp goes into ``stamps`` under its path, taken
    before it is listed (a record written in between shows at the next load); an absent folder is stamped by
    ``tool_invocations/`` (its appearing changes that folder), with no ``stat`` of its own."""
    if folders is None:
        return ref.listdir(*parts)
    marks: dict[str, object] = {}
    try:
        return folders.listdir_stamped(parts, marks)
    finally:  # stamped also when the listing fails: the next load looks again
        for key, value in marks.items():
            stamps.setdefault(ref.file(*key.rstrip("/").split("/")), value)


def _text(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if type(value) is str else None


# (by draft, by request id without a draft, what the events say of the run's tool calls: ``toolcalls``)
_Facts = tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], ToolEventsSeen]


def _event_facts(names: np.ndarray, stamps: list[Any], payloads: np.ndarray) -> _Facts:
    """Per draft: timestamps and codes seen in its ``tool.*`` events (request ids mapped to drafts); and per request
    id no event gave a draft: the same for that request (refused before its draft, or cut off before it).

    Only values of the right kind are taken (events_df reports the others with their line).
    """
    by_request: dict[str, dict[str, Any]] = {}
    drafts: dict[str, dict[str, Any]] = {}
    for name, ts, payload in zip(names, stamps, payloads):
        if type(payload) is not dict:
            continue
        request, draft = _text(payload, "request_id"), _text(payload, "draft_id")
        facts = drafts.setdefault(draft, {"request_id": request}) if draft else by_request.setdefault(str(request), {})
        if draft and request is not None and request in by_request:
            for key, value in by_request.pop(request).items():
                facts.setdefault(key, value)
        note_tool_event(facts, name, ts, payload)
        if name == TOOL_REQUESTED:
            tool = payload.get("tool")
            facts["tool"] = tool if _TOOL.ok(tool) else None
    return drafts, by_request, seen_in(zip(names, payloads))


def _checked_row(
    ref: RunRef,
    source: str,
    draft_id: str | None,
    docs: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],  # prepared, approval, execution
    facts: dict[str, Any],
    problems: Problems,
    url: str | None = None,
    ended: bool = False,
) -> dict[str, Any]:
    """``_row`` with malformed record fields read as unknown and reported against the draft's prepared record (a
    request without a draft: ``draft_id`` None, reported against ``url``, its run's log)."""
    fs = ref.fs
    url = url or fs.url(fs.join(ref.path, "tool_invocations", "prepared", f"{draft_id}.json"))

    def report(reason: str) -> None:
        problems.add(url, reason)

    try:
        return clean_row(_row(ref.name, source, draft_id, *docs, facts, report, ended), TOOL_COLUMNS, report)
    except (AttributeError, TypeError, ValueError) as exc:  # a shape nobody foresaw: keep the draft, say why it is bare
        report(f"could not read the draft's records ({type(exc).__name__}: {exc})")
        return {**dict.fromkeys(TOOL_COLUMNS), "episode_id": ref.name, "source": source, "draft_id": draft_id}


def _row(
    episode_id: str,
    source: str,
    draft_id: str | None,
    prepared: dict[str, Any],
    approval: dict[str, Any],
    execution: dict[str, Any],
    facts: dict[str, Any],
    report: Report,
    ended: bool = False,
) -> dict[str, Any]:
    """One draft's columns; ``ended``: its run's seal began (``SealState.ended``), so a draft still waiting never will be."""
    gov = obj(prepared, "governance", report)
    decided = _decision_time(approval.get("decided_at"), facts.get("decided_at"), report)
    status = call_status(draft_id, prepared, approval, execution, facts, ended)
    _decision_agrees(approval.get("status"), facts, execution.get("status") or facts.get("exec_status"), report)
    waited_from = facts.get("pending_at") if facts.get("pending_at") is not None else facts.get("requested_at")
    executed, finished = facts.get("executed_at"), facts.get("finished_at")
    duration = execution.get("duration_ms")
    if duration is None and executed is not None and finished is not None:
        duration = (finished - executed).total_seconds() * 1000.0
    return {
        "episode_id": episode_id,
        "source": source,
        "draft_id": draft_id,
        "request_id": prepared.get("request_id") or facts.get("request_id"),
        "tool": tool_label(prepared.get("tool")) or tool_label(facts.get("tool")),
        "protocol": prepared.get("protocol") or facts.get("protocol"),
        "effect_kind": gov.get("effect_kind"),
        "risk_tier": gov.get("risk_tier"),
        "requires_approval": gov.get("requires_approval", True if facts.get("pending_at") is not None else None),
        "status": status,
        "requested_at": facts.get("requested_at"),
        "decided_at": decided,
        # the run's pause for a person that held the draft (waits.draft_wait: a tool step's "(waited …)" too)
        "wait_s": draft_wait(
            _seconds(facts.get("pending_at") if status == UNDECIDED else waited_from),
            _seconds(decided),
            facts.get("pauses", ()),
            approval.get("approver_id"),
            undecided=status == UNDECIDED,
        ),
        "approver_id": approval.get("approver_id"),
        "decision_reason": approval.get("reason") or facts.get("reason"),
        "executed_at": executed,
        "duration_ms": duration,
        "reason_code": execution.get("reason_code")
        or facts.get("refusal_code")
        or facts.get("exec_code")
        or approval.get("reason_code")
        or facts.get("decision_code")
        or (facts.get("pending_code") if status in ("pending", UNDECIDED) else None),
    }


def _decision_time(given: Any, logged: Any, report: Report) -> Any:
    """When the person decided: the approval record's ``decided_at`` (written as they decided), else the time the run
    logged the decision (``tool.approved``/``tool.rejected``: written at the resume, which may come hours later). A
    record's time after the log's is no decision time (one of the two was edited): reported, the log's kept. A record's
    ``decided_at`` that is no time is reported by the record's check and read as unknown: the log's time is used."""
    at = _arrays.iso_to_utc([given]).iloc[0] if isinstance(given, str) and given else pd.NaT
    if pd.isna(at):
        return logged
    if logged is not None and not pd.isna(logged) and at > logged + _LATE:
        report(
            f"decided_at {quoted(given)} in the approval record is after the run logged the decision at "
            f"{logged.isoformat()}; the log's time is kept"
        )
        return logged
    return at


#: how much later than its log a record's decision time may read (clocks of two processes on one machine)
_LATE = pd.Timedelta(seconds=1)


def _decision_agrees(recorded: Any, facts: dict[str, Any], ran: Any, report: Report) -> None:
    """Report an approval record the run's events contradict: a decision the events say otherwise (one of the two
    was edited, or taken from another run), or a rejection of a tool that ran all the same. Either makes the row's
    status a claim nobody can check, which an audit must not read as an answer."""
    said = facts.get("decision")
    if recorded in ("approved", "rejected") and said in ("approved", "rejected") and recorded != said:
        report(
            f"the approval record says {recorded!r}, but the run's events say the draft was {said}: one of the two "
            "was changed or taken from another run. Restore the record from a copy of the run"
        )
    elif "rejected" in (recorded, said) and (ran is not None or facts.get("executed_at") is not None):
        where = "approval record" if recorded == "rejected" else "run's events"
        report(
            f"the {where} says the draft was rejected, but the tool ran (status {quoted(ran, 40)}): a record was "
            "changed or taken from another run. Restore the run's tool_invocations from a copy"
        )


def _seconds(stamp: Any) -> float | None:
    """Epoch seconds of a loaded timestamp; None for an unknown one."""
    return None if stamp is None or stamp is pd.NaT else float(stamp.timestamp())


class _ToolEvents:
    """The ``tool.*`` events of a load, per run, converted once and only when a run must be read."""

    def __init__(self, loaded: EventColumns):
        self._loaded = loaded
        self._parts: tuple[np.ndarray, np.ndarray, list[Any], np.ndarray] | None = None
        self._pauses: tuple[np.ndarray, np.ndarray, list[Any], np.ndarray] | None = None

    def _rows(self, where: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[Any], np.ndarray]:
        cols = self._loaded.columns
        rows = np.flatnonzero(where)
        ends = np.cumsum(self._loaded.lengths, dtype=np.int64)  # run i's rows are [ends[i-1], ends[i])
        names = np.asarray(cols["event_name"].astype(object))[rows]
        stamps = list(pd.Series(cols["timestamp"]).iloc[rows])
        return np.searchsorted(rows, ends), names, stamps, cols["payload"][rows]

    def facts(self, i: int) -> _Facts:
        if self._parts is None:
            self._parts = self._rows(np.asarray(self._loaded.columns["phase"] == "tool", dtype=bool))
        bounds, names, stamps, payloads = self._parts
        lo, hi = (int(bounds[i - 1]) if i else 0), int(bounds[i])
        if hi <= lo:
            return {}, {}, ToolEventsSeen()
        facts = _event_facts(names[lo:hi], stamps[lo:hi], payloads[lo:hi])
        if any(f.get("pending_at") is not None for f in facts[0].values()):  # drafts that may have waited for a person
            pauses = self._run_pauses(i)
            for found in facts[0].values():
                found["pauses"] = pauses
        return facts

    def _run_pauses(self, i: int) -> list[tuple[float, float]]:
        """Run ``i``'s closed pauses for a person, by ``waits.pause_kind`` (the rule of ``runs_df.waiting_s``): only the
        episode's own lines (phase ``runtime``), by their name (``event_type``, else ``payload.event_name``: the
        ``event_name`` column), a line without one by ``payload.kind``. An adapter's note named ``run.checkpoint`` is
        no pause; a pause line that carries only ``payload.kind`` is one."""
        if self._pauses is None:
            cols = self._loaded.columns
            names = pd.Series(cols["event_name"])
            maybe = names.isin(PAUSE_NAMES) | names.isna() | (names == "")  # the rest are no pause by any rule
            self._pauses = self._rows(np.asarray((cols["phase"] == "runtime") & maybe, dtype=bool))
        bounds, names, stamps, payloads = self._pauses
        spans = PauseSpans()
        for k in range(int(bounds[i - 1]) if i else 0, int(bounds[i])):
            name = names[k]
            spans.follow(
                pause_kind("runtime", name if type(name) is str else None, payloads[k]), _seconds(stamps[k]), payloads[k]
            )
        return spans.spans


_Drafts = tuple[list[dict[str, Any]], list[dict[str, Any]], list[LoadProblem]]  # rows, records, problems


def _run_drafts(
    ref: RunRef,
    source: str,
    sealed: Any,
    facts: _Facts,
    strict: bool,
    stamps: dict[str, Any],
    ended: bool = False,
    manifest: Any = UNREAD,
    listed_by_load: ToolFolders | None = None,
) -> _Drafts:
    """One run's rows and raw records; ``stamps`` gets what they were read from: a row for each tool call by
    ``toolcalls``' rule (as ``runs_df.tool_calls`` counts them), a draft whose record cannot be read too (said why);
    a request no draft came of has its ``draft_id`` unknown (``_request_rows``).

    ``sealed``: the tool records the run's seal vouches for (``provenance.written_as``); a draft's records are
    read as written only when each of them is one of those, unchanged (``vouched_records``), else redacted as
    read: one record another process wrote (an approval decided elsewhere) leaves the others as written.
    ``listed_by_load``: the run's ``ToolFolders`` its events' load listed the folders with (``runlearned``): each
    folder is listed once.
    """
    problems = Problems(strict)
    urls: dict[str, str] = {}
    files: dict[str, Any] = {}
    named_as: list[dict[str, str]] = [{}, {}, {}]
    folders = (listed_by_load or ToolFolders(ref)) if ref.fs.protocol == "file" else None
    listed: dict[str, None] = {}
    prepared = _records(ref, "prepared", problems, stamps, files, urls, named_as[0], folders, listed)
    approvals = _records(ref, "approvals", problems, stamps, files, record_names=named_as[1], folders=folders)
    executions = _records(ref, "executions", problems, stamps, files, record_names=named_as[2], folders=folders)
    if ended:  # a sealed run's records as its manifest lists them: one changed or gone since is reported
        problems.extend_later(_changed_records(ref, files, manifest))  # strict: after the records' own problems
    vouched = vouched_records(sealed, files) if sealed is not None else None
    rows, records = [], []
    by_draft, by_request, seen = facts
    calls = tool_calls(listed, seen)
    revealed: frozenset[str] | None = None
    for draft in calls.drafts:
        p, a, e = prepared.get(draft, {}), _reason_cut(approvals.get(draft, {})), executions.get(draft, {})
        # a read tool's draft is named by no event before its execution starts: its request's events are its own
        found = by_draft.get(draft) or by_request.get(str(p.get("request_id")), {})
        named = draft
        screened = vouched is not None and all(n[draft] in vouched for n in named_as if draft in n)
        # a record noesis_nb did not screen as it wrote it: redacted as read, and its draft id as the events'
        # ``draft_id`` is (an id: token shapes, not randomness; ``draft:<run>:<random request id>``)
        if not screened:
            if revealed is None:  # what the run's other files name a secret, hidden in its records too
                revealed = _revealed(ref, stamps, folders)
            p, a, e = (scrubbed(shown_value(doc), revealed) for doc in (p, a, e))
            named = marked(draft, redact(draft, entropy=False)[0])  # as ``shownids`` names ids: apart
        rows.append(_checked_row(ref, source, named, (p, a, e), found, problems, urls.get(draft), ended))
        records.append({"prepared": p, "approval": a, "execution": e})
    for row in _request_rows(ref, source, [(r, by_request.get(r, {})) for r in calls.requests], problems, ended):
        rows.append(row)
        records.append({"prepared": {}, "approval": {}, "execution": {}})
    problems.settle()
    return rows, records, problems.items


def _revealed(ref: RunRef, stamps: dict[str, Any], folders: ToolFolders | None) -> frozenset[str]:
    """The secrets the run's documents and log hold (``runlearned``), their files' stats kept with its drafts: a file
    naming another since reads the drafts again. ``folders``: the run's, as listed for its rows."""
    values: frozenset[str] = frozenset()
    for stats, found in (docs_revealed(ref, folders), log_revealed(ref)):
        stamps.update({ref.file(name): stat for name, stat in stats.items()})
        values |= found
    return values


def _request_rows(
    ref: RunRef, source: str, found: list[tuple[str, dict[str, Any]]], problems: Problems, ended: bool
) -> list[dict[str, Any]]:
    """A row for each tool call asked for (``tool.requested``) that no draft came of (``found``: its request id and
    the facts of its events): ``invalid`` or ``denied`` when it was refused, else ``requested`` while its run goes
    on, ``lost`` once the run ended or its process is gone."""
    if not found:
        return []
    if not ended and any("refused" not in f for _, f in found) and ref.fs.protocol == "file":
        ended = abandoned(ref.path)  # killed between its request and its draft: none will come
    url = ref.fs.url(ref.file("events.jsonl"))
    return [_checked_row(ref, source, None, ({}, {}, {}), {**f, "request_id": r}, problems, url, ended) for r, f in found]


def _changed_records(ref: RunRef, files: dict[str, Any], manifest: Any = UNREAD) -> list[LoadProblem]:
    """The tool records a sealed run's manifest lists at another size than ``files`` (each record read, by its name
    under the run → its stat) has them, or that are gone (``sealsizes``); none for a run without a manifest.
    The list is read whenever the records are (no time tells a record or the manifest edited since the seal);
    ``manifest``: manifest.json as the run's events' load read it (``UNREAD``: read here)."""
    listed = listed_sizes(ref, manifest)
    if not listed:
        return []
    folders = {"/".join(parts) for kind in _FOLDERS for parts in _folders(kind)}
    stats = {name: files.get(name) for name in listed if name.endswith(".json") and name.rpartition("/")[0] in folders}
    return size_changes(ref, listed, stats)


def _unchanged(ref: RunRef, stamps: dict[str, Any]) -> bool:
    """Whether the folders and records a run's drafts were read from are as they were."""
    fs = ref.fs
    if fs.protocol == "file":
        return local_unchanged(stamps.items())
    folders = {ref.file(*parts) for kind in _FOLDERS for parts in _folders(kind)}
    return all((dir_stamp(fs, p, None) if p in folders else fs.stat(p)) == v for p, v in stamps.items())


def _cached_drafts(
    ref: RunRef,
    i: int,
    source: str,
    sealed: Any,
    folder: Any,
    events: _ToolEvents,
    strict: bool,
    use_cache: bool,
    manifest: Any = UNREAD,
    listed_by_load: ToolFolders | None = None,
) -> _Drafts:
    """A run's drafts from the cache when its events, source, seal and tool records are unchanged; else read.

    ``folder``: the run folder's stamp the events were read under (``eventblocks``): a seal written or removed
    since changes it, and a run whose seal began has no draft waiting any more."""
    key = ("tools", ref.fs.protocol, ref.path)
    head = (ref.stat_events(ref.file("events.jsonl")), source, sealed, folder)
    if use_cache:
        hit = CACHE.get(key, head)
        if hit is not None and _unchanged(ref, hit[0]):
            drafts: _Drafts = hit[1]
            return drafts
    stamps: dict[str, Any] = {}
    # a seal that vouches for tool records was read from final.json, a regular file of the run (``written_as``), under
    # the folder stamp this entry is kept with: the seal began; only without one is ``seal_state`` asked
    ended = sealed is not None or ref.seal().ended
    drafts = _run_drafts(ref, source, sealed, events.facts(i), strict, stamps, ended, manifest, listed_by_load)
    # nothing it was read from changed this very moment; a request waiting for its draft is not kept: its process's
    # end (it is lost then) changes no file
    if use_cache and settled(head[0], folder, stamps) and all(row["status"] != REQUESTED for row in drafts[0]):
        CACHE.put(key, head, (stamps, drafts), rows=len(drafts[0]))
    return drafts


@without_gc
@keywords_named
def tools_df(
    source: Source = None,
    *,
    episodes: str | Iterable[str] | None = None,
    columns: Sequence[Column] | None = None,
    strict: bool = False,
    cache: bool = True,
    progress: bool | None = None,
    storage_options: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per tool call: each draft, and each ``tool.requested`` that never became one. ``TOOL_COLUMNS``, then
    extra ``columns`` whose paths start at ``prepared.…``, ``approval.…`` or ``execution.…`` (the three
    tool_invocations records; a call without a draft has none).

    Status is the furthest state reached: ``succeeded``/``failed``/``replayed`` (executed),
    ``rejected``, ``abandoned`` (the adapter gave its call up while it waited for approval: never run, its record
    says rejected by ``adapter``), ``approved`` (not executed yet), ``pending`` (waiting for a human), ``undecided``
    (it was waiting when its run ended: sealed without a decision, it can no longer be decided, and
    ``runs_df`` counts it in no ``pending_approvals``), else the prepared record's own status. A call without a
    draft (``draft_id`` <NA>, ``reason_code`` from its refusal): ``invalid`` (``tool.rejected.invalid``: a payload
    field or a protocol refused), ``denied`` (``tool.authn.failed``, ``tool.authz.denied``), ``requested`` (its
    draft being made), ``lost`` (its run ended, or its process died, before the draft). ``runs_df.tool_calls``
    counts the same rows. ``wait_s`` is how long the run was paused for a person on the draft (``waits.draft_wait``:
    its own pause, so a run's ``wait_s`` add up to its ``waiting_s``; <NA> for a policy's decision), as its view's tool
    step says ``(waited …)``.
    """
    extras = check_columns(columns, TOOL_COLUMNS, "tools_df", ("prepared", "approval", "execution"))
    wanted = episode_filter(episodes)
    refs = resolve_source(source, storage_options=storage_options, episodes=wanted)
    problems = Problems(strict)
    problems.extend(unmatched_episodes(wanted, refs, source))
    problems.extend(stray_runs(source, wanted, refs))
    refs = distinct_runs(named_runs(refs, problems), problems)
    manifests: list[Any] = []  # each run's manifest.json as its events' load read it: not read again for its records
    listed: list[ToolFolders | None] = []  # each run's tool folders, as its events' load listed them: not listed again
    loaded = load_events(refs, problems, use_cache=cache, show_progress=progress, manifests=manifests, tool_folders=listed)
    prefetch_remote(refs, _record_files)
    events = _ToolEvents(loaded)
    runs = [
        _cached_drafts(
            ref,
            i,
            loaded.run_sources[i],
            loaded.sealed_tools[i],
            loaded.folders[i],
            events,
            strict,
            cache,
            manifests[i],
            listed[i],
        )
        for i, ref in enumerate(refs)
    ]
    problems.hide(loaded.revealed)  # what any run of the load reveals: said by none of its problems
    for _, _, run_problems in runs:
        problems.extend(run_problems)
    # the frame hides the environment's secrets as they are now (``environ_hidden``, as runs_df): a new set, a new frame
    extras_key = tuple((c.name, c.path, id(c.fn), c.type) for c in extras)
    memo_key = ("tools", extras_key, tuple(r.path for r in refs), environ_secrets())
    hit = MEMO.get(memo_key, tuple(runs)) if cache else None
    if hit is None:
        rows = [row for run in runs for row in run[0]]
        records = [record for run in runs for record in run[1]]
        data = {name: [r[name] for r in rows] for name in TOOL_COLUMNS}
        for name in _FREE_TEXT:
            data[name] = environ_hidden(data[name]) or data[name]
        df = pd.DataFrame({name: _arrays.series_of(kind, data[name]) for name, (kind, _) in TOOL_COLUMNS.items()})
        odd: list[LoadProblem] = []
        places = [ref.fs.url(ref.file("tool_invocations")) for ref, run in zip(refs, runs) for _ in run[1]]
        for column in extras:
            values = [column.value(r) for r in records]
            df[column.name], found = extra_series(column, environ_hidden(values) or values, places)
            odd.extend(found)
        hit = (df, odd)
        if cache:
            MEMO.put(memo_key, tuple(runs), hit)
    df, odd = hit
    problems.extend(odd)
    df = _arrays.detached(df)
    df.attrs["errors"] = problems.as_records()
    warn_of_problems("tools_df", df.attrs["errors"], refs)
    return ids_shown(learned_hidden(df, loaded.revealed), revealed=loaded.revealed_ids)


def _reason_cut(approval: dict[str, Any]) -> dict[str, Any]:
    """A decision record with its reason at most ``MAX_FREE_TEXT`` characters (``cut_free_text``), as the run's
    other readers take it: a 10 MB reason any program wrote was screened and shown whole."""
    reason = approval.get("reason")
    return approval if not isinstance(reason, str) else {**approval, "reason": cut_free_text(reason)}
