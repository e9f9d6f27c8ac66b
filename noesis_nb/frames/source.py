"""``source=``: which run directories a frame reads.

Accepted: None (the configured runs dir), a runs root, one run directory, an episode id, a glob
(``runs/ep_2025*``), a list of any of these, or an fsspec URL (``s3://bucket/prefix``; needs the
``s3`` extra). Label folders one level deep (``runs/<label>/<id>``) are followed.
"""

from __future__ import annotations

import glob as _glob
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from .. import config
from .._safetext import frame_given, pandas_kind
from ..errors import InvalidOptionError, RunNotFoundError
from ..secrets.hiddenparts import holds_hidden
from ..secrets.quoted import quoted
from ..store.roots import check_root, close_run_id, find_run_dir
from ..store.runfiles import change_stamp
from ..store.scan import scan_run_dirs_with_stats, shown_path, stray_id, stray_reason, stray_run_files
from ..store.sealing import SealState
from ..store.shownnames import found_shown, shown_id
from .fs import LocalFS, RemoteFS, RunFS, Stat, open_remote, shown_source
from .lookalike import difference, escaped, folded_id, hidden_in
from .problems import LoadProblem

__all__ = ["RunRef", "resolve_source", "episode_filter", "Source", "named_runs", "distinct_runs", "stray_runs"]

Source = str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None
_LOCAL = LocalFS()


class RunRef:
    """One run directory and the file system it lives on (equal and hashed by file system and path).

    A plain slotted class: a root of 100,000 runs builds 100,000 of these on every load.
    """

    __slots__ = ("fs", "path", "events_stat", "_name")

    def __init__(self, fs: RunFS, path: str, events_stat: Stat | None = None):
        self.fs = fs
        self.path = path
        self.events_stat = events_stat  # ``change_stamp`` of events.jsonl seen while listing
        self._name: str | None = None  # the folder's name, worked out once (a load asks for it several times a run)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunRef) and other.fs is self.fs and other.path == self.path

    def __hash__(self) -> int:
        return hash((id(self.fs), self.path))

    def __repr__(self) -> str:
        return f"RunRef({quoted(self.path)})"

    def stat_events(self, path: str) -> Stat | None:
        """The stat of this run's events.jsonl, reusing the one taken while listing the root."""
        return self.events_stat if self.events_stat is not None else self.fs.stat(path)

    def file(self, *parts: str) -> str:
        """The path of a file of this run (``ref.file("tool_invocations", "prepared")``)."""
        return self.fs.join(self.path, *parts)

    def read(self, *parts: str) -> tuple[bytes, Stat] | None:
        """(bytes, stat) of a file of this run, None when absent; ``BadFile`` when not a readable file of the run."""
        return self.fs.read(self.file(*parts), within=self.path)

    def read_seal(self, name: str) -> tuple[bytes, Stat] | None:
        """(bytes, stat) of the run's ``final.json`` or ``manifest.json`` as ``seal_state`` counts it: a regular file,
        never read through a link; ``BadFile`` (``UnreadableSealFile``) for anything else, None when absent."""
        return self.fs.read_seal(self.file(name))

    def seal(self) -> SealState:
        """Whether the run is sealed: ``store.sealing.seal_state`` (locally; remotely, from the root's listing)."""
        return self.fs.seal_state(self.path)

    def read_tail(self, name: str, nbytes: int) -> tuple[bytes, Stat, bool] | None:
        return self.fs.read_tail(self.file(name), nbytes, within=self.path)

    def listdir(self, *parts: str) -> list[str]:
        """Names in a folder of this run ([] when absent); ``BadFile`` when it is not a folder of the run."""
        return self.fs.listdir(self.file(*parts), within=self.path)

    @property
    def name(self) -> str:
        name = self._name
        if name is None:
            path = self.path.replace("\\", "/") if _BACKSLASH_SEPARATES and self.fs.protocol == "file" else self.path
            name = path.rstrip("/").rsplit("/", 1)[-1]
            if self.fs.protocol in ("http", "https"):  # a URL spells the folder's name percent-encoded
                name = unquote(name)
            self._name = name
        return name

    @property
    def shown_name(self) -> str:
        """The folder's name as frames show it (``[REDACTED:<mark>]`` for one holding a credential)."""
        return shown_id(self.name)

    @property
    def url(self) -> str:
        return self.fs.url(self.path)


