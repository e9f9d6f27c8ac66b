"""``runs_df``: one row per episode (run directory)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._keywords import keywords_named
from ..cost import Pricer
from ..errors import InvalidOptionError
from ..secrets import quoted, shown, shown_cut
from ..secrets.display import environ_hidden
from ..secrets.environ import environ_secrets
from ..secrets.records import shown_value
from ..secrets.revealed import revealed, scrubbed
from ..store.artifacts import verify_manifest
from ..store.facts import run_facts
from ..store.layout import PREPARED_DIRS
from ..store.ownership import abandoned
from ..store.shownnames import shown_ids
from ..store.status import status_now
from ..store.vocab import OUTCOME_VALUES, TERMINAL_STATUSES
from . import _arrays
from .cache import CACHE, MEMO
from .coerce import Report, clean_row, obj
from .columns import RUN_COLUMNS, TOKEN_COLUMNS, Column, check_columns
from .extravalues import extra_series
from .fs import BadFile, Stat, dir_stamp, prefetch_remote, settled
from .gcpause import gc_paused, without_gc
from .keptframe import Keeper, keeper_for
from .learnedtext import learned_hidden
from .loadwarning import warn_of_problems
from .problems import LoadProblem, Problems
from .progress import progress as _progress
from .provenance import sealed_here
from .runindex import RunIndex, index_for
from .runlearned import docs_revealed, log_revealed, tools_revealed
from .runrecord import RunRecord, calls_from_events, read_run, run_unchanged, stamp_checks, status_from_log
from .runusage import PriceMemo, run_usage, sums_hide_priced_parts
from .sealsizes import REPEATED, UNLISTED, changed_problem, content_changed, content_problem, is_seal_change, unlisted
from .shownids import ids_shown
from .source import RunRef, Source, distinct_runs, episode_filter, named_runs, resolve_source, stray_runs, unmatched_episodes
from .summaryusage import usage_disagreement
from .toolfolders import ToolFolders
from .values import safe_name

__all__ = ["runs_df"]

_ROW_COLUMNS = {k: v for k, v in RUN_COLUMNS.items() if k not in ("model_calls", "cost_usd", "priced", *TOKEN_COLUMNS)}


@without_gc
@keywords_named
def runs_df(
    source: Source = None,
    *,
    strict: bool = False,
    prices: Any = None,
    columns: Sequence[Column] | None = None,
    episodes: str | Iterable[str] | None = None,
    verify: Literal["quick", "size", "hash"] = "quick",
    cache: bool = True,
    progress: bool | None = None,
    storage_options: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per run: ``RUN_COLUMNS``, then ``tags_<key>`` for each tag, then extra ``columns``.

    Extra column paths start at the run record: ``summary.…``, ``state.…``, ``final.…``,
    ``manifest.…`` (e.g. ``Column("plan_adherence", path="summary.metrics.plan_adherence", type="float")``).
    ``cost_usd`` is priced now (``prices`` overrides genai-prices). ``manifest_ok`` checks the
    files ``manifest.json`` lists: ``verify="quick"`` (default) that each exists and each top-level
    file and tool record (as ``tools_df`` compares them) has its listed size, and its listed sha256
    where it was modified after manifest.json (``sealsizes``: a same-size edit), ``"size"`` every size
    (and so), ``"hash"`` re-hashes them all (local runs only).
    A run's ``cost_usd`` is the sum of its ``usage_df`` rows' (NaN when any is unpriced).
    ``status`` is ``lost`` for a run whose files say running but whose process is gone (killed, or stopped
    before its seal; ``resume_run`` settles it), asked of the run's lock at every load.
    Problems (unreadable documents, corrupt lines, malformed fields read as unknown) are in
    ``df.attrs["errors"]`` (each field by its path in its own file; files changed since the manifest
    one report each); ``strict=True`` raises on the first, naming the file.
    With ``cache=True`` a later call reads again only the runs where a file or folder the row came
    from has another size or modification time (one ``stat`` each: an edit in place shows too), and a
    load of one folder in a new process takes unchanged runs' rows from the runs index the last load of
    it left in this user's cache folder (``frames.runindex``), and a new process's first load of a whole
    folder (no ``episodes=``, no ``columns=``) whose runs are all unchanged is served the frame the last
    such load kept (``frames.keptframe``); ``clear_cache()`` deletes both.
    """
    if verify not in ("quick", "size", "hash"):
        raise InvalidOptionError(
            f"verify={quoted(verify)}: use 'quick' (listed files exist, top-level sizes match), 'size' (every "
            "listed size) or 'hash' (re-hash every listed file)"
        )
    extras = check_columns(columns, RUN_COLUMNS, "runs_df", ("summary", "state", "final", "manifest", "status", "run_dir"))
    wanted = episode_filter(episodes)
    refs = resolve_source(source, storage_options=storage_options, episodes=wanted)
    problems = Problems(strict)
    problems.extend(unmatched_episodes(wanted, refs, source))
    problems.extend(stray_runs(source, wanted, refs))
    refs = distinct_runs(named_runs(refs, problems), problems)
    pricer = Pricer.from_spec(prices)
    prefetch_remote(refs, _run_files)
    # the runs index (by root: those this load reads and adds to) serves loads of a folder of runs; not a list
    # (Dask's partitions, loaded at once) nor a single run (one run watched would rewrite its whole root's file)
    one_folder = (source is None or isinstance(source, (str, os.PathLike))) and len(refs) > 1
    indexes: dict[str, RunIndex | None] | None = {} if cache and one_folder else None
    # the whole folder (no subset, no columns by path): the frame the last such load built may be kept for it
    whole = indexes is not None and wanted is None and not extras
    keeper = _keeper(refs, verify, pricer) if whole else None
    served = keeper.serve(refs) if keeper is not None else None
    if served is not None:
        served.attrs = {**served.attrs, "errors": problems.as_records()}
        warn_of_problems("runs_df", served.attrs["errors"], refs)
        return ids_shown(learned_hidden(_with_lost(served, refs)), minted=keeper is not None and keeper.minted)
    loaded = False
    try:
        df, pool = _load(refs, problems, cache, verify, indexes, extras, pricer, progress, keeper)
        loaded = True
    finally:  # a load that raised (strict=True) writes nothing, and keeps no parsed index either
        # the folder's own index (that of nested folders' common parent) holds the kept frame: ended as well
        ending = [*(indexes or {}).values(), keeper.index if keeper is not None else None]
        for index in {id(i): i for i in ending if i is not None}.values():
            index.end(save=loaded, whole=whole)
    df.attrs = {**df.attrs, "errors": problems.as_records()}
    warn_of_problems("runs_df", df.attrs["errors"], refs)
    return ids_shown(learned_hidden(_with_lost(df, refs)), revealed=pool)


