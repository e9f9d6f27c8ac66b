"""The secrets a run noesis_nb did not write reveals in its files, for the readers of its other files.

``runs_df`` shows a run's summary and state, ``events_df`` (and the frames made from it) its log: each redacts, in
every field it shows from the run, the values all the run's documents reveal as secrets (``secrets.revealed``),
whichever was read first. Its documents are its summary, state and final.json and every tool record
(``tool_invocations/…/*.json``: a draft's ``env: {"DB_PASSWORD": …}``, a decision's note), so a value a record names
is hidden where an event echoes it. What a reader does not read itself is read here, kept (``_KEPT``) under the stats of the
files read (and of the tool folders, stamped before they were listed: a warm load lists none): a file changed since
(a log naming a password now) is read again, and the rows a reader made from the run hold the same stats in their
own stamps (``stats``), so a warm load never keeps a value in clear.
Only a run noesis_nb did not seal comes here: one it sealed was screened as it was written.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..secrets.revealed import revealed, revealed_in_log
from ..store.layout import PREPARED_DIRS
from .cache import on_clear
from .fs import BadFile, Stat, local_unchanged, settled
from .source import RunRef
from .toolfolders import ToolFolders

__all__ = ["DOCS", "TOOL_RECORD_FOLDERS", "docs_revealed", "log_revealed", "tools_revealed"]

#: a run's documents other than its log (``events.jsonl``) and its tool records
DOCS = ("summary.json", "state.json", "final.json")
#: the folders of a run's tool records (drafts, decisions, results), each record a document that can reveal a value
TOOL_RECORD_FOLDERS = tuple(("tool_invocations", *sub.split("/")) for sub in (*PREPARED_DIRS, "approvals", "executions"))
#: (run, files) -> (their stats, values); (run, the tool folders) -> ((path, stamp) of each folder and record, stats, values)
_KEPT: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_KEPT_MAX = 8192
on_clear(_KEPT.clear)  # ``clear_cache``: the next load reads every file again


def docs_revealed(
    ref: RunRef, folders: ToolFolders | None = None, *, known: dict[str, Any] | None = None, use_cache: bool = True
) -> tuple[dict[str, Stat | None], frozenset[str]]:
    """(the stats of the run's documents, its tool records' among them, the secret values they hold). A record made,
    removed or edited since changes the stats, so what was redacted with the old ones is made again.

    ``folders``: the run's ``ToolFolders`` of this load (its listings serve the caller's reader too); ``known``: stats
    of documents this load took already (the source read's, the seal's), not taken again to check a kept entry;
    ``use_cache`` False (a load with ``cache=False``): every file read again (and kept, for the next reader)."""
    stats, found = _kept(ref, DOCS, _docs_values, use_cache, known)
    tool_stats, in_tools = tools_revealed(ref, folders, use_cache=use_cache)
    return {**stats, **tool_stats}, found | in_tools


def tools_revealed(
    ref: RunRef, folders: ToolFolders | None = None, *, use_cache: bool = True
) -> tuple[dict[str, Stat | None], frozenset[str]]:
    """(the stats of the run's tool records, by path in the run; the secret values they hold).

    The folders are listed through ``folders`` (one listing a load, shared with the reader that makes rows of them)
    and stamped before; a kept entry whose folders and records still have their stamps is served with no listing."""
    folders = folders or ToolFolders(ref)
    if ref.fs.protocol != "file":  # a remote folder's stamp is its listing: the records' names and stats tell a change
        names = _tool_records(folders)
        return _kept(ref, names, _docs_values, use_cache) if names else ({}, frozenset())
    key = (ref.fs.protocol, ref.path, TOOL_RECORD_FOLDERS)
    hit = _KEPT.get(key) if use_cache else None
    if hit is not None and local_unchanged(hit[0]):  # (path, stamp) of each folder listed and record read
        return hit[1], hit[2]
    marks: dict[str, object] = {}
    stats: dict[str, Stat | None] = {}
    data: list[bytes | None] = []
    for parts in TOOL_RECORD_FOLDERS:
        try:
            listed = folders.listdir_stamped(parts, marks)
        except BadFile:  # reported by ``tools_df``; holds none here
            continue
        for name in sorted(listed):
            if name.endswith(".json"):
                try:
                    got = folders.read(parts, name)
                except BadFile:  # reported by the reader that shows it; none of its text is shown
                    got = None
                stats["/".join((*parts, name))] = None if got is None else got[1]
                data.append(None if got is None else got[0])
    found = _docs_values(data)
    if settled(marks, stats):
        checks = [(ref.file(*mark.rstrip("/").split("/")), stamp) for mark, stamp in marks.items()]
        checks += [(ref.file(*name.split("/")), stat) for name, stat in stats.items()]
        _keep(key, (tuple(checks), stats, found))
    return stats, found


def _tool_records(folders: ToolFolders) -> tuple[str, ...]:
    """The run's tool records (``TOOL_RECORD_FOLDERS``' ``*.json``), by path in the run; a folder that cannot be
    listed is reported by ``tools_df``, and holds none here."""
    names: list[str] = []
    for parts in TOOL_RECORD_FOLDERS:
        try:
            listed = folders.listdir(parts)
        except BadFile:
            continue
        names.extend("/".join((*parts, name)) for name in sorted(listed) if name.endswith(".json"))
    return tuple(names)


def log_revealed(ref: RunRef, *, use_cache: bool = True) -> tuple[dict[str, Stat | None], frozenset[str]]:
    """({"events.jsonl": its stat}, the secret values its events hold)."""
    return _kept(ref, ("events.jsonl",), lambda data: revealed_in_log(data[0] or b""), use_cache)


def _kept(
    ref: RunRef, names: tuple[str, ...], values: Any, use_cache: bool, known: dict[str, Any] | None = None
) -> tuple[dict[str, Stat | None], frozenset[str]]:
    key = (ref.fs.protocol, ref.path, names)
    hit = _KEPT.get(key) if use_cache else None
    if hit is not None:  # read before: stat its files (those the load has not) to see whether they changed since
        known = known or {}
        stats = {name: known[name] if name in known else ref.fs.stat(ref.file(*name.split("/"))) for name in names}
        if hit[0] == stats:
            return stats, hit[1]
    # each file's stat comes with its read (taken before its bytes): a change since shows next time
    got = {name: _read(ref, name) for name in names}
    stats = {name: None if g is None else g[1] for name, g in got.items()}
    found: frozenset[str] = values([None if g is None else g[0] for g in got.values()])
    if settled(stats):
        _keep(key, (stats, found))
    return stats, found


def _keep(key: tuple[Any, ...], value: Any) -> None:
    if len(_KEPT) >= _KEPT_MAX:
        _KEPT.clear()
    _KEPT[key] = value


def _read(ref: RunRef, name: str) -> tuple[bytes, Stat] | None:
    try:
        return ref.read(*name.split("/"))
    except BadFile:  # reported by the reader that shows the file; none of its text is shown
        return None


def _docs_values(data: list[bytes | None]) -> frozenset[str]:
    docs = []
    for raw in data:
        if raw:
            try:
                docs.append(orjson.loads(raw))
            except orjson.JSONDecodeError:
                continue
    return revealed(docs)