#: a local path's ``\\`` separates folders on Windows only: elsewhere (and in every URL) it is part of a name
_BACKSLASH_SEPARATES = os.sep == "\\"

_ACCEPTED = (
    "None (the configured runs dir), a runs root or run directory path, an episode id, a glob "
    "('runs/ep_2025*'), an fsspec URL ('s3://bucket/prefix'), or a list of these"
)


def episode_filter(episodes: str | Iterable[str] | None) -> list[str] | None:
    """A frame's ``episodes=`` argument as a list of ids (one id may be given as a string); None keeps every run."""
    if episodes is None:
        return None
    if isinstance(episodes, str):
        return [episodes]
    said = frame_given(episodes, "episodes= (a list of ids)")
    if said is not None:
        raise InvalidOptionError(said)
    if not _is_collection(episodes):
        raise InvalidOptionError(
            f"episodes={quoted(episodes, 60)} (type {type(episodes).__name__}) is not an episode id; "
            "pass an id (str) or a list of ids"
        )
    ids = list(episodes)
    bad = [e for e in ids if not isinstance(e, str)]
    if bad:
        raise InvalidOptionError(
            f"episodes= holds {quoted(bad[0], 60)} (type {type(bad[0]).__name__}); every episode id is a str"
        )
    return ids


def source_label(source: Source) -> str:
    """Where a load read from, for a problem about the whole load: the root or run it was given."""
    if source is None or isinstance(source, (str, os.PathLike)):
        return shown_source(str(os.fspath(config.runs_dir() if source is None else source)))
    return "the sources given"