def _with_lost(df: pd.DataFrame, refs: list[RunRef]) -> pd.DataFrame:
    """``status`` ``lost`` for the local runs whose writer's process is gone before it sealed them: those whose
    files say running, and those whose files say they ended (``terminate`` written) but that have no manifest, a
    seal cut by kill -9 (``store.status.status_now``, the rule ``show`` and ``list_runs`` use). Asked at every
    load, after the caches: a lock let go changes no file, so no stamp-keyed row could know it."""
    column = df["status"]
    unsealed = ~df["sealed"].to_numpy(dtype=bool, na_value=True) if "sealed" in df else np.zeros(len(df), dtype=bool)
    no_running = isinstance(column.dtype, pd.CategoricalDtype) and "running" not in column.cat.categories
    if no_running and not unsealed.any():
        return df  # every run sealed and none says it is running (most loads): nothing to ask
    status = column.to_numpy(dtype=object)
    ended = unsealed & np.isin(status, list(TERMINAL_STATUSES))
    asked = np.flatnonzero((status == "running") | ended)
    if not len(asked):
        return df
    paths = {ref.url: ref.path for ref in refs if ref.fs.protocol == "file"}
    run_dirs = df["run_dir"].to_numpy()
    lost = [
        i
        for i in asked
        if run_dirs[i] in paths
        and (abandoned(paths[run_dirs[i]]) if status[i] == "running" else status_now(paths[run_dirs[i]], status[i]) == "lost")
    ]
    if lost:
        status = status.copy()
        status[lost] = "lost"
        df["status"] = _arrays.series_of(RUN_COLUMNS["status"][0], list(status), df.index)
    return df


def _keeper(refs: list[RunRef], verify: str, pricer: Pricer) -> Keeper | None:
    """The keeper of a whole-folder load of local runs (its frame is kept beside the index of the runs' folder)."""
    if any(ref.fs.protocol != "file" for ref in refs):
        return None
    roots = {os.path.dirname(ref.path) for ref in refs}
    folder = next(iter(roots)) if len(roots) == 1 else os.path.commonpath(list(roots))
    return keeper_for(folder, roots, verify, pricer)


