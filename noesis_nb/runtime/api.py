"""Public entry points: ``start``, ``solve_async``, ``solve``, ``approve_draft``, ``reject_draft``, ``resume_run``."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import math
import numbers
import os
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Literal

from .. import config
from .._envvars import APPROVERS, approver_from_env, approver_id_from_env
from .._threads import run_sync
from .._unstarted import awaited_entry
from ..capture import resolve_option as resolve_capture
from ..errors import (
    AmbiguousDraftError,
    CheckpointNotFoundError,
    EpisodeInterrupted,
    EpisodeStateError,
    EventLogCorruption,
    InvalidIdError,
    InvalidOptionError,
    RunNotFoundError,
)
from ..ids import new_episode_id, validate_new_episode_id
from ..secrets.quoted import quoted, typo_hint
from ..store import find_run_dir, is_sealed, read_events_to_continue
from ..store.artifacts import read_state, read_summary
from ..store.paths import check_part
from ..store.replayclock import ReplayClock
from ..store.sealing import refuse_odd_seal
from ..store.shownnames import shown_id
from ..store.status import not_a_run
from ..tools import decide, resolve_draft_id, supply_secrets
from ..tools.draftref import run_part
from ..tools.errors import PreparedToolInvocationNotFoundError
from .asked import refuse_unanswerable
from .episode import Episode, EpisodeOptions
from .gate import Decision, check_decision_options, tell_if_overruled, to_decision
from .handle import EpisodeHandle
from .interrupt import HeldInterrupt, held_interrupts, interrupted, interrupted_before_resume, watch_interrupts
from .position import last_pause, payload_of
from .recorder import Recorder
from .registry import forget, live_handles, register
from .resolve import refuse_non_adapter, resolve_using
from .resume import (
    NothingToResume,
    ResumeReport,
    check_resume_options,
    interrupted_resume,
    pause_in,
    resume_from_disk,
)
from .resume_paths import checkpoint_problem
from .rootlink import warn_if_default_root_linked
from .solved import SolvedId
from .tags import checked_tags
from .undecided import undecided_drafts
from .vetoes import decide_veto_on_disk, read_veto_decision

__all__ = [
    "start",
    "solve",
    "solve_async",
    "resume_run",
    "resume_run_async",
    "approve_draft",
    "reject_draft",
    "live_handles",
    "RunRecovered",
]

_APPROVERS = APPROVERS


class RunRecovered(UserWarning):
    """``resume_run`` completed a seal a crash cut short, or sealed a run whose process died (reason ``process_lost``)."""


def _options(
    task: Any,
    *,
    seed: int,
    tags: dict[str, Any] | None,
    governance: str | None,
    approver: Any,
    idle_timeout_s: float | None,
    pause_on_veto: bool | None,
    wait_for_human: bool,
    capture: bool | None = None,
) -> EpisodeOptions:
    _check_task(task)
    mode = governance if governance is not None else config.get("governance_mode")
    if mode not in ("off", "audit", "enforce"):
        hint = typo_hint(mode, ("off", "audit", "enforce"))
        raise InvalidOptionError(f"governance={quoted(mode)}{hint}: use 'off', 'audit' or 'enforce'")
    config.check_env_names()
    if approver is None:
        approver = approver_from_env()  # a wrong value is named, redacted
    if isinstance(approver, str) and approver not in _APPROVERS:
        raise InvalidOptionError(
            f"approver={quoted(approver)}{typo_hint(approver, _APPROVERS)}: use 'ask', 'auto', "
            "'deny' or a callable taking a PendingApproval"
        )
    if not isinstance(approver, str) and not callable(approver):
        raise InvalidOptionError(f"approver={quoted(approver)} is neither one of {_APPROVERS} nor callable")
    if not isinstance(approver, str):
        _check_approver_signature(approver)
    if type(seed) is bool or not isinstance(seed, numbers.Integral) or not -(2**63) <= seed < 2**63:
        raise InvalidOptionError(f"seed={quoted(seed, 60)}: pass a whole number (within 64 bits) such as 0 or 42")
    if idle_timeout_s is not None and (
        isinstance(idle_timeout_s, bool) or not isinstance(idle_timeout_s, (int, float)) or not 0 < idle_timeout_s < float("inf")
    ):
        raise InvalidOptionError(
            f"idle_timeout_s={quoted(idle_timeout_s)}: pass a positive number of seconds, or None for no limit"
        )
    tags = checked_tags(tags)  # what comes back from JSON as it went in, or one error naming the key
    if pause_on_veto is not None and not isinstance(pause_on_veto, bool):  # bool("no") is True
        raise InvalidOptionError(f"pause_on_veto={quoted(pause_on_veto)}: pass True or False (or leave it out for the default)")
    return EpisodeOptions(
        task=task,
        seed=int(seed),  # numpy's integers too
        tags=tags,
        governance=mode,
        failure_policy=config.get("governance_failure_policy"),
        pause_on_veto=config.get("governance_pause_on_veto") if pause_on_veto is None else bool(pause_on_veto),
        approver=approver,
        idle_timeout_s=idle_timeout_s,
        wait_for_human=wait_for_human,
        capture=resolve_capture(capture),
    )


def _check_task(task: Any) -> None:
    """The task is the text the agent works on; a function there is an adapter given in the task's place."""
    if callable(task) and not isinstance(task, str):
        name = str(getattr(task, "__name__", type(task).__name__))[:60]
        raise InvalidOptionError(
            f"task={name} is a function: the task is the text the agent works on and the agent goes in "
            f"using=, e.g. solve('Tag release v1.2.0', using={name})"
        )
    if not isinstance(task, str) or not task.strip():
        raise InvalidOptionError(f"task must be a non-empty string, got {quoted(task)}")