def unmatched_episodes(episodes: list[str] | None, refs: list[RunRef], source: Source) -> list[LoadProblem]:
    """The ``episodes=`` ids that no run of ``source`` has, one problem each (they are left out); when none
    of them is there at all, ``RunNotFoundError`` (a typo or the wrong root, not an empty result)."""
    if not episodes:
        return []
    found = {ref.name for ref in refs}
    if any(holds_hidden(e) for e in episodes):  # ids as a frame shows them
        found |= {ref.shown_name for ref in refs}
    missing = [e for e in dict.fromkeys(episodes) if e not in found]
    where = source_label(source)
    if missing and len(missing) == len(set(episodes)):
        shown = ", ".join(repr(_Short(e)) for e in missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        one_root = source is None or isinstance(source, (str, os.PathLike))  # not "the sources given"
        local = one_root and ("://" not in where or where.startswith("file://"))
        close = close_run_id(missing[0], [Path(os.path.expanduser(where.removeprefix("file://")))]) if local else None
        if close:
            raise RunNotFoundError(
                f"episodes= names {shown}, but no run in {quoted(where)} has that id (did you mean {quoted(close)}?)"
            )
        raise RunNotFoundError(
            f"episodes= names {shown}, but no run in {quoted(where)} has that id; see the ids there with "
            "noesis_nb.list_runs() or %noesis list, or pass the runs root they are in"
        )
    return [LoadProblem(where, None, f"episodes= names {quoted(e, 60)}, but no run there has that id; left out") for e in missing]


def named_runs(refs: list[RunRef], problems: Any) -> list[RunRef]:
    """``refs`` without runs whose path is not UTF-8 text (a folder named in another encoding, ``ep_\\xff``),
    one problem each: such a name cannot go into a column, and kept it would fail the whole load."""
    kept = []
    for ref in refs:
        try:
            ref.path.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(ref.path).decode("utf-8", "backslashreplace")
            problems.add(
                shown,
                "the folder's name is not UTF-8 text, so it cannot be a column value; left out. Rename the folder to its id",
            )
            continue
        kept.append(ref)
    return kept


def stray_runs(source: Source, episodes: list[str] | None, refs: list[RunRef]) -> list[LoadProblem]:
    """One problem for each entry of a local runs root given in ``source`` that is named like a run but is no run
    folder (``ep_….zip``, a file saved under a run's name): left out, as before, but said. With ``episodes=``,
    only an entry of an id asked for (its name, or its name without suffixes) whose run folder was not read:
    an archive lying next to its unpacked run loses nothing."""
    if source is None:
        source = config.runs_dir()
    items = [source] if isinstance(source, (str, os.PathLike)) else list(source) if _is_collection(source) else []
    names = {ref.name for ref in refs}
    found: dict[str, LoadProblem] = {}
    for fs in {id(ref.fs): ref.fs for ref in refs if isinstance(ref.fs, RemoteFS)}.values():
        for link, why in fs.refused.items():  # an http listing's links not followed
            found.setdefault(link, LoadProblem(shown_source(fs.url(link)), None, f"{_LINK_REFUSED} ({why}); {_NOT_FOLLOWED}"))
        for folder, why in fs.unlisted.items():  # a folder of the root whose own listing failed: its runs unknown
            found.setdefault(folder, LoadProblem(shown_source(fs.url(folder)), None, f"{_UNLISTED} ({why}); {_UNKNOWN}"))
    wanted = set(episodes) - names if episodes is not None else None
    if wanted is not None and not wanted:
        return list(found.values())
    for item in items:
        text = os.fspath(item) if isinstance(item, (str, os.PathLike)) else None
        if not isinstance(text, str) or ("://" in text and not text.startswith("file://")) or any(c in text for c in "*?["):
            continue
        root = os.path.expanduser(text.removeprefix("file://"))  # as the scan was given it: its listing serves
        for path, what in stray_run_files(root):
            if wanted is None or stray_id(os.path.basename(path), wanted) is not None:
                found.setdefault(path, LoadProblem(shown_path(path), None, stray_reason(what)))
    return list(found.values())


_LINK_REFUSED = "the root's http listing links here, but this is no folder inside the root"
_UNLISTED = "the root's http listing links this folder, but listing it failed"
_UNKNOWN = (
    "no run of it is read, so what it holds is unknown, not absent: check the server and that the credentials may "
    "list it, then load again"
)
_NOT_FOLLOWED = "not followed, so no run of it is read (locally a link out of the root is not followed either)"


def distinct_runs(refs: list[RunRef], problems: Any) -> list[RunRef]:
    """``refs`` with one run folder per episode id: the first in ``source`` order is read (one named as the id prints
    before a look-alike, ``lookalike.folded_id``), each other folder of the same name (a copy in another root, the
    same id under two labels) is left out, one problem each naming the one read. Read both, their rows would carry
    one episode id: events of two runs as one, tokens and costs counted twice. Every frame keeps the same folder, so
    runs_df, events_df, tools_df and usage_df agree."""
    first: dict[str, RunRef] = {}
    names: list[tuple[str, str]] = []
    for ref in refs:  # a look-alike (``ep_…\u200b…``) is the same id; a folder named as the id reads is read first
        name = ref.name
        key = name if name.isascii() and name.isprintable() and " " not in name else folded_id(name)  # no call a plain id
        names.append((name, key))
        seen = first.setdefault(key, ref)
        if seen is not ref and name == key and seen.name != key:
            first[key] = ref
    kept = []
    for ref, (name, key) in zip(refs, names):
        seen = first[key]
        if seen is not ref:
            alike = (
                ""
                if seen.name == name
                else f" as it reads (this folder's name is {escaped(quoted(name, 100))}, the one read is "
                f"{escaped(quoted(seen.name, 100))}{difference(name, seen.name)})"
            )
            problems.add(
                ref.url,
                f"another run folder has episode id {quoted(seen.name, 80)} too{alike}, and was read instead: {seen.url} "
                f"({'named as the id prints, or ' if alike else ''}the first in source order). This one is left out, so "
                "no run's rows are counted twice. Rename one of the folders, or load each root on its own to compare them",
            )
            continue
        if key != name and (hidden := hidden_in(name)):  # kept (a folder only read is never refused for its name), said
            problems.add(
                ref.url,
                f"the run folder's name {quoted(name, 100)} holds characters that print as nothing or as blank "
                f"({', '.join(hidden)}): it may print like another run's id, and no writer makes such an id. It is read "
                "as a run of its own; rename the folder to its episode id (letters, digits and _.:@+=-)",
            )
        kept.append(ref)
    return kept


class _Short:
    """A value whose repr is redacted, then cut to 60 characters (an error message must stay readable, and show no key)."""

    def __init__(self, value: Any):
        self.value = value

    def __repr__(self) -> str:
        return quoted(self.value, 60)  # redacted, then cut


def _is_collection(value: Any) -> bool:
    """A list-like of sources or ids: iterable, but not text, bytes or a mapping (whose keys would be read silently)."""
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, Mapping))