def _load(
    refs: list[RunRef],
    problems: Problems,
    cache: bool,
    verify: str,
    indexes: dict[str, RunIndex | None] | None,
    extras: tuple[Column, ...],
    pricer: Pricer,
    progress: bool | None,
    keeper: Keeper | None = None,
) -> tuple[pd.DataFrame, frozenset[str]]:
    """The frame of ``refs``' records (``runs_df`` without its checks of the options), and what its runs reveal as
    secrets (hidden in their ids by ``ids_shown``); a frame built when the load found no problem is given to
    ``keeper`` (``keptframe``) for the next process, unless a run's id holds what a run reveals (the kept frame is
    served without the runs' files read, so without that pool)."""
    found = len(problems.items)
    with gc_paused():
        records = [_record(ref, problems, cache, verify, indexes, not extras) for ref in _progress(refs, progress, "runs")]
        memo = PriceMemo(pricer)
        for i, record in enumerate(records):
            if record["calls_from"] == "summary" and sums_hide_priced_parts(record, memo):
                if record.get("indexed"):  # the calls are needed, and an indexed run kept only the summary's sums
                    record = records[i] = _record(refs[i], problems, cache, verify, None, False)
                    if record["calls_from"] != "summary" or not sums_hide_priced_parts(record, memo):
                        continue
                problems.extend(calls_from_events(record))
        # the frame hides the environment's secrets as they are now (``environ_hidden``): a new set, a new frame
        key = (tuple((c.name, c.path, id(c.fn), c.type) for c in extras), memo.version, environ_secrets())
        hit = MEMO.get(("runs", key), tuple(records)) if cache else None
        pool = _revealed_by_any(records)
        problems.hide(pool)
        if hit is None:
            df, odd = _frame(records, extras, pricer)
            if len(records) > 1:  # a value one run reveals, hidden in every row (its own row hides it already)
                df = learned_hidden(df, pool)
            hit = df, odd
            if cache:
                MEMO.put(("runs", key), tuple(records), hit)
            if keeper is not None and len(problems.items) == found and not odd and not _names_hold(records, pool):
                keeper.keep(df, records)
        df, odd = hit
        problems.extend(odd)
        return df.copy(deep=False), pool


def _names_hold(records: list[RunRecord], pool: frozenset[str]) -> bool:
    """Whether a run's folder name is shown otherwise for ``pool`` (what the load's runs reveal as secrets)."""
    if not pool:
        return False
    names = [record["ref"].name for record in records]
    return shown_ids(names, pool) != shown_ids(names)


_RUN_FILES = ("summary.json", "final.json", "manifest.json", "state.json", "events.jsonl")


def _run_files(ref: RunRef) -> list[str]:
    return [ref.fs.join(ref.path, name) for name in _RUN_FILES]


