"""Decisions waiting for people across runs: every pending tool draft and veto pause under a runs
root, or of a set of episodes (a batch's), followed with ``stat`` calls.

:meth:`PendingScan.poll` looks at each unsealed run. A run live in this process answers from
memory (its handle's pending drafts); a run on disk is read again only when its decision files
change (drafts, approvals, checkpoints, the seal), so runs writing events elsewhere cost a few
``stat`` calls. Sealed runs are never looked at again. Each item carries its run's source — the
live handle, or the one :class:`DiskRun` of the directory that every view of it in this process
shares (:func:`source_for`) — so an inbox decides through the same gate as the run's own view,
and each sees the other's decisions at once.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import config
from ..errors import InvalidOptionError
from ..ids import validate_id
from ..secrets.quoted import quoted
from ..store.roots import check_root
from ..store.runfiles import ROOT_SETTLE_NS, change_stamp, stamps_settled
from ..store.scan import scan_run_dirs_with_stats
from .diskrun import DiskRun, gone_note
from .inboxitems import InboxItem, items_of, source_for
from .registry import live_handles

__all__ = ["PendingScan"]

_DECISION_FILES = (
    "manifest.json",
    "tool_invocations/prepared",
    "tool_invocations/x-python/prepared",
    "tool_invocations/approvals",
    "checkpoints",
)
_RELIST_S = 5.0  # a root-wide inbox lists the root again at least this often (label folders change unseen)
_UNSURE = object()  # a root's stamp too recent to tell a run made since: equal to no stamp, looked at again


@dataclass
class _Run:
    path: str
    signature: tuple[Any, ...] = ()
    source: Any = None
    seen: Any = None  # the source's signature when items were last taken
    items: list[InboxItem] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what of the run could not be read (a draft that is a FIFO…)


def _stat(path: str) -> tuple[int, int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return change_stamp(st)


class PendingScan:
    """The pending decisions of every unsealed run under ``root`` (or of ``episode_ids()``), oldest first.

    With neither given: under the configured runs dir, and of every episode live in this process wherever it writes."""

    def __init__(self, root: str | os.PathLike[str] | None = None, *, episode_ids: Callable[[], Iterable[str]] | None = None):
        if episode_ids is not None and not callable(episode_ids):
            raise InvalidOptionError(
                f"episode_ids={quoted(episode_ids)}: pass a function returning episode ids (e.g. lambda: batch.episode_ids)"
            )
        # only read: a root named with a control character is listed as list_runs lists it (writers refuse the name)
        given = config.check_path(root, "root", reading=True)
        self.root = check_root(config.runs_dir(given, reading=True), reading=True)
        self._episode_ids = episode_ids
        # no root given: "what waits for me" also covers this process's live episodes kept under another runs dir
        # (``%noesis run … --runs-dir x``), which the default root would not list: the inbox said nothing waited
        self._live_too = root is None and episode_ids is None
        self._runs: dict[str, _Run] = {}
        self._sealed: set[str] = set()
        self._paths: dict[str, str] = {}  # episode id -> run dir (episode_ids mode)
        self._looked: dict[str, Any] = {}  # episode id without a run dir yet -> the root's stat when last looked for
        self._listing: list[str] = []
        self._root_stat: Any = None
        self._listed_at = float("-inf")
        self.items: list[InboxItem] = []
        self.resumable: list[DiskRun] = []  # runs on disk decided and ready for Resume
        self.problems: list[str] = []  # what of the runs followed could not be read: a draft missing here is named
        self._vanished: dict[str, str] = {}  # run dir -> what is said of it: its folder went while a decision waited
        self.version = 0  # grows whenever ``items``, ``resumable`` or ``problems`` change

    @property
    def runs_followed(self) -> int:
        return len(self._runs)

    def _candidates(self) -> list[str]:
        root = str(self.root)
        st = _stat(root)
        relist = st != self._root_stat or time.monotonic() - self._listed_at > _RELIST_S
        self._root_stat = st
        if self._episode_ids is None:
            if relist:
                self._listing = [p for p, _ in scan_run_dirs_with_stats(root)]
                self._listed_at = time.monotonic()
            if not self._live_too:
                return self._listing
            listed = {os.path.basename(p) for p in self._listing}
            return self._listing + [str(h.run_dir) for e, h in live_handles().items() if e not in listed]
        live = live_handles()
        out = []
        for raw in self._episode_ids():
            episode_id = str(raw)
            path = self._paths.get(episode_id)
            if path is None:
                handle = live.get(episode_id)
                if handle is not None:
                    path = str(handle.run_dir)
                elif self._looked.get(episode_id) != st:  # each missing run is looked for once per change of the root
                    # remembered only once the root has settled: a run made within the file system's timestamp tick
                    # of this look (its staging folder made, then renamed in) leaves the root's stamp as it was, and
                    # the run would never be looked for again (the same care the scan takes with a root's strays)
                    self._looked[episode_id] = st if st is None or stamps_settled(st, ROOT_SETTLE_NS) else _UNSURE
                    if os.path.isdir(os.path.join(root, validate_id(episode_id))):
                        path = os.path.join(root, episode_id)
                if path is not None:
                    self._paths[episode_id] = path
                    self._looked.pop(episode_id, None)
            if path is not None:
                out.append(path)
        return out

    def poll(self) -> bool:
        """Look at every unsealed run again; True when the pending items (or the runs ready to resume) changed."""
        live = live_handles()
        paths = [p for p in self._candidates() if p not in self._sealed]
        for path in paths:
            run = self._runs.get(path)
            if run is None:
                run = self._runs[path] = _Run(path)
            self._look(run, live)
        for gone in set(self._runs) - set(paths):
            self._note_if_vanished(self._runs.pop(gone))
        items = sorted((i for run in self._runs.values() for i in run.items), key=lambda i: i.asked_at)
        resumable = [r.source for r in self._runs.values() if isinstance(r.source, DiskRun) and r.source.can_resume]
        problems = [p for run in self._runs.values() for p in run.problems] + list(self._vanished.values())
        changed = (
            [i.key for i in items] != [i.key for i in self.items]
            or [id(r) for r in resumable] != [id(r) for r in self.resumable]
            or problems != self.problems
        )
        self.items, self.resumable, self.problems = items, resumable, problems
        if changed:
            self.version += 1
        return changed

    def _look(self, run: _Run, live: Mapping[str, Any]) -> None:
        name = os.path.basename(run.path)
        handle = live.get(name)
        if handle is not None and (run.source is handle or _same(handle.run_dir, run.path)):
            if handle.done():
                self._seal(run)
                return
            run.source, run.items, run.problems = handle, items_of(handle), list(handle.problems)
            return
        if not os.path.isdir(run.path):  # removed or moved away: what waited in it can no longer be decided
            self._note_if_vanished(run)
            run.items, run.source, run.problems, run.signature = [], None, [], ()
            return
        self._vanished.pop(run.path, None)  # back again (moved back): read as any run
        signature = tuple(_stat(os.path.join(run.path, rel)) for rel in _DECISION_FILES)
        if signature[0] is not None:  # sealed: nothing will wait any more
            self._seal(run)
            return
        if not isinstance(run.source, DiskRun):  # first look, or the live episode left this process
            run.source = None
            if signature != run.signature and any(signature[1:]):
                run.source = source_for(run.path, refresh=False)
                run.seen = None
        run.signature = signature
        source = run.source
        if source is None:
            run.items, run.problems = [], []
            return
        if source.changed():
            source.refresh()  # every view of the run hears of it too
        if source.signature != run.seen:
            run.items, run.seen = items_of(source), source.signature
        run.problems = list(source.problems)
        if not run.items and source.status != "paused" and not source.resuming:
            run.source, run.problems = None, []  # running elsewhere again: back to the few stat calls

    def _note_if_vanished(self, run: _Run) -> None:
        """A run whose folder went while decisions of it waited here is named, with its path, until it is back."""
        if (run.items or run.path in self._vanished) and not os.path.isdir(run.path):
            episode_id = run.items[0].episode_id if run.items else os.path.basename(run.path)
            self._vanished[run.path] = gone_note(episode_id, run.path)
        else:
            self._vanished.pop(run.path, None)

    def _seal(self, run: _Run) -> None:
        run.items, run.source, run.problems = [], None, []
        self._sealed.add(run.path)


def _same(a: str | os.PathLike[str], b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