def _frame_as_source(value: Any) -> str | None:
    """What to say for a frame or a frame's row given as ``source`` (iterating one yields its column names or
    cells, not runs); None for anything else, a Series of run directories or ids included."""
    kind = pandas_kind(value)
    if kind is None:
        return None
    names = value.columns if kind == "DataFrame" else value.index
    if kind == "Series" and "run_dir" not in names and "episode_id" not in names:
        return None  # a column: its values are the sources
    what = "a DataFrame" if kind == "DataFrame" else "a frame's row"
    if "run_dir" in names:
        pick = "its run directories, df['run_dir']" if kind == "DataFrame" else "its run directory, row['run_dir']"
        return f"got {what} where source= goes; pass {pick}"
    return (
        f"got {what} where source= goes; pass the runs root it was loaded from, "
        "and episodes=df['episode_id'].unique() to keep its runs"
    )


def _run_object(value: Any) -> str | None:
    """What to say for an object of one run (an ``EpisodeHandle``, a ``DiskRun``, a batch entry) given as a source:
    its run directory is the source; None for anything else."""
    episode_id = getattr(value, "episode_id", None)
    if isinstance(value, (str, os.PathLike)) or not isinstance(episode_id, str):
        return None
    kind = type(value).__name__
    return (
        f"got {'an' if kind[:1] in 'AEIOU' else 'a'} {kind} where source= goes; pass its .run_dir or its .episode_id "
        f"({quoted(episode_id)}); for several, a list of those"
    )


def _bad_source(value: Any, *, item: bool = False) -> InvalidOptionError:
    said = _run_object(value)
    if said is not None:
        return InvalidOptionError(said if not item else f"source list item: {said}")
    kind, value = type(value).__name__, _Short(value)
    if item:
        return InvalidOptionError(
            f"source list item {value!r} (type {kind}) is not a run source; each item of a source list is a "
            "run or runs-root path, an episode id, a glob or an fsspec URL"
        )
    return InvalidOptionError(f"source={value!r} (type {kind}) is not a run source; pass {_ACCEPTED}")


def resolve_source(
    source: Source,
    *,
    storage_options: dict[str, Any] | None = None,
    episodes: Iterable[str] | None = None,
) -> list[RunRef]:
    """Run directories for ``source`` in a stable order (sorted within a root), without duplicates.

    ``episodes`` keeps only runs whose directory name is one of those ids.
    """
    if source is None:
        source = config.runs_dir()
    if isinstance(source, (str, os.PathLike)):
        items = [source]
    elif (said := _frame_as_source(source)) is not None:
        raise InvalidOptionError(said)
    elif _is_collection(source):
        items = list(source)
    else:
        raise _bad_source(source)
    refs: list[RunRef] = []
    remotes: dict[tuple[str, str], RemoteFS] = {}
    for item in items:
        refs.extend(_resolve_one(item, storage_options, remotes))
    seen: dict[tuple[str, str], int] = {}
    unique: list[RunRef] = []
    wanted = set(episodes) if episodes is not None else None
    # several sources may reach one run by two paths (a root and a link to it, a folder of links to runs): each
    # run is read once, by where it really is, under its own folder's name rather than a link's (``latest``)
    # whatever the order; one root alone lists each run once: no path is resolved then
    real = len(items) > 1
    by_shown = wanted is not None and any(holds_hidden(e) for e in wanted)  # ids as a frame shows them
    for ref in refs:
        if wanted is not None and ref.name not in wanted and not (by_shown and ref.shown_name in wanted):
            continue
        where = os.path.realpath(ref.path) if real and ref.fs.protocol == "file" else ref.path
        key = (ref.fs.protocol, where)
        at = seen.get(key)
        if at is None:
            seen[key] = len(unique)
            unique.append(ref)
        elif real and unique[at].name != os.path.basename(where) == ref.name:
            unique[at] = ref
    return unique