def _record(
    ref: RunRef,
    problems: Problems,
    use_cache: bool,
    verify: str,
    indexes: dict[str, RunIndex | None] | None,
    from_index: bool,
) -> RunRecord:
    """The run's record: from the in-memory cache, else from the index another process left (``from_index``:
    no column asks for the documents), else read in full (then kept in both, for the next load)."""
    key = ("run", ref.fs.protocol, ref.path, verify)
    if use_cache:
        hit = CACHE.get(key, "known")
        if hit is not None:
            record: RunRecord  # the cache holds several kinds of value; this key's is what the put below stores
            stamp, record, run_problems, checks = hit
            # a record from the index has no documents: a load that asks for them reads the run in full
            if run_unchanged(ref, stamp, checks) and (from_index or not record.get("indexed")):
                if run_problems:
                    problems.hide(record.get("revealed") or frozenset())
                    problems.extend(run_problems)
                return record
    index = None
    if indexes is not None and ref.fs.protocol == "file":
        root = os.path.dirname(ref.path)
        index = indexes[root] if root in indexes else indexes.setdefault(root, index_for(root))
    if index is not None and from_index:
        indexed = index.get(ref, verify)
        if indexed is not None:
            record, checks = indexed
            CACHE.put(key, "known", (record["stamp"], record, [], checks))
            return record
    folders = ToolFolders(ref)
    record, stamp, run_problems = read_run(ref, strict=problems.strict, folders=folders)
    before = len(run_problems)
    ok = _manifest_ok(folders, record["manifest"], verify, record["known_sizes"], run_problems, stamp, record["listings"])
    # files gone or changed since the seal (``sealsizes``); one added since changes no count read from the others
    changed = {p.path for p in run_problems[before:] if p.reason != UNLISTED}
    # one cause, one problem: a log or summary changed since the seal is not also reported as their disagreement
    sealed_docs = {ref.fs.url(ref.file("events.jsonl")), ref.fs.url(ref.file("summary.json"))}
    record["usage_unchecked"] = any(is_seal_change(p) and p.path in sealed_docs for p in run_problems[before:])
    if record["calls_from"] == "events" and (disagreement := usage_disagreement(record)) is not None:
        run_problems.append(disagreement)
    # its log gone or changed (emptied, cut at a line): its model calls, tokens and cost are unknown, not 0
    record["calls_unknown"] = ref.fs.url(ref.file("events.jsonl")) in changed  # ``run_usage``
    if ok is None and record["seal"].manifest:  # sealed, but its manifest.json cannot be read (reported): vouches for nothing
        ok = False
    record["manifest_ok"] = ok and record["manifest_clean"] if ok is not None else None
    summed = record["calls_from"] == "summary"
    if summed and "events.jsonl" not in stamp:  # the listing's stat (free): the seal vouches for the log too
        stamp["events.jsonl"] = ref.stat_events(ref.file("events.jsonl"))
    # noesis_nb's sealed, unedited run (its own or an integration's) was screened as written (``provenance``)
    record["written_here"] = bool(record["manifest_ok"]) and sealed_here(
        record["final"], ref.name, stamp.get("events.jsonl"), stamp.get("summary.json")
    )
    if summed and not record["written_here"]:
        # the log is the record of the calls; the summary's per-model sums only stand in for it in a run sealed
        # here, unedited since: those of a summary edited by hand (or another's) could say other totals than
        # ``usage_df`` reads from the same run's events
        run_problems.extend(calls_from_events(record))
    summary_changed = record["summary"] is not None and ref.fs.url(ref.file("summary.json")) in changed
    if summary_changed and (record["summary"] or {}).get("status"):  # its status is not the run's: the log's terminate is
        status_from_log(record, run_problems)
    record["row"] = _checked_row(record, run_problems)
    records_at = ref.fs.url(ref.file("tool_invocations")) + "/"
    if any(path.startswith(records_at) for path in changed):  # a tool record gone or changed: its drafts are not known
        record["row"]["tool_calls"] = record["row"]["pending_approvals"] = None
    elif record["calls_unknown"] and not (
        record["tools"]["present"] and record["row"]["tool_calls"] == record["tools"]["drafts"]
    ):
        record["row"]["tool_calls"] = None  # counted from a log changed since its seal
    if summary_changed:  # not the sealed summary
        record["row"].update(dict.fromkeys(_SUMMARY_FIGURES))
        if record.get("tool_calls_from") == "summary":  # its count of requests is one of its figures
            record["row"]["tool_calls"] = None
    if not record["written_here"]:
        _hide_revealed(record, stamp, folders, use_cache)
        problems.hide(record["revealed"])  # its problems quote none of them (a password read as a duration)
    problems.extend(run_problems)
    if use_cache and settled(stamp):  # stamp: every file read, edited in place or not; none changed this very moment
        checks = stamp_checks(ref, stamp) if ref.fs.protocol == "file" else None
        CACHE.put(key, "known", (stamp, record, run_problems, checks))
        if index is not None:
            index.put(ref, verify, record)
    return record


#: the figures a run's summary gives: unknown when it is no longer the summary the run was sealed with
_SUMMARY_FIGURES = ("success", "act_count", "veto_count", "score", "score_is_bool")


def _checked_row(record: RunRecord, run_problems: list[LoadProblem]) -> dict[str, Any]:
    """``_row`` with malformed fields read as unknown and listed in ``run_problems`` (cached with the run)."""
    ref: RunRef = record["ref"]

    def report(name: str) -> Report:
        url = ref.fs.url(ref.fs.join(ref.path, name))
        return lambda reason: run_problems.append(LoadProblem(url, None, f"{name}: {reason}"))

    try:
        return _row(record, report)
    except Exception as exc:  # a shape nobody foresaw: keep the run with its name, say why its fields are missing
        run_problems.append(LoadProblem(ref.url, None, f"could not read the run's fields ({type(exc).__name__}: {exc})"))
        return {
            **dict.fromkeys(_ROW_COLUMNS),
            "episode_id": ref.name,
            "status": record.get("status"),
            "run_dir": ref.url,
            "sealed": record["seal"].sealed,
            "tool_calls": 0,
            "pending_approvals": 0,
            "tags": {},
        }