@dataclass(frozen=True)
class _Signature:
    """What a callable given as a hook (approver, scorer) can take: checked before the run, so a wrong one is
    named at once rather than failing at its first call."""

    name: str
    positional: list[str]  # positional parameters, by name
    required: list[str]  # the positional ones without a default
    keywords: list[str]  # keyword-only parameters without a default
    star_args: bool  # takes *args

    @classmethod
    def of(cls, fn: Any) -> _Signature | None:
        """None when the signature cannot be read (a builtin, a C extension): the call itself will say."""
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return None
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return cls(
            name=getattr(fn, "__name__", type(fn).__name__),
            positional=[p.name for p in positional],
            required=[p.name for p in positional if p.default is p.empty],
            keywords=[p.name for p in params if p.kind == p.KEYWORD_ONLY and p.default is p.empty],
            star_args=any(p.kind == p.VAR_POSITIONAL for p in params),
        )


def _check_approver_signature(approver: Any) -> None:
    """An approver is called with one argument, the ``PendingApproval``: a signature that cannot take it fails
    at the first tool call that needs a decision, so it is named before the run starts."""
    sig = _Signature.of(approver)
    if sig is None:
        return
    name, positional, required, keywords = sig.name, sig.positional, sig.required, sig.keywords
    fix = "an approver is called as approver(pending) with a PendingApproval and returns True/False, (bool, reason) or None"
    if not positional and not sig.star_args:
        raise InvalidOptionError(f"approver={name} takes no argument; {fix}")
    if len(required) > 1:
        raise InvalidOptionError(
            f"approver={name} requires {len(required)} arguments ({', '.join(required)}); {fix}: give the others "
            "defaults, or bind them with functools.partial"
        )
    if keywords:
        raise InvalidOptionError(f"approver={name} requires the keyword argument(s) {', '.join(keywords)}; {fix}")


def check_scorer(score: Any) -> None:
    """A scorer is called as ``score(task, result)``: one that cannot take both would fail only after the
    episode ran (its run left without a score), so it is named before anything starts."""
    if score is None:
        return
    if not callable(score):
        raise InvalidOptionError(f"score={quoted(score, 80)} is not callable; pass a function (task, result) -> number or bool")
    sig = _Signature.of(score)
    if sig is None:
        return
    name, positional, required, keywords = sig.name, sig.positional, sig.required, sig.keywords
    fix = "a scorer is called as score(task, result) and returns a number or a bool, e.g. lambda task, result: ..."
    if len(positional) < 2 and not sig.star_args:
        taken = f"{len(positional)} argument{'s' if len(positional) != 1 else ''}" + (
            f" ({', '.join(positional)})" if positional else ""
        )
        raise InvalidOptionError(f"score={name} takes {taken}; {fix}")
    if len(required) > 2 or keywords:
        extra = required[2:] + keywords
        raise InvalidOptionError(f"score={name} requires more arguments ({', '.join(extra)}); {fix}")


#: how long a scorer may take by default: far longer than an LLM judge's call with its retries (tens of seconds),
#: short enough that one hung scorer does not hold its batch entry (and ``await batch``) for good
SCORE_TIMEOUT_S = 300.0


