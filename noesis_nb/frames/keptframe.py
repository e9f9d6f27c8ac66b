"""Kept frames: a folder's finished ``runs_df`` frame, kept beside its runs index for the next new process.

With the runs index a new process still built the frame from every run's record (pricing the calls, one
array per column): ~5x a scan of the summaries at 1,000 runs. After a whole-folder load (no ``episodes=``,
no ``columns=``, ``cache=True``) that found no problem, the frame is kept in ``<index>.json.frame``
(``_cachedir``: mode 0600, written whole by rename) with the runs it was built from, each with its stamp.
A new process's first load of the folder serves it when the folder holds the same runs and every stamp
still holds; otherwise it builds the frame as before and keeps the new one.

What it holds is only ever a copy, trusted only when it checks:
- an HMAC-SHA256 under the seal key, with the index's code digest (``runindex.cache_tag``), over the whole
  file: the frame is unpickled only once the tag checks (a file crafted without the key is never loaded);
- its key: the verify level, the price table's version (``Pricer.version``: a custom ``prices=`` is never
  served a frame priced by another table) and the versions of Python, pandas, numpy and pyarrow (or its
  absence): a frame pickled by one pandas is not unpickled by another;
- runs only with no problem, settled stamps, and every call's time known (a call with none is priced at the
  time of the load). A run whose summary's sums gave way to its calls is kept too: the frame was priced
  from the calls, under the table its key names, and the log's stamp is among the run's.
Like the index, it is not used while this process has learned a secret value (``index_for`` is None).

Beside the frame it keeps the names of its ids and run folders as the keeping process showed them
(``store.shownnames.shown_names``; none when every id is minted): a new process takes them as shown instead of
screening each again (~0.3 ms a name). They hold for it: the tag is made under the environment's secrets and the
code, neither process had learned a value, and a name holding a run id of either process is left out. When each
is shown as it is (``plain``: no name holds a secret) and the new process takes them all, its frame's id columns
are not looked at again either (``ids_shown`` would change none: ~7 ms at 1,000 runs, a fifth of the load).
"""

from __future__ import annotations

import hmac
import marshal
import os
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._cachedir import read_cached, write_cached
from ..cost import Pricer
from ..secrets.environ import environ_secrets
from ..store.shownnames import remembered, shown_names
from . import _arrays
from .fs import Stat, settled
from .runindex import RunIndex, cache_tag, index_for, remove_left_temps
from .runrecord import RunRecord
from .runusage import call_columns
from .shownids import ids_minted, names_of
from .source import RunRef
from .timetext import NAT

__all__ = ["Keeper", "keeper_for", "frame_path"]

# 2: the stamps as one marshalled list (``_stamps``); 3: ``ids_minted``; 4: the names shown (``shown_names``);
# 5: those names with each hidden piece marked (``[REDACTED:<mark>]``, ``secrets.namemarks``): a file of 4 holds
# them bare, which a new process would take as shown (two runs alike again): it is built again instead;
# 6: whether those are every name of the frame, each shown as it is (``_plain``)
_FORMAT = b"noesis_nb kept runs frame 6\n"
_MAX_BYTES = 1 << 31
_META_LEN = 8  # bytes giving the length of the pickled (key, runs) before the pickled frame


def frame_path(index: RunIndex) -> Path:
    """Where the kept frame of ``index``'s folder is (``forget_indexes`` removes it with the index)."""
    return index.path.with_name(index.path.name + ".frame")


def keeper_for(folder: str, roots: set[str], verify: str, pricer: Pricer) -> Keeper | None:
    """The keeper of a whole-folder load of ``folder`` (its runs in ``roots``: it, or nested folders); None while
    this process knows a secret value."""
    index = index_for(folder)
    return Keeper(index, roots, verify, pricer) if index is not None else None


class Keeper:
    """Serves a whole-folder load its kept frame (``serve``), or keeps the frame it built (``keep``)."""

    def __init__(self, index: RunIndex, roots: set[str], verify: str, pricer: Pricer):
        self.index = index
        self.roots = roots
        self.path = frame_path(index)
        self.key = (verify, pricer.version, *_versions())
        self.first = index.first  # only a process's first load of the folder takes or keeps a kept frame
        # ``ids_shown`` changes none of the served frame's id columns: they are all minted (``shownids.ids_minted``,
        # found when it was kept), or all its names are shown as they are and this process took them (``remembered``)
        self.minted = False

    def serve(self, refs: list[RunRef]) -> pd.DataFrame | None:
        """The kept frame when it is this load's (same key, same runs in the same order, every stamp holds); else None."""
        if not self.first or not refs:
            return None
        held = self.index.kept  # served before in this process, while no whole-folder load ended since
        if held is None or held[0] != self.key:
            held = _read(self.path, self.key)
        if held is None or not _hold(refs, held[1]):
            return None
        key, runs, frame, minted, names, plain = held
        if isinstance(frame, bytes):  # the stamps hold: only now is the pickled frame loaded
            try:
                frame = pickle.loads(frame)
            except Exception:  # a file this code wrote, under another pandas despite the key: built again
                return None
            if type(frame) is not pd.DataFrame or len(frame) != len(refs):
                return None
        self.index.kept = (key, runs, frame, minted, names, plain)
        self.minted = minted
        if names:  # shown by the process that kept them, under the environment's secrets and the code the tag holds
            self.minted = remembered(names) and plain
        for root in self.roots:  # nested folders' indexes too
            index = index_for(root)
            if index is not None:
                index.keep_open()
        self.index.keep_open()
        return frame.copy(deep=False)

    def keep(self, frame: pd.DataFrame, records: list[RunRecord]) -> None:
        """Keep ``frame``, built from ``records`` by a load that found no problem, when every run qualifies."""
        if not self.first or not records or not all(self._qualifies(r) for r in records):
            return
        common: dict[str, str] = {}  # one string for each name many runs share: pickled once
        paths = [r["ref"].path for r in records]
        names = [tuple([common.setdefault(n, n) for n in r["stamp"]]) for r in records]
        env = environ_secrets()
        try:
            runs = (paths, names, _stamps([v for r in records for v in r["stamp"].values()]))
            minted = ids_minted(frame)
            shown = None if minted else _names_shown(frame)
            meta = pickle.dumps((self.key, runs, minted, shown, _plain(frame, shown)), protocol=5)
            body = len(meta).to_bytes(_META_LEN, "big") + meta + pickle.dumps(frame, protocol=5)
            write_cached(self.path, cache_tag(_FORMAT, body) + b"\n" + body)
            if environ_secrets() is not env:  # the names were shown under other secrets than the tag holds: not kept
                self.path.unlink(missing_ok=True)
        except (OSError, pickle.PicklingError, TypeError, AttributeError, ValueError):  # refused, or not picklable
            pass
        remove_left_temps(self.path)

    def _qualifies(self, record: RunRecord) -> bool:
        return (
            record["ref"].fs.protocol == "file"
            and not record["problems"]
            and settled(record["stamp"])
            and NAT not in call_columns(record).stamps  # priced at the time of the load
        )