def _manifest_ok(
    folders: ToolFolders,
    manifest: dict[str, Any] | None,
    verify: str,
    known: dict[str, int],
    problems: list[LoadProblem],
    stamp: dict[str, Any],
    read_folders: dict[str, list[str]],
) -> bool | None:
    """None without a manifest; False when a listed file is missing or has another size (or hash), each one reported.

    ``quick``: every listed file exists (one listing per folder) and every top-level file and tool
    record (one ``stat`` each; ``tools_df`` compares them too, and the frames agree) has its listed size, and one
    modified after manifest.json its listed sha256 (``sealsizes.content_changed``); ``size``: every listed file's
    size (and so); ``hash``: re-hash them (local runs).
    Malformed entries were reported when the manifest was read (``shapes.MANIFEST``) and fail it.
    ``stamp`` gets each folder listed and file looked at, so a cached verdict is redone when one changes;
    folders listed while reading the run (``read_folders``) are not listed again. A name those listings give that
    the manifest does not list (a file added after the seal: ``sealsizes.unlisted``) is reported and fails it.
    """
    if manifest is None:
        return None
    ref = folders.ref
    files = manifest.get("files")
    if not isinstance(files, list):
        return False

    def where(name: str) -> str:
        return ref.fs.url(ref.file(*name.split("/")))

    if verify == "hash" and ref.fs.protocol == "file":
        for entry in files:
            name = entry.get("name") if isinstance(entry, dict) else None
            if isinstance(name, str) and safe_name(name):
                if name not in stamp:
                    stamp[name] = ref.fs.stat(ref.file(*name.split("/")))
                _stamp_folders(ref, name, stamp)
        checked = verify_manifest(Path(ref.path))
        problems.extend(
            LoadProblem(where(name) if safe_name(name) else ref.fs.url(ref.file("manifest.json")), None, reason)
            for name, reason in checked.details
        )
        return checked.ok and all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in files)
    ok = True
    listings: dict[str, set[str]] = {}
    only_here: set[str] = set()  # folders listed for this check alone, each name in them stat'ed (``_drop_covered``)
    for entry in files:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            ok = False  # reported with the manifest's fields
            continue
        size = known.get(name)
        if size is None and verify == "quick" and "/" in name:
            folder, _, base = name.rpartition("/")
            if folder not in listings and folder in read_folders:
                listings[folder] = set(read_folders[folder])  # stamped when it was listed
            if folder not in listings:
                if folder + "/" not in stamp:
                    only_here.add(folder)
                try:
                    listings[folder] = set(folders.listdir_stamped(tuple(folder.split("/")), stamp))
                except BadFile as exc:
                    problems.append(
                        LoadProblem(where(folder), None, f"{exc.reason}; the files manifest.json lists in it are not checked")
                    )
                    listings[folder] = set()
            if base not in listings[folder]:
                only_here.discard(folder)  # its listing alone shows the file appearing
                problems.append(LoadProblem(where(name), None, "listed in manifest.json but missing"))
                ok = False
                continue
            if folder not in _RECORD_FOLDERS or not base.endswith(".json"):
                only_here.discard(folder)
                continue
            # a tool record: its size too, as tools_df compares it (one stat; stamped, so an edit in place shows)
            size = _record_size(ref, name, stamp)
            if size is None:
                problems.append(LoadProblem(where(name), None, "listed in manifest.json but missing"))
                ok = False
                continue
        listed = entry.get("size_bytes")
        if size is None:
            stat: Stat | None = ref.events_stat if name == "events.jsonl" else None  # taken while listing the root
            if stat is None or (listed is not None and stat[0] != listed):
                # the listing's stat may predate the seal (a live run sealed since): only the file now can differ
                stat = ref.fs.stat(ref.file(*name.split("/")))
            stamp.setdefault(name, stat)
            if stat is None:
                problems.append(LoadProblem(where(name), None, "listed in manifest.json but missing"))
                ok = False
                continue
            size = stat[0]
        if listed is None and "size_bytes" in entry:  # written twice (read as unknown): vouches for no size
            listed = REPEATED
        if listed is not None and size != listed:
            problems.append(changed_problem(where(name), name, size, listed))
            ok = False
        elif content_changed(ref, name, stamp.get(name), entry.get("sha256"), stamp.get("manifest.json")):
            # its size kept, but modified after the manifest: hashed (once per stamp), its bytes are not those sealed
            problems.append(content_problem(where(name), name, size))
            ok = False
    for name in unlisted(files, {**read_folders, **listings}):
        problems.append(LoadProblem(where(name), None, UNLISTED))
        only_here.discard(name.rpartition("/")[0])  # its listing shows a file appearing: the folder's stamp stays
        ok = False
    _drop_covered(only_here, stamp)
    return ok


