"""``BatchHandle``: the notebook's grip on a batch — one :class:`BatchEntry` per (task, adapter), counts, pending drafts.

``await handle`` returns once no entry is queued or running: every episode has finished or is
paused for a human (the rule of ``await EpisodeHandle``). Listeners hear each entry's changes
on the loop thread; coalescing them is the view's job.
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._unstarted import awaited_entry, plain_callback
from ..errors import BatchInterrupted
from ..runtime.handle import EpisodeHandle
from ..runtime.interrupt import watch_interrupts
from ..runtime.presenter import presenter
from ..secrets import shown_cut, shown_repr
from ..secrets.quoted import quoted
from ..store.vocab import TERMINAL_STATUSES

if TYPE_CHECKING:
    from ..runtime.diskrun import DiskRun

__all__ = ["BatchEntry", "BatchHandle", "WAITING"]

WAITING = frozenset({"queued", "running"})  # an entry in one of these keeps ``await batch`` waiting


@dataclass(eq=False)
class BatchEntry:
    """One episode of a batch: task ``index`` run by ``adapter``; ``handle`` is its live handle when it runs here."""

    index: int
    task: str
    adapter: str
    episode_id: str | None = None
    run_dir: Path | None = None
    status: str = "queued"
    score: float | bool | None = None
    usage: dict[str, Any] = field(default_factory=dict)  # the run's ``usage``: each token total None when unknown
    started_at: float | None = None
    ended_at: float | None = None
    handle: EpisodeHandle | None = None
    error: str | None = None  # why an entry could not run (its run, when it has one, says the rest)
    disk: DiskRun | None = field(default=None, repr=False)  # the run followed on disk (another process, a pause on disk)
    reserved_id: str | None = field(default=None, repr=False)  # the episode id the batch record holds for it
    future: Any = field(default=None, repr=False)  # its job on an executor

    @property
    def done(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def __repr__(self) -> str:  # ``batch.entries`` in a cell prints each task: the task is kept, the secret is not
        return shown_repr(self)


class BatchHandle:
    """A running or finished batch (see the module docstring); made by :func:`noesis_nb.batch`."""

    summary_kind = "BatchHandle"

    def __init__(self, batch_id: str, root: Path, record_path: Path, entries: list[BatchEntry], loop: asyncio.AbstractEventLoop):
        self.batch_id = batch_id
        self.root = root
        self.record_path = record_path
        self.entries = entries
        self.loop = loop
        self.started_at = time.time()
        self.ended_at: float | None = None
        # the batch waits for people while nothing of it is queued or running and some episode is paused: its header
        # counts that time apart from its running time and its throughput, as an episode's view counts a pause
        self.waiting_since: float | None = None
        self.waited_s = 0.0  # waits closed so far
        self.cancelled = False
        self.executor: str | None = None  # the type of the executor its episodes run on (None: this loop)
        self._thread = threading.get_ident()
        self._listeners: list[Callable[[BatchEntry], None]] = []
        self._settled = asyncio.Event()
        self._runner: asyncio.Future[Any] | None = None
        self._canceller: Callable[[], None] | None = None
        self._seen: dict[int, str] = {}  # each entry's status when last counted (a change costs O(1), not O(entries))
        self._waiting = 0
        self._copies = 0  # runs being copied to ``upload_to`` now
        self.recount()

    # -- what it is ---------------------------------------------------------------------------
    @property
    def episode_ids(self) -> list[str]:
        return [e.episode_id for e in self.entries if e.episode_id is not None]

    def counts(self) -> dict[str, int]:
        """Entries by status: ``queued``, ``running``, ``paused``, ``ok``, ``error``, ``vetoed``, ``cancelled`` (its
        episode stopped), and ``not_started``: cancelled before its episode began (it has no run; a later
        ``batch(..., batch_id=…)`` starts it)."""
        return dict(Counter("not_started" if e.status == "cancelled" and e.run_dir is None else e.status for e in self.entries))

    @property
    def status(self) -> str:
        """``running`` while an entry is queued or running, then ``paused`` (some wait for a human), ``cancelled`` or ``done``."""
        statuses = {e.status for e in self.entries}
        if statuses & WAITING:
            return "running"
        if "paused" in statuses:
            return "paused"
        return "cancelled" if self.cancelled else "done"

    def done(self) -> bool:
        return all(e.done for e in self.entries)

    def pending(self) -> list[tuple[BatchEntry, Any]]:
        """``(entry, PendingApproval)`` for each draft a paused episode of the batch waits on, live here or on disk."""
        out: list[tuple[BatchEntry, Any]] = []
        for entry in self.entries:
            if entry.status != "paused" or self._being_cancelled(entry):
                continue
            # an episode that ended paused is followed on disk since: its drafts are read there
            source: Any = entry.disk if entry.disk is not None else entry.handle
            out.extend((entry, pending) for pending in (source.pending if source is not None else []))
        return out

    # -- changes ------------------------------------------------------------------------------
    def on_change(self, callback: Callable[[BatchEntry], None]) -> Callable[[], None]:
        """Call ``callback(entry)`` on the loop thread when an entry's status, usage or score changes. Returns an unsubscribe."""
        self._listeners.append(plain_callback(callback, "batch.on_change"))

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def changed(self, entry: BatchEntry) -> None:
        """An entry changed: recount, then tell the listeners — on the loop thread, from wherever it is called."""
        if threading.get_ident() != self._thread:
            if not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self.changed, entry)
            return
        old, new = self._seen.get(id(entry)), entry.status
        if old != new:
            self._seen[id(entry)] = new
            self._waiting += (new in WAITING) - (old in WAITING)
            self._settle_check()
        for callback in list(self._listeners):
            try:
                callback(entry)
            except Exception:  # a broken view must never break the batch
                pass

    def recount(self) -> None:
        """Count every entry again (after changes made without :meth:`changed`)."""
        self._seen = {id(e): e.status for e in self.entries}
        self._waiting = sum(1 for e in self.entries if e.status in WAITING)
        self._settle_check()

    def copy_task(self, copy: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``copy`` (a run's copy to ``upload_to``) as a task that ``await batch`` waits for, counted from now
        until it ends however it ends (even cancelled before it began): a script's ``asyncio.run`` cancels what is
        left on its loop once ``await batch`` returns, and the copy of a run just ended had not begun yet."""
        self._copies += 1
        self._settled.clear()
        task = self.loop.create_task(copy)
        task.add_done_callback(self._copy_ended)
        return task

    def _copy_ended(self, _: asyncio.Task[None]) -> None:
        self._copies -= 1
        self._settle_check()

    def _being_cancelled(self, entry: BatchEntry) -> bool:
        """Whether ``entry`` is a live paused episode the batch's ``cancel()`` is ending (``cancelled`` once sealed;
        one paused on disk stays paused): its drafts are no longer offered, and ``await batch`` waits for its end."""
        return self.cancelled and entry.status == "paused" and entry.disk is None and entry.handle is not None

    def _settle_check(self) -> None:
        now = time.time()
        if self._waiting or (self.cancelled and any(map(self._being_cancelled, self.entries))):
            self._settled.clear()
            self.ended_at = None
            self._stop_waiting(now)
        else:
            if self._copies:
                self._settled.clear()
            else:
                self._settled.set()
            if self.done():
                self._stop_waiting(now)
                if self.ended_at is None:
                    self.ended_at = now
            elif self.waiting_since is None:  # all that is left is paused: the batch waits for people from now
                self.waiting_since = now

    def _stop_waiting(self, now: float) -> None:
        if self.waiting_since is not None:
            self.waited_s += max(0.0, now - self.waiting_since)
            self.waiting_since = None

    def waiting_s(self, now: float | None = None) -> float:
        """Seconds the batch has waited for people: nothing of it queued or running, some episode paused (the
        current wait up to ``now``)."""
        now = time.time() if now is None else now
        open_wait = max(0.0, now - self.waiting_since) if self.waiting_since is not None else 0.0
        return self.waited_s + open_wait

    # -- control ------------------------------------------------------------------------------
    def cancel(self) -> bool:
        """Stop the batch: queued entries never start, running (and live paused) episodes end ``cancelled``. Any thread."""
        if self.done() or self._canceller is None:
            return False
        if threading.get_ident() != self._thread:
            self.loop.call_soon_threadsafe(self._canceller)
        else:
            self._canceller()
        return True

    def __await__(self) -> Generator[Any, None, BatchHandle]:
        return self._settle().__await__()

    async def _settle(self) -> BatchHandle:
        """Every entry ended or paused, and the runs of ended ones copied to ``upload_to``: once all have ended the
        runner is awaited too (its copies, an executor's jobs), else a script's ``asyncio.run`` cancelled them."""
        with watch_interrupts() as watch:
            try:
                while not self._settled.is_set():  # set, then cleared by a copy begun in the same step
                    await asyncio.shield(self._settled.wait())
                if self.done() and self._runner is not None:
                    await asyncio.shield(self._runner)
            except asyncio.CancelledError:
                if watch.seen:
                    raise await self._interrupted() from None
                raise
        self.refresh_display()
        return self

    async def _interrupted(self, settle_s: float = 5.0) -> BatchInterrupted:
        """The interrupt landed while a cell awaited the batch: stop it as ``cancel()`` does, wait up to ``settle_s``
        for its runs to seal, and say what became of its entries and how to continue it."""
        self.cancel()
        if self._runner is not None:
            await asyncio.wait({self._runner}, timeout=settle_s)
        unstarted = sum(1 for e in self.entries if e.run_dir is None)
        counts = Counter(e.status for e in self.entries if e.run_dir is not None)
        said = ", ".join([*(f"{n} {status}" for status, n in sorted(counts.items())), f"{unstarted} never started"])
        return BatchInterrupted(
            f"batch {self.batch_id} stopped by the interrupt ({said}); batch(..., batch_id={quoted(self.batch_id)}) "
            "continues it: it starts those never started, and the cancelled ones with rerun_failed=True",
            batch_id=self.batch_id,
        )

    @awaited_entry("batch.wait()")
    async def wait(self) -> BatchHandle:
        """Wait until every entry has finished (not merely paused) and its run is uploaded (``upload_to``).

        Never in a notebook cell while a human must click. The kernel's interrupt stops the batch, as with ``await``.
        """
        with watch_interrupts() as watch:
            try:
                while not self.done():
                    await asyncio.sleep(0.05)
                    await asyncio.shield(self._settled.wait())
                if self._runner is not None:
                    await asyncio.shield(self._runner)
            except asyncio.CancelledError:
                if watch.seen:
                    raise await self._interrupted() from None
                raise
        return self

    # -- display ------------------------------------------------------------------------------
    def refresh_display(self) -> None:
        shown = presenter(load=False, kind="batch")
        if shown is not None:
            shown.refresh(self)

    def _ipython_display_(self) -> None:
        """In IPython, the batch's view (with a display id) once the widgets register one; else the static bundle."""
        shown = presenter(kind="batch")
        if shown is None:
            raise NotImplementedError  # IPython then shows _repr_mimebundle_
        shown.display(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        shown = presenter(kind="batch")
        return shown.mimebundle(self, include, exclude) if shown is not None else self.plain_bundle()

    def plain_bundle(self) -> dict[str, Any]:
        """``text/plain`` (the repr) and a static ``text/html`` table: the batch without widgets."""
        rows = "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    e.index,
                    e.adapter,
                    shown_cut(e.task, 80),
                    e.status,
                    "" if e.score is None else e.score,
                    e.episode_id or "",
                )
            )
            + "</tr>"
            for e in self.entries
        )
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts().items()))
        head = "".join(f"<th>{h}</th>" for h in ("task", "adapter", "text", "status", "score", "episode"))
        table = (
            f"<div class='noesis-batch'><p>batch <code>{html.escape(self.batch_id)}</code>: {html.escape(self.status)} "
            f"({html.escape(counts)})</p><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
        )
        return {"text/plain": repr(self), "text/html": table}

    def __repr__(self) -> str:
        counts = ", ".join(f"{k}={v}" for k, v in sorted(self.counts().items()))
        return (
            f"BatchHandle(batch_id={quoted(self.batch_id)}, status={quoted(self.status)}, entries={len(self.entries)}, {counts})"
        )