Kept = tuple[list[str], list[tuple[str, ...]], bytes]  # run paths, the names each run's stamp has, all stamps


def _stamps(values: list[Stat | None]) -> bytes:
    """Stamps as one string of bytes, equal for equal stamps and only for them: marshal's version 2 writes each
    int, tuple and None by its value alone (no back-references to objects seen twice, unlike pickle or version 3).
    Unpickling a stamp dict for each run cost more than the ``stat`` calls that check them (~11 a run)."""
    return marshal.dumps(values, 2)


def _hold(refs: list[RunRef], runs: Kept) -> bool:
    """Whether the folder holds exactly the kept runs (in order), each file and folder with the stamp it was kept
    with: ``runrecord.run_unchanged`` for every run, all their stamps taken, then compared at once."""
    paths, names, kept = runs
    if len(paths) != len(refs):
        return False
    now: list[Stat | None] = []
    add = now.append
    stat = os.stat
    for ref, path, files in zip(refs, paths, names):
        if ref.path != path or ref.fs.protocol != "file":
            return False
        base = path + os.sep
        for name in files:
            if name == "events.jsonl":  # its stat was taken while listing the root (else taken now)
                add(ref.events_stat if ref.events_stat is not None else ref.fs.stat(ref.file(name)))
                continue
            where = path if name == "." else base + name
            try:  # ``LocalFS.stat`` spelled out (``change_stamp``): ~11 a run
                st = stat(where)
            except (FileNotFoundError, NotADirectoryError):
                add(None)
                continue
            except OSError:  # a link that cannot be followed: stamped as ``LocalFS.stat`` stamps it
                add(ref.fs.stat(where))
                continue
            add((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev))
    return _stamps(now) == kept


def _names_shown(frame: pd.DataFrame) -> dict[str, str] | None:
    """The names (last parts) of ``frame``'s ids and run folders as this process shows them (``shown_names``): a new
    process served the frame takes them as shown (``remembered``) instead of screening each again. They hold for the
    environment's secrets and the code the file's tag is made under (``runindex.cache_tag``): ``keep`` drops the file
    when the secrets changed while it was made."""
    return shown_names(names_of(frame))


def _plain(frame: pd.DataFrame, names: dict[str, str] | None) -> bool:
    """Whether ``names`` holds every name of ``frame``'s ids and run folders (``names_of``), each shown as it is: a
    process that takes them all (``remembered``) would show every id column unchanged."""
    return names is not None and all(names.get(n) == n for n in names_of(frame))


def _read(path: Path, key: tuple[Any, ...]) -> tuple[Any, Kept, bytes, bool, dict[str, str] | None, bool] | None:
    """(key, runs, the pickled frame, its ids all minted, the names shown, those every name and each shown as it is)
    of a kept file whose tag and key check; None for anything else."""
    try:
        data = read_cached(path, _MAX_BYTES)
    except OSError:
        return None
    head, _, body = data.partition(b"\n")
    if len(body) < _META_LEN or not hmac.compare_digest(head, cache_tag(_FORMAT, body)):
        return None
    size = int.from_bytes(body[:_META_LEN], "big")
    try:  # written by this code under this key: plain tuples, dicts, strings and ints
        kept_key, runs, minted, names, plain = pickle.loads(body[_META_LEN : _META_LEN + size])
    except Exception:
        return None
    if kept_key != key:
        return None
    if not isinstance(names, dict) or not all(type(n) is str and type(s) is str for n, s in names.items()):
        names = None
    return kept_key, runs, body[_META_LEN + size :], minted is True, names, plain is True and names is not None


def _versions() -> tuple[str, ...]:
    """What a pickled frame depends on: Python, pandas, numpy, and pyarrow when frames use it."""
    arrow = sys.modules["pyarrow"].__version__ if _arrays.HAVE_ARROW and "pyarrow" in sys.modules else "no pyarrow"
    return (sys.version, pd.__version__, np.__version__, arrow)