def _drop_covered(folders: set[str], stamp: dict[str, Any]) -> None:
    """Unstamp each folder listed only to find the manifest's records in it, every one of them stat'ed: their own stamps
    show an edit, a removal or a swap by rename, and the folder's listing feeds no column (a file added to a sealed
    run's ``executions/`` changes no row), so its ``stat`` on every later load told nothing they do not. The folder
    itself replaced (by a link to a copy, or to the same files moved out of the run: the records' stats follow it
    unchanged) changes the folder holding it: its stamp must be there, else the folder's own stays."""
    for folder in folders:
        parent = folder.rpartition("/")[0]
        if (parent + "/" if parent else ".") in stamp:
            stamp.pop(folder + "/", None)


#: the folders of a run's tool records, whose sizes even a quick check compares with the seal (``tools_df`` does)
_RECORD_FOLDERS = frozenset(f"tool_invocations/{sub}" for sub in (*PREPARED_DIRS, "approvals", "executions"))


def _record_size(ref: RunRef, name: str, stamp: dict[str, Any]) -> int | None:
    """The size of the tool record ``name`` now (None: gone), its stat stamped."""
    stat = stamp.get(name)
    if stat is None:
        stat = stamp[name] = ref.fs.stat(ref.file(*name.split("/")))
    return None if stat is None else stat[0]


def _stamp_folders(ref: RunRef, name: str, stamp: dict[str, Any]) -> None:
    """Stamp every folder holding ``name`` or one of its folders (the run's own, ``"."``, first).

    Hashing refuses a file reached through a symlink, but ``stat`` follows one: a file or folder
    swapped for a link to an identical copy keeps its stat. The swap changes the folder it was in.
    """
    if "." not in stamp:
        stamp["."] = ref.fs.stat(ref.path)
    folders = name.split("/")[:-1]
    for depth in range(1, len(folders) + 1):
        key = "/".join(folders[:depth]) + "/"
        if key not in stamp:
            stamp[key] = dir_stamp(ref.fs, ref.file(*folders[:depth]), None)


