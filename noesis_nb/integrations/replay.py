"""Recorded traces as episodes: replay rows through the same path a live adapter uses.

``RecordedReplay(rows, source=...)`` is a sync adapter (it runs in a worker thread and reads
``rows`` lazily, so a log that is still being written can be followed). Every frame and the
view load the resulting run like any other. A recorded failure (a ``run_error`` row not
followed by a ``run_finished``) ends the episode ``error`` with the recorded reason. A replay given
a one-shot source (an open file, a generator) refuses a second episode rather than recording an
empty ``ok`` run: that source was read by the first (:func:`rereadable`). A trace with no rows at all (an
empty file or list) is refused the same way: an ``ok`` run of nothing would read as a good import. A trace that
never shows its run ending (a task left suspended, waiting for a human; a log cut before its end event; a
transcript ending on the user's message: see ``_ending``) ends ``error`` too, with a ``run_unfinished`` row and a
:class:`RecordedRunUnfinished` naming what is missing: a run that did not finish is no success. A run recorded as
cancelled (``run_cancelled`` as its last end) ends ``cancelled`` (:class:`RecordedRunCancelled`), as a live agent's
own cancel does.
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import config
from .._cachedir import user_stacklevel
from ..errors import AgentCancelled, NoesisNbError
from ..ids import validate_new_episode_id
from ..runtime.api import solve
from ..runtime.interrupt import carried_interrupt, held_interrupts
from ..secrets.quoted import quoted
from ..store.patience import running_loop
from ..store.replayclock import ReplayClock, iso_of
from ..store.roots import check_root, refuse_run_as_root
from ._dedupe import DIGEST_TAG, import_lock, imported_before, trace_digest
from ._emit import PHASE, Row, emit_row, row
from ._ending import Ending
from ._readahead import (
    LOOK_AHEAD,
    ON_LOOP_S,
    clock_for,
    first_time,
    read_ahead,
    read_ahead_on_loop,
    recorded,
    replayed,
)
from ._recorded_calls import RecordedCalls

__all__ = [
    "EmptyTraceError",
    "RecordedReplay",
    "RecordedRunCancelled",
    "RecordedRunError",
    "RecordedRunUnfinished",
    "RecordedTimesIgnored",
    "TraceAlreadyImported",
    "TraceAlreadyReadError",
    "import_rows",
    "is_one_shot",
    "rereadable",
]


class RecordedRunError(NoesisNbError):
    """The recorded run itself failed (its log ends in an error); the replayed episode ends ``error``."""


class RecordedRunUnfinished(RecordedRunError):
    """The recorded run never ended (left suspended, or its log cut before the end); the replayed episode ends
    ``error`` naming what is missing, never an ``ok`` success."""


class RecordedRunCancelled(RecordedRunError, AgentCancelled):
    """The recorded run ended cancelled (Noeta's ``TaskCancelled``): the replayed episode is sealed ``cancelled``, as a
    live agent's own cancel is, neither an ``ok`` success nor an ``error``."""


class TraceAlreadyReadError(NoesisNbError, ValueError):
    """A replay's one-shot source (an open file, a generator) was read by an earlier episode."""


class TraceAlreadyImported(UserWarning):
    """The trace was imported into this root before: the run made then is returned instead of a second one."""


class RecordedTimesIgnored(UserWarning):
    """Some recorded times of an imported trace were not used (outside 2000 to a day after the import, a lone jump
    ahead, or none in the first rows of a stream): those rows carry the last known time (see ``store.replayclock``)."""


def _said_late(source: str) -> None:
    """A replay run on a notebook's loop found no recorded time in the rows it could read within ``ON_LOOP_S``."""
    warnings.warn(
        f"this {source} trace gave no row with a recorded time within {ON_LOOP_S} s (a stream still being written?), "
        "and the notebook's loop is not held longer for one: its run is stamped as imported, its recorded times not "
        "used. Give the trace as a path or a list, or import it (import_noetic, import_noeta, import_taisce) to keep them",
        RecordedTimesIgnored,
        stacklevel=user_stacklevel(),
    )


class EmptyTraceError(NoesisNbError, ValueError):
    """A recorded trace with no events at all: nothing to import, and an empty ``ok`` run would say otherwise."""


def _empty(source: str, name: str | None) -> EmptyTraceError:
    """The error for a trace that gave no rows, naming it (``name``: its file, when known) and the fix."""
    given = f" {quoted(name, 200)}" if name else ""
    return EmptyTraceError(
        f"the {source} trace{given} holds no events (an empty file or list, or only blank lines); nothing was "
        "recorded: pass the recorded trace with its events (check the path, and that its writer has finished)"
    )


def rereadable(given: Any, what: str) -> Callable[[], Any]:
    """A zero-argument callable giving ``given`` for each episode of a replay.

    A path, a text or a list can be read again; a one-shot iterator (an open file, a generator) cannot: the
    second call raises :class:`TraceAlreadyReadError` saying so, where the replay would otherwise record an
    empty run as if the trace held nothing.
    """
    if isinstance(given, (str, bytes, os.PathLike)) or not is_one_shot(given):
        return lambda: given
    read = False

    def once() -> Any:
        nonlocal read
        if read:
            raise TraceAlreadyReadError(
                f"this {what} replay was given a one-shot {type(given).__name__} (an open file, a generator or an "
                "iterator), which an earlier episode already read; pass the log's path or a list, which can be read "
                "again, or build a new replay for each episode"
            )
        read = True
        return given

    return once


def is_one_shot(value: Any) -> bool:
    """True for an iterator (an open file, a generator): read once, and possibly still being written."""
    try:
        return iter(value) is value
    except TypeError:
        return False


class RecordedReplay:
    """Replay ``rows`` (an iterable of ``(phase, payload)``, or a zero-argument callable giving one).

    The episode's result is ``result`` when given, else the recorded final answer (the last
    ``run_finished`` answer/result, a recorded ``answer``, or the last non-user message text);
    ``output`` maps it. A trace that does not show its run ending ends ``error`` (:class:`RecordedRunUnfinished`):
    ``end_names`` names the source's end events in its message, ``end_required`` says every complete trace of the
    source holds one (see ``_ending.Ending``). ``timed``: its rows may carry recorded times, which stamp the run's
    events (:meth:`episode_clock`) whether the replay is given to ``import_rows``, ``solve`` or ``start``.
    """

    def __init__(
        self,
        rows: Iterable[Row] | Callable[[], Iterable[Row]],
        *,
        source: str,
        result: Any = None,
        output: Callable[[Any], Any] | None = None,
        end_names: str = "run_finished row",
        end_required: bool = False,
        timed: bool = True,
    ):
        self.rows = rows if callable(rows) else rereadable(rows, source)
        self.source, self.result, self.output = source, result, output
        self.end_names, self.end_required, self.timed = end_names, end_required, timed
        # the run's clock when ``import_rows`` made this replay: each row's event is stamped with its recorded time
        self.replay_clock: ReplayClock | None = None
        # episode id -> (its clock, its rows: those read ahead for the clock first), from ``episode_clock``
        self._prepared: dict[str, tuple[ReplayClock, Iterable[Row]]] = {}

    def ending(self) -> Ending:
        """A fresh judge of whether this source's trace ended."""
        return Ending(self.end_names, end_required=self.end_required)

    def __repr__(self) -> str:
        return f"RecordedReplay(source={quoted(self.source)})"

    def episode_clock(self, episode_id: str) -> ReplayClock:
        """The clock of the episode ``episode_id`` about to run this replay (the runtime asks before the run's first
        event, for ``solve``, ``start`` and a batch alike): the one ``import_rows`` made, else one started at the
        trace's first recorded time, the rows read ahead to find it kept for :meth:`invoke`."""
        if self.replay_clock is not None:
            return self.replay_clock
        ahead: list[Row] = []
        failure: Exception | None
        try:
            items: Iterator[Row] = iter(self.rows())
        except Exception as exc:  # a one-shot source read before, a missing log: the run ends ``error`` with it
            items, failure, start = iter(()), exc, None
        else:
            if running_loop() is not None:  # a notebook's loop (start, a batch): never held longer than ON_LOOP_S
                start, first, late = read_ahead_on_loop(items, ahead, self.timed)
                clock = clock_for(start, LOOK_AHEAD if late else len(ahead), self.timed)
                if late:
                    _said_late(self.source)
                self._prepared[episode_id] = (clock, itertools.chain(first, items))
                return clock
            start, failure = read_ahead(items, ahead, self.timed)
        clock = clock_for(start, len(ahead), self.timed)
        self._prepared[episode_id] = (clock, itertools.chain(replayed(ahead, failure), items))
        return clock

    def invoke(self, task: Any, ctx: Any) -> Any:
        prepared = self._prepared.pop(getattr(ctx, "episode_id", ""), None)
        clock, items = prepared if prepared is not None else (self.replay_clock, self.rows())
        said = _Said(self.ending())

        def write(item: Row) -> None:
            if clock is not None:
                clock.advance(*recorded(item))
            emit_row(ctx, item)
            said.see(item[1])

        def now() -> str | None:
            return None if clock is None or clock.at is None else iso_of(clock.at)

        calls = RecordedCalls(ctx, self.source, write, now)  # each tool call the trace records made a draft
        rows = iter(items)
        seen = False
        for item in rows:
            seen = True
            calls.take(item, rows)
        answer, failure, cancelled, ending = said.answer, said.failure, said.cancelled, said.ending
        if not seen:
            raise _empty(self.source, None)
        if clock is not None:
            clock.finish()
        if failure is not None and cancelled:
            raise RecordedRunCancelled(f"the recorded {self.source} run ended cancelled: {failure}")
        if failure is not None:
            raise RecordedRunError(f"the recorded {self.source} run failed: {failure}")
        missing = ending.missing()
        if missing is not None:
            emit_row(ctx, row(PHASE, self.source, "run_unfinished", "run_unfinished", error=missing))
            raise RecordedRunUnfinished(f"the recorded {self.source} run did not finish: {missing}")
        value = self.result if self.result is not None else answer
        return self.output(value) if self.output else value  # an awaitable here is awaited by the engine


class _Said:
    """What a replay's rows said so far: its answer, its failure (or cancel), and whether it ended (``Ending``)."""

    def __init__(self, ending: Ending):
        self.ending, self.cancelled = ending, False
        self.answer: Any = None
        self.failure: Any = None

    def see(self, payload: dict[str, Any]) -> None:
        kind = payload.get("kind")
        self.ending.see(payload)
        if kind == "run_error":
            self.failure = payload.get("error") or payload.get("message") or "the recorded run failed"
            self.cancelled = False
        elif kind == "run_cancelled":
            self.failure, self.cancelled = f"it was cancelled ({payload.get('event_name')})", True
        elif kind == "run_finished":
            self.failure, self.cancelled = None, False
            found = next((payload[k] for k in ("answer", "result", "text") if payload.get(k) is not None), None)
            self.answer = found if found is not None else self.answer
        elif kind == "message" and payload.get("role") not in ("user", "system") and payload.get("text"):
            self.answer = payload["text"]
        elif payload.get("answer") is not None:  # e.g. a recorded final response
            self.answer = payload["answer"]


def import_rows(
    rows: Iterable[Row] | Callable[[], Iterable[Row]],
    *,
    task: str,
    source: str,
    result: Any = None,
    name: str | None = None,
    whole: bool | None = None,
    end_names: str = "run_finished row",
    end_required: bool = False,
    timed: bool = True,
    reimport: bool = False,
    **opts: Any,
) -> str:
    """Write ``rows`` as a sealed Noēsis run (``solve`` with :class:`RecordedReplay`); returns the episode id.

    The first row is read here, before the run is written: a log that is not there or is not a log at all
    (a missing path, a folder, one event instead of a list) raises its error to the caller rather than
    leaving an ``error`` run behind; so does a trace with no rows (:class:`EmptyTraceError`, naming ``name``, its
    file). A bad row further on still ends the run ``error`` with what came before.

    ``whole``: the trace is complete where it is (a file, a text, a list; the default for a list or tuple of
    rows), so it is read whole first: importing the identical trace (same rows, task and options) into the
    same root again returns the run made the first time, with a :class:`TraceAlreadyImported` warning (see
    ``_dedupe``), and a changed trace makes a new run (``reimport=True``: a new run all the same). Otherwise (an
    open file, a generator: a log that may still be written) rows are replayed as they come, each import a run, and
    a Ctrl-C while waiting for one seals the run cancelled.

    ``end_names`` / ``end_required``: how a trace of this source shows its run ending (see :class:`RecordedReplay`);
    one that does not is sealed ``error`` naming what is missing, and its episode id is returned all the same.

    ``timed``: the source's rows may carry recorded times (``recorded_at``); a stream is then read ahead (up to
    1,000 rows) for its first one, so the run's first events are stamped with it. A source whose rows never carry
    one (Noetic, Taisce) passes False: its run begins at its first row, as a live log's should.
    """
    if whole is None:
        whole = isinstance(rows, (list, tuple))
    items = iter(rows() if callable(rows) else rows)

    def replay_of(given: Iterable[Row], clock: ReplayClock) -> RecordedReplay:
        replay = RecordedReplay(given, source=source, result=result, end_names=end_names, end_required=end_required, timed=timed)
        replay.replay_clock = clock  # the run begins at the trace's first recorded time
        return replay

    if whole:
        return _import_whole(items, replay_of, task=task, source=source, result=result, name=name, reimport=reimport, **opts)
    first = next(items, _NOTHING)
    if first is _NOTHING:
        raise _empty(source, name)
    # rows read until the first known time (at most LOOK_AHEAD): the run's own first events are stamped with it
    ahead = [first]
    with held_interrupts() as held:  # a Ctrl-C while a slow stream is read ahead: its run is then sealed cancelled
        start, failure = read_ahead(items, ahead, timed)
    # solve holds it while it makes the run, then hands it on: the run is sealed cancelled
    carried = carried_interrupt.set(True) if held.seen else None
    replay = replay_of(itertools.chain(replayed(ahead, failure), items), clock_for(start, len(ahead), timed))
    try:
        return _solve_warned(task, replay, opts)  # the engine tags the run with replay.source
    except BaseException:
        _close_quietly(items)
        raise
    finally:
        if carried is not None:  # never carried past this call (solve refused before it made a run)
            carried_interrupt.reset(carried)


def _solve_warned(task: str, replay: RecordedReplay, opts: dict[str, Any]) -> str:
    """``solve`` the replay, then say once how many of its recorded times were not used, and why."""
    try:
        return solve(task, using=replay, **opts)
    finally:
        clock = replay.replay_clock
        said = []
        if clock is not None and clock.outside:
            said.append(
                f"{clock.outside} row(s) had a time outside 2000-01-01 to a day after now (seconds since the task's "
                "start or a monotonic clock, not since 1970?)"
            )
        if clock is not None and clock.jumps:
            said.append(f"{clock.jumps} row(s) had a time more than an hour ahead that the next time did not confirm")
        if clock is not None and clock.unused:
            said.append(
                f"no row of the first {LOOK_AHEAD} had a time, so the run is stamped as imported and the "
                f"{clock.unused} later time(s) were not used (import the trace whole, e.g. as a list, to use them)"
            )
        if said:
            warnings.warn(
                f"recorded times of this {replay.source} trace were not used: {'; '.join(said)}. Those rows carry the "
                "last known time, the source's value kept in their recorded_at; give times in seconds since "
                "1970-01-01 UTC to date them",
                RecordedTimesIgnored,
                stacklevel=4,
            )


def _import_whole(
    items: Iterator[Row],
    replay_of: Callable[[Iterable[Row], ReplayClock], RecordedReplay],
    *,
    task: str,
    source: str,
    result: Any,
    name: str | None,
    reimport: bool = False,
    **opts: Any,
) -> str:
    """``import_rows`` of a complete trace: read it, then return the run an earlier import of it made, or make one.

    Whether the trace ended is part of its digest when it did not: a run imported as ``ok`` from it before that was
    judged is not taken for it."""
    read: list[Row] = []
    failure: Exception | None = None
    try:
        for item in items:
            read.append(item)
    except Exception as exc:  # replayed after the rows before it: the run ends ``error`` with what was read
        failure = exc
    finally:
        _close_quietly(items)
    if not read:
        if failure is not None:
            raise failure
        raise _empty(source, name)
    tags = opts.get("tags")
    start = first_time(read)
    if tags is not None and not isinstance(tags, dict):  # solve names the wrong value
        return _solve_warned(task, replay_of(replayed(read, failure), ReplayClock(start)), opts)
    parts = {"source": source, "task": task, "result": result, "options": {k: v for k, v in opts.items() if k != "runs_dir"}}
    ending = replay_of((), ReplayClock()).ending()
    for item in read:  # a malformed row is the replay's to refuse, not this look's
        payload = item[1] if isinstance(item, tuple) and len(item) == 2 else None
        if isinstance(payload, dict):
            ending.see(payload)
    if (missing := ending.missing()) is not None:
        parts["unfinished"] = missing
    digest = trace_digest(parts, read, failure)
    if opts.get("episode_id") is not None:  # solve's own refusal of the id, before the lock makes the root
        validate_new_episode_id(opts["episode_id"])
    root = config.runs_dir(opts.get("runs_dir"))
    refuse_run_as_root(check_root(root))  # solve's own refusals, before the lock makes the root
    with import_lock(root):
        earlier = None if reimport else imported_before(root, digest)
        if earlier is not None:
            warnings.warn(
                f"this {source} trace was imported into {quoted(str(root))} already, as run {earlier} (same rows, task "
                f"and options: {DIGEST_TAG} {digest[:19]}…); that run is returned. Pass reimport=True (or another task= or "
                "runs_dir=) for a second run",
                TraceAlreadyImported,
                stacklevel=4,
            )
            return earlier
        replay = replay_of(replayed(read, failure), ReplayClock(start))
        return _solve_warned(task, replay, {**opts, "tags": {**(tags or {}), DIGEST_TAG: digest}})


def _close_quietly(items: Any) -> None:
    """Close a log file left open by a run that ended early, without hiding why it ended.

    The engine reads the rows on a worker thread: after a Ctrl-C that thread may still be inside the
    generator, which then cannot be closed (``ValueError: generator already executing``); it is left to
    finish, and the caller sees the run's own outcome (e.g. the episode sealed ``cancelled``).
    """
    close = getattr(items, "close", None)
    if close is None or getattr(items, "gi_running", False):
        return
    try:
        close()
    except Exception:  # a generator that fails while closing; the run's own error is the one to raise
        pass


_NOTHING: Any = object()