def _resolve_one(item: Any, storage_options: dict[str, Any] | None, remotes: dict[tuple[str, str], RemoteFS]) -> list[RunRef]:
    if not isinstance(item, (str, os.PathLike)):
        raise _bad_source(item, item=True)
    text = os.fspath(item)
    if not isinstance(text, str):  # a PathLike whose path is bytes
        raise _bad_source(item, item=True)
    if not text.strip():
        raise InvalidOptionError(f"source {quoted(item)} is empty; pass {_ACCEPTED}")
    if isinstance(item, str) and "://" in text and not text.startswith("file://"):
        return _resolve_remote(text, storage_options, remotes)
    text = text.removeprefix("file://")
    if holds_hidden(text):  # a run as a frame shows it (``…/[REDACTED:<mark>]``): its folder, never a glob
        found = found_shown(Path(os.path.expanduser(text)))
        if found.exists():
            return _local_dir(str(found))
        if isinstance(item, str) and os.sep not in text and "/" not in text:
            return [RunRef(_LOCAL, str(find_run_dir(text, instead=_INSTEAD)))]
    if any(ch in text for ch in "*?["):
        matches = sorted(_glob.glob(os.path.expanduser(text)))
        if not matches:
            raise RunNotFoundError(f"the glob {quoted(text)} matches nothing; check the pattern or pass the runs root")
        return [ref for match in matches for ref in _local_dir(match)]
    path = Path(os.path.expanduser(text))  # ``~name`` of a user this system does not know stays as typed (not found)
    # a file, FIFO, device or dangling link holds no runs: say so rather than load nothing
    check_root(path, label="source", wanted="a runs root or a run directory (the folder that holds events.jsonl)", reading=True)
    if path.exists():
        return _local_dir(str(path))
    if isinstance(item, str) and os.sep not in text and "/" not in text:
        return [RunRef(_LOCAL, str(find_run_dir(text, instead=_INSTEAD)))]
    raise RunNotFoundError(f"{quoted(text)} does not exist; pass a runs root, a run directory, an episode id or an s3:// URL")


_INSTEAD = "pass the runs root it is in as source, or its run directory"


def _local_dir(path: str) -> list[RunRef]:
    local = _LOCAL
    return [RunRef(local, p, None if st is None else change_stamp(st)) for p, st in scan_run_dirs_with_stats(path)]


def _resolve_remote(url: str, storage_options: dict[str, Any] | None, remotes: dict[tuple[str, str], RemoteFS]) -> list[RunRef]:
    fs, path = open_remote(url, storage_options)
    protocol = fs.protocol
    if any(ch in path for ch in "*?["):
        base = path.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0].rsplit("/", 1)[0]
        runs = fs.scan(base)
        pattern = path
        if (moved := fs.moved.get(base.rstrip("/"))) is not None:  # the root's page moved: its runs are named there
            pattern, base = moved + path[len(base.rstrip("/")) :], moved
        import fnmatch

        matched = [
            r
            for r in runs
            if fnmatch.fnmatch(r, pattern.rstrip("/")) or any(fnmatch.fnmatch(p, pattern.rstrip("/")) for p in _parents(r, base))
        ]
        if not matched:
            raise RunNotFoundError(f"the glob {quoted(fs.url(path))} matches nothing; check the pattern or pass the runs root")
        return [RunRef(fs, r) for r in matched]
    remotes[(protocol, path)] = fs
    return [RunRef(fs, r) for r in fs.scan(path)]


def _parents(run: str, base: str) -> list[str]:
    parts = run[len(base) :].strip("/").split("/")
    return [base + "/" + "/".join(parts[: i + 1]) for i in range(len(parts))]