def _get(doc: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(key)
    return doc


def _short(text: Any) -> str:
    return shown_cut(str(text), 80)


# the columns a run's own files fill with free text: a run noesis_nb did not write (Noēsis's, or one copied
# in), or one edited after it was sealed, was never screened, so its text is redacted here, once per run read
# (the row is cached with the run)
_FREE_TEXT = ("task", "using", "outcome", "governance_mode", "batch_id", "batch_adapter")


def _shown_text(row: dict[str, Any]) -> None:
    for name in _FREE_TEXT:
        if isinstance(row[name], str):
            row[name] = shown(row[name])
    tags = row["tags"]
    if type(tags) is dict and tags:
        # screened whole, as an event's payload is: a value is judged with its name (``{"password": …}``)
        row["tags"] = {shown(k): v for k, v in shown_value(tags).items()}


def _revealed_by_any(records: list[RunRecord]) -> frozenset[str]:
    """What the load's runs not screened as written reveal as secrets (``_hide_revealed``), pooled: a password run A
    names is hidden where run B echoes it. A record the runs index served (no documents kept) whose run reveals
    something (the index says whether, never what) has its run's files looked at again (``runlearned``)."""
    pool: set[str] = set()
    for record in records:
        if record.get("written_here"):
            continue
        values = record.get("revealed")
        if values is None:
            ref = record["ref"]
            values = record["revealed"] = docs_revealed(ref)[1] | log_revealed(ref)[1]
        pool.update(values)
    return frozenset(pool)


def _hide_revealed(record: RunRecord, stamp: dict[str, Any], folders: ToolFolders, use_cache: bool) -> None:
    """Hide in the row of a run not written here the values any of its files reveals as secrets (``runlearned``): a
    password its log names is redacted in its task, flags and tags too. The log's stat joins the run's ``stamp``: a
    log changed since is read again, and the row made again. ``folders``: the run's, as read for its row (each tool
    folder listed once); ``use_cache`` False: their files read again."""
    stats, in_log = log_revealed(record["ref"], use_cache=use_cache)
    # a draft's env naming a password, echoed in the task
    tool_stats, in_tools = tools_revealed(record["ref"], folders, use_cache=use_cache)
    for name, stat in (*stats.items(), *tool_stats.items()):
        stamp.setdefault(name, stat)
    values = record["revealed"] = revealed((record["summary"], record["state"], record["final"])) | in_log | in_tools
    if values:
        row = record["row"]
        for name in (*_FREE_TEXT, "tags"):
            row[name] = scrubbed(row[name], values)


def _success(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value >= 0.5) if isinstance(value, float) and 0 < value < 1 else bool(value)
    return None


def _row(record: RunRecord, report: Callable[[str], Report]) -> dict[str, Any]:
    """The run's default column values; ``report(file)`` gives the reporter for fields of that file that are malformed."""
    ref: RunRef = record["ref"]
    summary, state, final = record["summary"] or {}, record["state"] or {}, record["final"] or {}
    in_summary, in_state = report("summary.json"), report("state.json")
    start = record["head"] if (record["head"] or {}).get("phase") == "start" else {}
    metrics = obj(summary, "metrics", in_summary)
    status = record["status"]
    facts = run_facts(
        ref.name,
        summary=record["summary"],
        state=record["state"],
        final=record["final"],
        start=start,
        status=status,
        last_timestamp=record["tail_end"],
        report=lambda file, message: report(file)(message),
    )
    actions = obj(state, "outcomes", in_state).get("actions")
    tools = record["tools"]
    tool_calls = record["tool_calls"]  # its drafts and each request no draft came of, as tools_df's rows (or None)
    tags = summary.get("tags")
    if tags is not None and type(tags) is not dict:
        obj(summary, "tags", in_summary)  # reports it
    row = {
        "episode_id": facts.episode_id,
        "source": facts.source,
        "task": facts.task,
        "using": facts.using,
        "status": status,
        "outcome": final.get("outcome") or summary.get("outcome"),
        "success": _success(metrics.get("success")),
        "started_at": facts.started_at,
        "ended_at": facts.ended_at,
        "duration_s": facts.duration_s,
        "waiting_s": record.get("waiting"),
        "governance_mode": facts.governance_mode,
        "act_count": metrics.get("act_count", len(actions) if isinstance(actions, list) else None),
        # a run with no summary yet (paused, running): its log's enforced vetoes, as act_count takes state's actions
        "veto_count": metrics.get("veto_count", record.get("vetoes")),
        "tool_calls": tool_calls,
        "pending_approvals": tools["pending"],
        **_batch(summary, state, metrics),
        # ``seal_state``'s answer, from the seal documents as read: manifest.json (the seal's last file) a regular file;
        # final.json alone is a seal still being written, a link or folder in their place is none (reported)
        "sealed": record["seal"].sealed,
        "manifest_ok": record["manifest_ok"],
        "run_dir": ref.url,
    }
    # values come mostly from the summary (else state.json): a misfit is reported against that file
    clean_row(row, _ROW_COLUMNS, in_summary if record["summary"] is not None else in_state)
    if row["score"] is None:  # a score read as unknown is of no kind
        row["score_is_bool"] = None
    named = row["episode_id"]
    if named is not None and named != ref.name:  # a renamed copy, or a summary taken from another run
        (in_summary if summary.get("episode_id") == named else in_state)(
            f"names episode {_short(named)!r}, but the run's folder is {_short(ref.name)!r}; the row keeps the "
            "folder's name, as events_df, tools_df, usage_df and show() do. Rename the folder or fix the file"
        )
    row["episode_id"] = ref.name
    _outside_vocabulary({"final.json": final, "summary.json": summary}, report)
    row["tags"] = tags if type(tags) is dict else obj(obj(state, "episode"), "tags", in_state)
    if not record.get("written_here"):
        _shown_text(row)
    return row


def _outside_vocabulary(docs: dict[str, dict[str, Any]], report: Callable[[str], Report]) -> None:
    """Report each outcome field holding a value Noēsis never writes (``OUTCOME_VALUES``); the value stays as read."""
    for name, fields in OUTCOME_VALUES.items():
        for field, allowed in fields.items():
            value = docs[name].get(field)
            if type(value) is str and value not in allowed:
                report(name)(f"{field} {quoted(value, 80)} is not one of Noēsis' values ({', '.join(allowed)}); kept as read")


def _as_shown(value: Any, record: RunRecord, column: Column) -> Any:
    """An extra column's value as shown: a path's value judged under the key holding it (``summary.tags.password``
    is screened as ``{"password": value}``, as an event's payload is), a function's alone. The value is taken back
    by position: the screen may redact the key itself (a git SHA, a hash-keyed metric) where the caller named it."""
    if record.get("written_here"):
        return value
    name = next((k for k in reversed(column.path.split(".")) if not k.lstrip("-").isdigit()), None) if column.path else None
    value = shown_value(value) if name is None else next(iter(shown_value({name: value}).values()))
    return scrubbed(value, record.get("revealed") or frozenset())


def _batch(summary: dict[str, Any], state: dict[str, Any], metrics: dict[str, Any]) -> dict[str, Any]:
    """The batch columns: ``x-noesis_nb.batch`` (summary, else state.json) and ``metrics.score`` (a bool as 1.0/0.0)."""
    ext = summary.get("x-noesis_nb") if type(summary.get("x-noesis_nb")) is dict else state.get("x-noesis_nb")
    batch = ext.get("batch") if type(ext) is dict else None
    batch = batch if type(batch) is dict else {}
    score = metrics.get("score")
    return {
        "batch_id": batch.get("batch_id"),
        "task_index": batch.get("task_index"),
        "batch_adapter": batch.get("adapter"),
        "score": float(score) if type(score) is bool else score,
        "score_is_bool": None if score is None else type(score) is bool,
    }


def _frame(records: list[RunRecord], extras: tuple[Column, ...], prices: Pricer) -> tuple[pd.DataFrame, list[LoadProblem]]:
    """The frame, built in one constructor call from one array per column (a setitem per column cost
    most of a small root's load: ~11 ms of 26 at 10 runs), and the odd values of its extra columns."""
    rows = [r["row"] for r in records]
    usage = run_usage(records, prices)
    data: dict[str, Any] = {}
    for name, (kind, _) in RUN_COLUMNS.items():
        if name in ("model_calls", "cost_usd", "priced"):
            data[name] = usage[name].array
        elif name in TOKEN_COLUMNS:  # sums of whole counts, as nullable integers
            data[name] = _arrays.counts(usage[name].to_numpy(dtype=float, na_value=np.nan))
        else:
            values = [row[name] for row in rows]
            if name in _FREE_TEXT:  # (the environment's secrets of this process: a run written here shows them too)
                values = environ_hidden(values) or values
            data[name] = _arrays.series_of(kind, values)
    data["duration_s"] = data["duration_s"].fillna((data["ended_at"] - data["started_at"]).dt.total_seconds())
    odd = _odd_durations(data, records)
    tag_keys = sorted({k for row in rows for k in row["tags"]}, key=str)
    for key in tag_keys:
        values = [row["tags"].get(key) for row in rows]
        data[f"tags_{key}"] = _arrays.series_of("object", environ_hidden(values) or values)
    for column in extras:  # a later one of the same name replaces an earlier, as assigning it did
        data.pop(column.name, None)
        # any part of the run's files: redacted unless noesis_nb screened them as it wrote them
        values = [_as_shown(column.value(_view(r)), r, column) for r in records]
        values = environ_hidden(values) or values
        data[column.name], found = extra_series(column, values, [r["ref"].fs.url(r["ref"].path) for r in records])
        odd.extend(found)
    df = pd.DataFrame(data, index=pd.RangeIndex(len(records)), copy=False)  # every Series has this index already
    df.attrs.update(usage.attrs)
    return df, odd


# a run whose start and end are further apart than this (a year) has a wrong start or end time: a person may leave a
# paused run for weeks, not for a year
_LONGEST_S = 366 * 86400.0


def _odd_durations(data: dict[str, Any], records: list[RunRecord]) -> list[LoadProblem]:
    """Problems of the runs whose duration cannot be: negative (started after its end: read as NA) or over a year
    (a start time far before the log's events: kept, and said). Each names the run and its two times."""
    duration = data["duration_s"].to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        odd_rows = np.flatnonzero((duration < 0) | (duration > _LONGEST_S))
    if not len(odd_rows):
        return []
    out: list[LoadProblem] = []
    negative = duration < 0
    for i in odd_rows:
        record = records[i]
        ref = record["ref"]
        place = ref.fs.url(ref.file("summary.json" if record["summary"] is not None else "state.json"))
        start, end = data["started_at"].iloc[i], data["ended_at"].iloc[i]
        times = f"started_at {_iso(start)}, ended_at {_iso(end)}"
        if negative[i]:
            why = (
                f"run {quoted(ref.name, 60)} ends before it starts ({times}: {duration[i]:,.0f} s); duration_s is read "
                "as unknown. Fix started_at (or duration_sec) in its summary"
            )
        else:
            why = (
                f"run {quoted(ref.name, 60)} lasts {duration[i] / 86400:,.0f} days ({times}), far longer than a run "
                "runs: its start time is likely wrong (kept as read). Fix started_at (or duration_sec) in its summary"
            )
        out.append(LoadProblem(place, None, why))
    data["duration_s"] = data["duration_s"].mask(pd.Series(negative, index=data["duration_s"].index))
    return out


def _iso(stamp: Any) -> str:
    return "unknown" if pd.isna(stamp) else stamp.isoformat()


def _view(record: RunRecord) -> dict[str, Any]:
    return {
        "summary": record["summary"],
        "state": record["state"],
        "final": record["final"],
        "manifest": record["manifest"],
        "status": record["status"],
        "run_dir": record["ref"].url,
    }