def check_score_timeout(value: Any) -> float | None:
    """``score_timeout_s``: a positive number of seconds, or None for no limit (as ``idle_timeout_s``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) > 0:
        raise InvalidOptionError(
            f"score_timeout_s={quoted(value, 60)}: pass a positive number of seconds such as 60, or None to wait for the "
            "scorer however long it takes"
        )
    return None if math.isinf(value) else float(value)


def check_episode_options(
    *,
    seed: int = 0,
    tags: dict[str, Any] | None = None,
    governance: str | None = None,
    approver: Any = None,
    idle_timeout_s: float | None = None,
    pause_on_veto: bool | None = None,
    capture: bool | None = None,
) -> None:
    """The checks ``start`` makes of its options, without starting anything (a batch checks once, up front)."""
    _options(
        "check",
        seed=seed,
        tags=tags,
        governance=governance,
        approver=approver,
        idle_timeout_s=idle_timeout_s,
        pause_on_veto=pause_on_veto,
        wait_for_human=True,
        capture=capture,
    )


def _checked_options(
    task: Any,
    *,
    runs_dir: Any,
    wait_for_human: bool,
    seed: int = 0,
    tags: dict[str, Any] | None = None,
    governance: str | None = None,
    approver: Any = None,
    idle_timeout_s: float | None = None,
    pause_on_veto: bool | None = None,
    intuition: Any = True,
    capture: bool | None = None,
    score: Any = None,
    score_timeout_s: Any = SCORE_TIMEOUT_S,
    episode_id: str | None = None,
    inputs: dict[str, Any] | None = None,
    batch: dict[str, Any] | None = None,
    **unknown: Any,
) -> _Checked:
    """The caller's task and options checked, without resolving ``using=`` (a factory may do work) or writing
    anything: what ``create_episode`` goes on from, and what ``start`` checks when no loop runs."""
    if unknown:
        raise InvalidOptionError.unknown(
            unknown,
            (
                "runs_dir",
                "seed",
                "tags",
                "governance",
                "approver",
                "idle_timeout_s",
                "pause_on_veto",
                "capture",
                "score",
                "score_timeout_s",
            ),
            "an episode",
        )
    check_scorer(score)
    _check_task(task)  # before using=: a task and an adapter given the other way round are named as such
    options = _options(  # the caller's options before using= is resolved (which may import a module)
        task,
        seed=seed,
        tags=tags,
        governance=governance,
        approver=approver,
        idle_timeout_s=idle_timeout_s,
        pause_on_veto=pause_on_veto,
        wait_for_human=wait_for_human,
        capture=capture,
    )
    options.score = score
    options.score_timeout_s = check_score_timeout(score_timeout_s)
    options.inputs = dict(inputs or {})
    episode_id = validate_new_episode_id(episode_id) if episode_id is not None else new_episode_id()
    config.runs_dir(runs_dir)  # its name checked (a control character in it is refused), nothing made
    extension: dict[str, Any] = {
        "approver": approver if isinstance(approver, str) or approver is None else getattr(approver, "__name__", "callable"),
        "governance_mode": options.governance,
        "failure_policy": options.failure_policy,
        "pause_on_veto": options.pause_on_veto,
        "idle_timeout_s": idle_timeout_s,
        "capture": options.capture,
        **({"inputs": options.inputs} if options.inputs else {}),
        **({"batch": dict(batch)} if batch else {}),
    }
    return _Checked(options, episode_id, extension)


@dataclass(frozen=True)
class _Checked:
    options: EpisodeOptions
    episode_id: str
    extension: dict[str, Any]


def create_episode(task: Any, using: Any, *, runs_dir: Any, wait_for_human: bool, **opts: Any) -> Episode:
    """An episode ready to run: options checked (``_checked_options``: seed, tags, governance, approver,
    idle_timeout_s, pause_on_veto, capture, score, score_timeout_s, episode_id, inputs, batch), its run directory
    created (``episode_id`` chosen ahead, or new).

    ``inputs`` reach the adapter as ``ctx.inputs``; ``batch`` (batch id, task index, adapter name) is recorded in
    the run's state and summary under ``x-noesis_nb.batch``.

    Every entry point makes its run here, and here an interrupt (Ctrl-C, the kernel's ■) is held back while the run
    is made (never half made, left locked, by a KeyboardInterrupt between two of its writes), then handed on once it
    exists: a handler that raises it (a script, a sync cell) gets the run sealed ``cancelled`` and the one
    ``EpisodeInterrupted`` line instead; one that cancels (an async cell's, ``asyncio.run``'s) cancels as it would.

    A caller whose SIGINT may raise makes it inside a hold of its own, taking it on in a ``try`` that seals it
    (``solve``, ``solve_async``, ``create_and_launch``): once this hold ends, one landing before the caller holds the
    run (on the call's return, before its result is even stored) would leave it made, locked and nobody's.
    """
    with held_interrupts() as held:
        episode = _made_episode(task, using, runs_dir=runs_dir, wait_for_human=wait_for_human, **opts)
        _hand_on(held, episode)  # sealed while still held: a second Ctrl-C does not cut the seal short
    if held.seen:  # one that landed as the hold ended (no call before this test: nothing a signal could land in)
        _hand_on(held, episode)
    return episode


def _hand_on(held: HeldInterrupt, episode: Episode, task_: asyncio.Task[Any] | None = None) -> None:
    """Hand a held interrupt to the handler it was held from; one raising it gets ``episode`` (made, never begun:
    its ``task_``, if launched, has not taken a step) sealed ``cancelled`` and ``EpisodeInterrupted`` instead."""
    try:
        held.deliver()
    except KeyboardInterrupt:
        with held_interrupts():  # a second Ctrl-C while the run is sealed cancelled: the same one line, a whole seal
            if task_ is not None:
                task_.cancel()  # its coroutine never runs
            episode.cancel_unstarted()
        raise interrupted(episode) from None


def _made_episode(task: Any, using: Any, *, runs_dir: Any, wait_for_human: bool, **opts: Any) -> Episode:
    checked = _checked_options(task, runs_dir=runs_dir, wait_for_human=wait_for_human, **opts)
    options = checked.options
    adapter = resolve_using(using)
    source = getattr(adapter.target, "source", None)  # integration adapters name their system
    if isinstance(source, str) and source:
        options.tags = {"source": source, **options.tags}
    warn_if_default_root_linked(runs_dir)
    recorder = Recorder.create(
        config.runs_dir(runs_dir),
        checked.episode_id,
        task=options.task,
        seed=options.seed,
        tags=options.tags,
        adapter_label=adapter.label,
        extension=checked.extension,
    )
    # a recorded trace (``integrations.replay.RecordedReplay``) stamps its run with its recorded times, whichever
    # entry point runs it (solve, start, a batch, an import): its class gives the clock, read before the first event
    make = getattr(type(adapter.target), "episode_clock", None)
    clock = make(adapter.target, checked.episode_id) if callable(make) else None
    recorder.writer.clock = clock if isinstance(clock, ReplayClock) else None
    return Episode(adapter, options, recorder)


def in_thread(instead: str = "use noesis_nb.solve(...) there (it blocks that thread until the episode ends)") -> str | None:
    """The fix for a loop-bound call made from a thread of its own (a notebook's loop runs on the main thread)."""
    if threading.current_thread() is threading.main_thread():
        return None
    return f"this is thread {threading.current_thread().name!r}, which runs no loop: call it from the cell itself, or {instead}"


def start(task: str, using: Any, **opts: Any) -> EpisodeHandle:
    """Schedule an episode on the running loop (a notebook cell's) and return its handle at once.

    Without a running loop its task and options are checked first, as ``batch`` checks them: a wrong one is named
    (``idle_timeout_s=nan``, ``governance='Enforce'``) rather than the loop alone, so one fix is not followed by another
    refusal."""
    runs_dir = opts.pop("runs_dir", None)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is None:
        _checked_options(task, runs_dir=runs_dir, wait_for_human=True, **opts)  # the task first, as create_episode
        refuse_non_adapter(using)  # on its face: nothing imported or called
        raise EpisodeStateError(
            "start() needs a running event loop (a notebook cell, or inside `async def`); "
            + (in_thread() or "from plain scripts use noesis_nb.solve(...)")
        )
    return create_and_launch(task, using, loop, runs_dir=runs_dir, **opts)


def create_and_launch(task: Any, using: Any, loop: asyncio.AbstractEventLoop, *, runs_dir: Any, **opts: Any) -> EpisodeHandle:
    """``create_episode`` and its launch as a background task on ``loop`` (the caller's running loop), under one hold
    of interrupts until its task is on ``loop``: its run made and never left unowned (``start``, a batch's entries).
    After the hold this runs no call a signal could land in but the test of what it held: one landing later meets a
    run its task owns, as one landing after the return would."""
    with held_interrupts() as held:
        episode = create_episode(task, using, runs_dir=runs_dir, wait_for_human=True, **opts)
        handle, task_ = _launched(episode, loop)
        _hand_on(held, episode, task_)
    if held.seen:  # one that landed as the hold ended
        _hand_on(held, episode, task_)
    return handle


def _launched(episode: Episode, loop: asyncio.AbstractEventLoop) -> tuple[EpisodeHandle, asyncio.Task[Any]]:
    episode.loop = loop
    episode.reraise_exits = False  # nobody awaits this task: a KeyboardInterrupt raised out of it would stop the loop
    task_ = loop.create_task(episode.run(), name=f"noesis_nb:{episode.recorder.episode_id}")
    handle = EpisodeHandle(episode, task_)
    register(handle)
    task_.add_done_callback(lambda t: _forget(handle.episode_id, t))
    return handle, task_


def _forget(episode_id: str, task: asyncio.Future[Any]) -> None:
    forget(episode_id)
    if not task.cancelled():
        task.exception()  # retrieved: errors live on the handle and in the run, not in loop logs


@awaited_entry("noesis_nb.solve_async(…)")
async def solve_async(task: str, using: Any, **opts: Any) -> str:
    """Run an episode to its end (or to a pause for a human) on this loop; returns the episode id.

    ``using`` may be given by position, as for ``start`` (``ns.solve`` keeps Noēsis' keyword-only form)."""
    runs_dir, episode = opts.pop("runs_dir", None), None
    with watch_interrupts() as watch:  # before the run is made: an interrupt then cancels its first step
        try:
            with held_interrupts() as held:  # until this try holds the episode, on a loop whose SIGINT raises
                episode = create_episode(task, using, runs_dir=runs_dir, wait_for_human=False, **opts)
            held.deliver()
            await episode.run()
        except asyncio.CancelledError:
            if watch.seen and episode is not None:  # the kernel's interrupt: one line saying what became of the run
                raise interrupted(episode) from None
            raise
        except KeyboardInterrupt as exc:  # a loop whose SIGINT raises (a sync-run loop, a patched one), as solve
            said = _interrupted_unless_begun(episode, exc)
            if said is None:
                raise
            raise said from None
    return episode.recorder.episode_id


def solve(task: str, using: Any, **opts: Any) -> str:
    """Sync ``solve_async``: ``asyncio.run`` outside a loop; a worker thread with its own loop inside one.

    Returns the episode's id once the episode has ended (a ``str``; ``await noesis_nb.solve(...)`` gives the
    same id back, with a warning that the await waited for nothing: ``start`` returns at once in a notebook).
    An interrupt (Ctrl-C, the kernel's ■) cancels the episode, which seals its run ``cancelled``,
    and raises ``EpisodeInterrupted`` saying so."""
    runs_dir, episode = opts.pop("runs_dir", None), None
    try:
        with held_interrupts() as held:  # until this try holds the episode: an interrupt then seals its run
            episode = create_episode(task, using, runs_dir=runs_dir, wait_for_human=False, **opts)
        held.deliver()
        run_sync(episode.run())
    except KeyboardInterrupt as exc:
        said = _interrupted_unless_begun(episode, exc)
        if said is None:
            raise
        raise said from None
    except asyncio.CancelledError:
        # cancelled before its first step: asyncio.run's own SIGINT handler, a Ctrl-C in the instant before it counts
        # interrupts (it then raises the cancellation, not KeyboardInterrupt); nothing else cancels it there
        if episode is None or episode.loop is not None:
            raise
        episode.cancel_unstarted()
        raise interrupted(episode) from None
    return SolvedId(episode.recorder.episode_id)


def _interrupted_unless_begun(episode: Episode | None, exc: KeyboardInterrupt) -> EpisodeInterrupted | None:
    """What a ``KeyboardInterrupt`` out of ``solve``/``solve_async`` becomes: itself (None) before any run was made
    (``create_episode`` hands on one landing while it makes it) or when it is the adapter's own, raised again after
    its run was sealed (or left paused); else the run, sealed ``cancelled`` if it never began (held: a second Ctrl-C
    does not cut the seal short), and the one ``EpisodeInterrupted`` line."""
    if episode is None or exc is episode.error:
        return None
    if episode.loop is None:  # stopped before it began: nothing else will seal its run
        with held_interrupts():
            episode.cancel_unstarted()
    return interrupted(episode)


# -- decisions and resume for runs on disk ----------------------------------------------------
def _live_and_gone(target: Any) -> EpisodeHandle | None:
    """The live episode ``target`` names (its id or its run directory) when its run directory is gone from there."""
    if not isinstance(target, (str, os.PathLike)):
        return None
    live = live_handles().get(Path(os.fspath(target)).name)
    if live is None or live.done() or live.run_dir.is_dir():
        return None
    named = isinstance(target, str) and "/" not in target and os.sep not in target
    return live if named or Path(os.fspath(target)).expanduser().absolute() == live.run_dir.absolute() else None


def _find_run(target: Any, runs_dir: Any) -> Path:
    """``find_run_dir``, and a whole draft id given in the episode's place named as such, with the call to make."""
    try:
        return find_run_dir(target, runs_dir)
    except RunNotFoundError:
        owner = run_part(target)
        if owner is None:
            raise
        raise RunNotFoundError(
            f"{quoted(target)} is a draft id, not an episode id; pass the episode and the draft apart: "
            f"approve_draft({quoted(owner)}, draft_id={quoted(target)}, approver_id=...) or reject_draft(...), then "
            f"resume_run({quoted(owner)})"
        ) from None


def decide_draft(
    target: str | os.PathLike[str], draft_id: str | None, *, approve: bool, approver_id: str, reason: str | None, runs_dir: Any
) -> Decision:
    """``approve_draft`` / ``reject_draft`` without their ``DecisionStands`` warning (for callers that say it their way)."""
    check_decision_options(draft_id, approver_id, reason)  # before the run is looked up
    try:
        run_dir = _find_run(target, runs_dir)
    except Exception:
        gone = _live_and_gone(target)
        if gone is None:
            raise
        run_dir = gone.run_dir  # its handle says the run was removed or moved (RunGoneError), not "no such run"
    with run_name_shown(run_dir):
        return _decided(run_dir, draft_id, approve=approve, approver_id=approver_id, reason=reason)


@contextlib.contextmanager
def run_name_shown(run_dir: Path) -> Iterator[None]:
    """Errors raised within quote the run's folder name as every view shows it (``shown_id``): a folder named with a
    credential (``ep_ghp_…`` copied into a shared root), shown ``[REDACTED:<mark>]`` by ``runs_df``, was named in clear
    by every message of a decision or resume made on it, whether its shown path or its real one was passed. One
    place for all of them: the many messages that name ``run_dir.name`` or the run's id, and whatever error escapes
    (an ``OSError`` naming a file of the run), with the errors it carries (``_name_hidden``)."""
    try:
        yield
    except BaseException as exc:
        _name_hidden(exc, run_dir.name)
        raise


def _name_hidden(exc: BaseException, name: str) -> None:
    """``exc`` naming ``name`` (a run folder's) as views show it, and every error it carries: its cause and context
    (printed by a traceback; a suppressed one read by code), a group's errors. In each: its arguments (the message, a
    ``KeyError``'s key), its notes, an ``OSError``'s ``strerror``, ``filename`` and ``filename2`` (a traceback prints
    them), and its text or path attributes (``UnreadableRunFile.path``, an error's ``episode_id``)."""
    shown = shown_id(name)
    if shown == name:
        return

    def hidden(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(name, shown) if name in value else value
        if isinstance(value, PurePath) and name in str(value):
            return type(value)(str(value).replace(name, shown))
        return value

    todo, seen = [exc], set()
    while todo:
        err = todo.pop()
        if id(err) in seen:  # (a context may lead back to an error met before)
            continue
        seen.add(id(err))
        err.args = tuple(hidden(a) for a in err.args)
        attrs = ["__notes__", *(vars(err) if hasattr(err, "__dict__") else ())]
        if isinstance(err, OSError):
            attrs += ["strerror", "filename", "filename2"]
        for attr in dict.fromkeys(attrs):
            value = getattr(err, attr, None)
            if isinstance(value, list):  # the notes, a list of paths
                new: Any = [hidden(v) for v in value]
                changed = new != value
            else:
                new = hidden(value)
                changed = new is not value
            if changed:
                with contextlib.suppress(AttributeError, TypeError):  # a read-only property is left as it is
                    setattr(err, attr, new)
        todo += [e for e in (err.__cause__, err.__context__) if e is not None]
        if isinstance(err, BaseExceptionGroup):
            todo += err.exceptions


def _report_shown(report: ResumeReport, run_dir: Path) -> ResumeReport:
    """``report`` naming the run as views show it (``run_name_shown``): its id is returned by ``resume_run``, and its
    message said as a warning."""
    name = run_dir.name
    shown = shown_id(name)
    if shown == name or name not in report.episode_id + report.message:
        return report
    return dataclasses.replace(
        report, episode_id=report.episode_id.replace(name, shown), message=report.message.replace(name, shown)
    )


def _decided(run_dir: Path, draft_id: str | None, *, approve: bool, approver_id: str, reason: str | None) -> Decision:
    """``decide_draft`` on the run found at ``run_dir``."""
    refuse_odd_seal(run_dir)  # a folder or link where final.json or manifest.json goes: no decision is written
    live = live_handles().get(run_dir.name)
    if live is not None and live.run_dir.resolve() == run_dir.resolve():
        return live._decide(draft_id, approve, approver_id, reason)  # the caller's function says a decision that stands
    _refuse_no_run(run_dir)  # after a live episode's own say (its folder removed or moved: RunGoneError)
    unread: list[EventLogCorruption] = []  # lines of the log a pause may be on
    if draft_id is None:  # the draft (or veto) the run is paused on; a late decision gets the first one back
        sealed = is_sealed(run_dir)
        cut: list[EventLogCorruption] = []
        events = read_events_to_continue(run_dir / "events.jsonl", strict=False, errors=cut)  # read once, for all below
        unread = [] if sealed else cut
        waiting = None if sealed else pause_in(events)
        late = None if waiting else pause_in(events, resumed_too=True)
        if waiting and waiting[0] == "draft":  # its pause's checkpoint unreadable: resume_run could never use a decision
            _refuse_lost_checkpoint(run_dir, events)
        if waiting and waiting[0] == "veto":  # a governance veto, not a tool draft: override or uphold it
            return decide_veto_on_disk(run_dir, waiting[1], override=approve, approver_id=approver_id, reason=reason)
        if late and late[0] == "veto":
            existing = read_veto_decision(run_dir, late[1])
            if existing is None:
                raise EpisodeStateError(_veto_resumed(run_dir.name, sealed))
            return Decision(
                draft_id="",
                status="approved" if existing["decision"] == "override" else "rejected",
                approver_id=existing.get("approver_id"),
                reason=existing.get("reason"),
                decided_at=existing.get("decided_at"),
                created=False,
            )
        chosen = waiting or late
        if chosen is not None:
            draft_id = chosen[1]
        if waiting is not None or (late is not None and not sealed):
            # parallel drafts (paused on, or waited on when the process died): "the draft" is the one left undecided
            draft_id = _the_undecided(run_dir, draft_id, events)
    try:
        draft = resolve_draft_id(run_dir, draft_id)
    except PreparedToolInvocationNotFoundError as exc:
        if not unread:
            raise
        raise PreparedToolInvocationNotFoundError(f"{exc} {_unread_note(unread)}") from None
    if approve:  # an approval the asking system (gone with its process) could never receive: refused, unrecorded
        refuse_unanswerable(run_dir, draft)
    record, created = decide(run_dir, draft, approve=approve, approver_id=approver_id, reason=reason)
    return to_decision(record, created)


def _refuse_lost_checkpoint(run_dir: Path, events: list[dict[str, Any]]) -> None:
    """Refuse to record a decision on a run whose pause's checkpoint cannot be read (``checkpoint_problem``): the run
    could never be resumed with it. Asked only where the log is read already (a decision without ``draft_id``); one
    naming its draft is recorded, and ``resume_run`` says what is wrong with the checkpoint."""
    pause = last_pause(events)
    named = payload_of(pause.checkpoint_event).get("checkpoint_id") if pause is not None else None
    try:
        checkpoint_id = check_part(named, "checkpoint id") if isinstance(named, str) else None
    except InvalidIdError:
        return  # resume_run names it
    problem = checkpoint_problem(run_dir, checkpoint_id) if checkpoint_id is not None else None
    if problem is not None:
        raise CheckpointNotFoundError(f"{problem}. No decision was recorded: decide the draft once it is restored")


def _refuse_no_run(run_dir: Path) -> None:
    """Refuse a folder that is no run (``not_a_run``) before asking whether it runs: nothing there ever started."""
    log = run_dir / "events.jsonl"
    logged = log.is_file() and log.stat().st_size > 0
    nothing = not_a_run(run_dir, read_summary(run_dir), read_state(run_dir), logged)
    if nothing is not None:
        raise EpisodeStateError(
            f"{quoted(str(run_dir))} is not a run: {nothing}, so it has no draft to decide; pass the folder of a run "
            "paused on a draft (noesis_nb.runs_df() lists them, pending_approvals > 0)"
        )


def _veto_resumed(episode_id: str, sealed: bool) -> str:
    """Why a veto pause takes no decision once ``resume_run`` resumed it with none (its go-ahead, as in Noēsis)."""
    run = quoted(episode_id)
    then = (
        "the run has ended since"
        if sealed
        else f"if its process stopped since, resume_run({run}, using=<its adapter>) continues it"
    )
    return (
        f"run {episode_id} was paused on a governance veto that resume_run resumed with no decision recorded (the "
        f"go-ahead: it went on as overridden); nothing waits for a decision any more, and {then}"
    )


def _the_undecided(run_dir: Path, first: str | None, events: list[dict[str, Any]]) -> str | None:
    """The draft a decision without ``draft_id`` is for, on a run paused on drafts: the one still undecided; several
    undecided refuse it (approving one of them, unsaid, would leave the others waiting unseen). ``events``: the
    run's log, as the caller read it."""
    undecided = undecided_drafts(run_dir, events)
    if len(undecided) == 1:
        return undecided[0][0]
    if len(undecided) > 1:
        named = ", ".join(f"{quoted(draft)} ({quoted(tool)})" for draft, tool in undecided)
        target = quoted(str(run_dir))  # its folder: found from any working folder, whatever runs dir is set
        raise AmbiguousDraftError(
            f"run {run_dir.name} waits on {len(undecided)} drafts: {named}; pass draft_id= to decide each "
            f"(approve_draft({target}, draft_id=..., approver_id=...)), then resume_run({target})"
        )
    return first


def _unread_note(unread: list[EventLogCorruption]) -> str:
    """Why the pause may not have been found: the events file, or its lines, that could not be read."""
    first = unread[0]
    where = first.path if first.line_number == 0 else f"{first.path}, line {first.line_number}"
    more = f" (and {len(unread) - 1} more lines)" if len(unread) > 1 else ""
    return (
        f"The run's log could not be read whole ({where}: {first.reason}{more}), so the pause it waits on "
        "may be in what was left out: restore the file to decide it."
    )


def approve_draft(
    episode_id_or_run_dir: str | os.PathLike[str],
    draft_id: str | None = None,
    *,
    approver_id: str | None = None,
    reason: str | None = None,
    runs_dir: Any = None,
) -> Decision:
    """Persist an approval bound to the draft's fingerprint (idempotent); ``resume_run`` then executes it.

    ``approver_id``: who decides, recorded in the decision; by default ``$NOESIS_NB_APPROVER_ID``, else ``"human"``
    (as ``reject_draft``, the view's buttons and ``%noesis approve`` record it)."""
    decision = decide_draft(
        episode_id_or_run_dir,
        draft_id,
        approve=True,
        approver_id=approver_id_from_env(approver_id),
        reason=reason,
        runs_dir=runs_dir,
    )
    return tell_if_overruled(decision, True, stacklevel=2)


def reject_draft(
    episode_id_or_run_dir: str | os.PathLike[str],
    draft_id: str | None = None,
    *,
    reason: str | None = None,
    approver_id: str | None = None,
    runs_dir: Any = None,
) -> Decision:
    """Persist a rejection (idempotent; a draft already approved stays approved).

    ``approver_id``: who decides, recorded in the decision; by default ``$NOESIS_NB_APPROVER_ID``, else ``"human"``
    (as ``approve_draft``, the view's buttons and ``%noesis reject`` record it)."""
    decision = decide_draft(
        episode_id_or_run_dir,
        draft_id,
        approve=False,
        approver_id=approver_id_from_env(approver_id),
        reason=reason,
        runs_dir=runs_dir,
    )
    return tell_if_overruled(decision, False, stacklevel=2)


UnknownOutcome = Literal["retry", "fail"]


@awaited_entry("noesis_nb.resume_run_async(…)")
async def resume_run_async(
    episode_id: str | os.PathLike[str],
    *,
    checkpoint_id: str | None = None,
    runs_dir: Any = None,
    using: Any = None,
    tools: dict[str, Any] | None = None,
    unknown_outcome: UnknownOutcome | None = None,
    secrets: dict[str, Any] | None = None,
) -> str:
    """Continue a run from what its directory holds (see ``resume_run``); returns the episode id.

    The kernel's interrupt while it runs raises ``EpisodeInterrupted`` saying what became of the run."""
    with watch_interrupts() as watch:
        try:
            report = await _resume(episode_id, checkpoint_id, runs_dir, using, tools, unknown_outcome, secrets)
        except asyncio.CancelledError:
            said = _interrupted_resume(episode_id, runs_dir) if watch.seen else None
            if said is None:
                raise
            raise said from None  # the kernel's interrupt: one line saying what became of the run
    _tell(report)
    return report.episode_id


def resume_run(
    episode_id: str | os.PathLike[str],
    *,
    checkpoint_id: str | None = None,
    runs_dir: Any = None,
    using: Any = None,
    tools: dict[str, Any] | None = None,
    unknown_outcome: UnknownOutcome | None = None,
    secrets: dict[str, Any] | None = None,
) -> str:
    """Continue a paused or interrupted run from disk, in any process (Noēsis' ``resume_run``); returns the episode id.

    A decided draft executes exactly once and the run is sealed; a veto override re-runs the adapter
    (``using=``). A run another live process owns is left to it (``NothingToResume``). Crashes are
    recovered as the README's "Recovery" section says; ``unknown_outcome`` ("retry" | "fail") decides a
    draft whose dispatch was cut off before its result was recorded. ``secrets`` gives back, by payload
    path (``{"kwargs.auth": "…"}``), values the stored draft has redacted (the error names each path).
    An interrupt (Ctrl-C, the kernel's ■) raises ``EpisodeInterrupted`` saying what became of the run.
    """
    report = resume_blocking(
        episode_id,
        checkpoint_id=checkpoint_id,
        runs_dir=runs_dir,
        using=using,
        tools=tools,
        unknown_outcome=unknown_outcome,
        secrets=secrets,
    )
    _tell(report)
    return report.episode_id


def resume_blocking(
    episode_id: str | os.PathLike[str],
    *,
    checkpoint_id: str | None = None,
    runs_dir: Any = None,
    using: Any = None,
    tools: dict[str, Any] | None = None,
    unknown_outcome: UnknownOutcome | None = None,
    secrets: dict[str, Any] | None = None,
) -> ResumeReport:
    """The one blocking resume path (``resume_run`` and ``ns.resume_run``): options checked, then the run continued.

    An interrupt stops the run sealed ``cancelled`` wherever it lands: once the resume has taken its first step, its
    own path seals the run; one that lands before (while ``asyncio.run`` makes its loop, or cancelling the resume's
    task before it ran) left the run untouched, so the resume is made again under ``interrupted_before_resume``."""
    began: list[bool] = []  # the resume took its first step: from then on a cancellation reaches its own path
    resume = None
    try:
        resume = _resume(episode_id, checkpoint_id, runs_dir, using, tools, unknown_outcome, secrets, began)
        return run_sync(resume)
    except (KeyboardInterrupt, asyncio.CancelledError) as stop:
        if isinstance(stop, asyncio.CancelledError) and began:
            raise
        # (a cancellation before the first step: asyncio.run's own SIGINT handler, the Ctrl-C landing as it starts
        # the resume's task, before it counts interrupts; nothing else cancels that task there)
        with held_interrupts():  # a second Ctrl-C does not cut the seal short
            if not began:
                if resume is not None:
                    resume.close()  # never run: no "never awaited" warning
                _resume_interrupted_before_it_began(episode_id, checkpoint_id, runs_dir, using, tools, unknown_outcome, secrets)
            said = _interrupted_resume(episode_id, runs_dir)
        if said is None:
            raise
        raise said from None


def _resume_interrupted_before_it_began(
    episode_id: str | os.PathLike[str],
    checkpoint_id: str | None,
    runs_dir: Any,
    using: Any,
    tools: dict[str, Any] | None,
    unknown_outcome: str | None,
    secrets: dict[str, Any] | None,
) -> None:
    """The resume an interrupt stopped before its first step, made again: its checks as ever (a refusal writes
    nothing, the interrupt's line then says what holds), then nothing runs and the run is sealed ``cancelled``."""
    token = interrupted_before_resume.set(True)
    try:
        run_sync(_resume(episode_id, checkpoint_id, runs_dir, using, tools, unknown_outcome, secrets, []))
    except Exception:  # refused by its checks (an undecided draft, a run held elsewhere…): nothing was written
        pass
    finally:
        interrupted_before_resume.reset(token)


def _interrupted_resume(episode_id: str | os.PathLike[str], runs_dir: Any) -> EpisodeInterrupted | None:
    """``EpisodeInterrupted`` for the run being resumed; None when there is no such run (the interrupt goes on as it is)."""
    try:
        run_dir = find_run_dir(episode_id, runs_dir)
    except Exception:
        return None
    said = interrupted_resume(run_dir)
    _name_hidden(said, run_dir.name)  # its line names the run as views show it
    return said


async def _resume(
    episode_id: str | os.PathLike[str],
    checkpoint_id: str | None,
    runs_dir: Any,
    using: Any,
    tools: dict[str, Any] | None,
    unknown_outcome: str | None,
    secrets: dict[str, Any] | None,
    began: list[bool] | None = None,
) -> ResumeReport:
    if began is not None:
        began.append(True)
    check_resume_options(checkpoint_id=checkpoint_id, using=using, tools=tools, unknown_outcome=unknown_outcome)
    with supply_secrets(secrets):  # (its option checked before the run is looked for: a wrong one is named first)
        run_dir = _find_run(episode_id, runs_dir)
        with run_name_shown(run_dir):
            report = await resume_from_disk(
                run_dir,
                checkpoint_id=checkpoint_id,
                using=using,
                tools=tools,
                unknown_outcome=unknown_outcome,
            )
    return _report_shown(report, run_dir)


def _tell(report: Any) -> None:
    """Warn the caller (stacklevel 3: the line that called resume_run) when nothing changed or a crash was recovered."""

    if report.changed_nothing:
        warnings.warn(report.message, NothingToResume, stacklevel=3)
    elif report.action in {"seal_completed", "sealed_lost"}:
        warnings.warn(report.message, RunRecovered, stacklevel=3)
