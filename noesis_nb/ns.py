"""A Noēsis-compatible facade: code written for ``import noesis as ns`` runs with ``import noesis_nb.ns as ns``.

Lifecycle calls (``interrupt``, ``checkpoint``, ``resume``) write evidence only, as in Noēsis;
``resume_run`` continues execution. Tool-contract names are importable from here too.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import orjson

from . import config as _config
from . import tools
from ._cachedir import user_stacklevel
from ._jsonkeys import RepeatedKeyWarning, loads_checked, where_repeated
from ._unstarted import awaited_entry
from .errors import (
    CheckpointConsistencyError,
    CheckpointNotFoundError,
    EpisodeStateError,
    InvalidOptionError,
    MissingCausalParentError,
    NoesisVeto,
    ResumeAdapterMismatchError,
    ResumeAdapterRequiredError,
    RunLifecycleError,
    RunLifecycleTransitionError,
    RunSealedError,
    SummaryNotWrittenError,
    UnsupportedFeatureError,
)
from .runtime.api import _tell, resume_blocking
from .runtime.api import solve as _solve
from .runtime.api import solve_async as _solve_async
from .runtime.recorder import Recorder
from .runtime.registry import live_handles
from .runtime.resolve import minimal_adapter
from .runtime.resume import find_checkpoint, validate_checkpoint
from .runtime.stage import refuse_unless
from .secrets.quoted import quoted
from .secrets.records import shown_records, shown_value
from .secrets.revealed import scrubbed
from .store import find_run_dir, iter_events, read_events
from .store.artifacts import read_state, read_summary
from .store.listing import RunList, check_limit, run_info, shown_problems
from .store.listing import listed_runs as _list_runs
from .store.revealedrun import run_revealed
from .store.roots import refuse_run_as_root
from .store.runfiles import UnreadableRunFile, read_file
from .store.sealing import refuse_odd_seal, seal_state
from .store.shownnames import shown_id
from .store.status import LOST_HINT

__all__ = [
    "run",
    "solve",
    "solve_async",
    "resume_run",
    "interrupt",
    "checkpoint",
    "resume",
    "set",
    "get",
    "list_runs",
    "last",
    "paths",
    "events",
    "summary",
    "NoesisVeto",
    "RunLifecycleError",
    "RunLifecycleTransitionError",
    "RunSealedError",
    "CheckpointNotFoundError",
    "MissingCausalParentError",
    "CheckpointConsistencyError",
    "ResumeAdapterRequiredError",
    "ResumeAdapterMismatchError",
    "ToolInvocationInput",
    "ToolIdentity",
    "ExecutionContext",
    "SecurityContext",
    "GovernanceContext",
    "PayloadRedactionPolicy",
    "EffectKind",
    "RiskTier",
    "ToolProtocol",
    "PreparedToolInvocation",
    "ToolApprovalDecision",
    "ToolExecutionResult",
    "prepare_tool_invocation",
    "execute_prepared_tool_invocation",
]

_TOOL_NAMES = {
    "ToolInvocationInput",
    "ToolIdentity",
    "ExecutionContext",
    "SecurityContext",
    "GovernanceContext",
    "PayloadRedactionPolicy",
    "EffectKind",
    "RiskTier",
    "ToolProtocol",
    "PreparedToolInvocation",
    "ToolApprovalDecision",
    "ToolExecutionResult",
    "prepare_tool_invocation",
    "execute_prepared_tool_invocation",
}


def __getattr__(name: str) -> Any:
    if name in _TOOL_NAMES:
        return getattr(tools, name)
    raise AttributeError(f"module 'noesis_nb.ns' has no attribute {quoted(name)}")


def _not_implemented(call: str, **given: Any) -> None:
    """Noēsis keywords noesis_nb does not implement: accepted at Noēsis' default, refused the same way everywhere."""
    for name, value in given.items():
        if value not in _NOESIS_DEFAULTS[name]:
            raise UnsupportedFeatureError(
                f"ns.{call}({name}={quoted(value)}): noesis_nb does not implement Noēsis' {name}= "
                f"({_WHY[name]}); leave it at its default"
            )


_NOESIS_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "intuition": (True, False, None),
    "context": (None,),
    "workspace": (None,),
    "process": (None,),
    "verify": (None, [], ()),
    "caused_by": (None,),
}
_WHY = {
    "intuition": "no intuition policies",
    "context": "no sessions: use ns.set(...)",
    "workspace": "runs go to runs_dir",
    "process": "no process registry",
    "verify": "no workspace verification: check it after the run",
    "caused_by": "resume_run links run.resume to the checkpoint itself",
}


def _opts(call: str, seed: int, tags: Any, **noesis_only: Any) -> dict[str, Any]:
    _not_implemented(call, **noesis_only)
    return {"seed": seed, "tags": tags}


def solve(
    task: str,
    *,
    using: Any,
    seed: int = 0,
    intuition: Any = True,
    tags: dict[str, Any] | None = None,
    context: Any = None,
    workspace: Any = None,
    process: Any = None,
    verify: Any = None,
    **options: Any,
) -> str:
    """Run ``using`` in the act phase and return the episode id (``approver`` etc. may be passed too)."""

    return _solve(
        task,
        using=using,
        **_opts("solve", seed, tags, intuition=intuition, context=context, workspace=workspace, process=process, verify=verify),
        **options,
    )


@awaited_entry("ns.solve_async(…)")
async def solve_async(
    task: str,
    *,
    using: Any,
    seed: int = 0,
    intuition: Any = True,
    tags: dict[str, Any] | None = None,
    context: Any = None,
    workspace: Any = None,
    process: Any = None,
    verify: Any = None,
    **options: Any,
) -> str:

    return await _solve_async(
        task,
        using=using,
        **_opts(
            "solve_async", seed, tags, intuition=intuition, context=context, workspace=workspace, process=process, verify=verify
        ),
        **options,
    )


def run(
    task: str,
    *,
    seed: int = 0,
    intuition: Any = True,
    tags: dict[str, Any] | None = None,
    context: Any = None,
    workspace: Any = None,
    process: Any = None,
    verify: Any = None,
    **options: Any,
) -> str:
    """An episode without an adapter (label ``core.minimal``)."""

    return _solve(
        task,
        using=minimal_adapter(),
        **_opts("run", seed, tags, intuition=intuition, context=context, workspace=workspace, process=process, verify=verify),
        **options,
    )


#: what ``ns.resume_run`` passes on to ``noesis_nb.resume_run`` besides ``checkpoint_id`` and ``using``
_RESUME_OPTIONS = frozenset({"runs_dir", "tools", "unknown_outcome", "secrets"})


def resume_run(
    episode_id: str,
    *,
    checkpoint_id: str | None = None,
    using: Any = None,
    caused_by: Any = None,
    context: Any = None,
    workspace: Any = None,
    verify: Any = None,
    **options: Any,
) -> str:

    _not_implemented("resume_run", caused_by=caused_by, context=context, workspace=workspace, verify=verify)
    unknown = sorted(k for k in options if k not in _RESUME_OPTIONS)
    if unknown:  # named here: Python's TypeError would name the internal function the options are passed to
        raise InvalidOptionError(
            f"ns.resume_run: unknown option(s) {', '.join(quoted(k) for k in unknown)}; it takes checkpoint_id, "
            f"using and {', '.join(sorted(_RESUME_OPTIONS))}"
        )
    try:  # resume_run's own path: its options are checked first, as it checks them
        report = resume_blocking(episode_id, checkpoint_id=checkpoint_id, using=using, **options)
    except CheckpointNotFoundError:
        _refuse_sealed(episode_id, options.get("runs_dir"))
        raise
    if report.changed_nothing:
        _refuse_sealed(episode_id, options.get("runs_dir"))
    _tell(report)
    return report.episode_id


def _refuse_sealed(episode_id: str, runs_dir: Any) -> None:
    """Noēsis refuses a lifecycle call on a sealed run (``RunSealedError``) before reading any checkpoint: code written
    for it catches that, where ``resume_run`` says nothing is left to resume or names the checkpoint."""
    run_dir = find_run_dir(episode_id, runs_dir)
    if seal_state(run_dir).sealed:
        raise RunSealedError(
            f"run {run_dir.name} is sealed; resume_run continues a paused or interrupted run (a seal cut short, "
            "final.json without manifest.json, is completed by it)"
        ) from None


def _recorder(episode_id: str) -> Any:

    run_dir = find_run_dir(episode_id)
    live = live_handles().get(run_dir.name)
    if live is not None and not live.done():
        raise EpisodeStateError(
            f"episode {run_dir.name} is live in this process; a second writer would corrupt its log. "
            "Use its handle (approve/reject/cancel) instead"
        )
    seal = refuse_odd_seal(run_dir)  # a link or folder where final.json or manifest.json goes: nothing is written
    if seal.ended:  # refused before anything is written, not at the log's first append
        cut = "" if seal.sealed else " (its seal was cut short: final.json without manifest.json; resume_run completes it)"
        raise RunSealedError(f"run {episode_id} is sealed{cut}; lifecycle calls need an unsealed (running or paused) run")
    return Recorder.reopen(run_dir)


def interrupt(
    episode_id: str, *, reason: str | None = None, caused_by: str | None = None, context: Any = None, workspace: Any = None
) -> str:
    """Emit ``run.interrupt`` (evidence only) and return its event id."""
    _not_implemented("interrupt", context=context, workspace=workspace)
    rec = _recorder(episode_id)
    try:
        refuse_unless("interrupt", rec.events, episode_id)  # running only: anywhere else it strands the run's pause
        if caused_by is None and rec.writer.last_event_id is None:
            raise MissingCausalParentError(f"run {episode_id} has no events to cause an interrupt; pass caused_by=")
        event_id: str = rec.interrupt(reason, caused_by)["id"]
        return event_id
    finally:
        rec.close_without_sealing()


def checkpoint(episode_id: str, *, caused_by: str | None = None, context: Any = None, workspace: Any = None) -> dict[str, Any]:
    """Write a checkpoint and emit ``run.checkpoint``; returns the checkpoint record."""
    _not_implemented("checkpoint", context=context, workspace=workspace)
    rec = _recorder(episode_id)
    try:
        refuse_unless("checkpoint", rec.events, episode_id)  # running or interrupted: a pause has its checkpoint
        record = rec.checkpoint(caused_by)
        return {k: v for k, v in record.items() if k != "event_id"}
    finally:
        rec.close_without_sealing()


def resume(
    episode_id: str, *, checkpoint_id: str, caused_by: str | None = None, context: Any = None, workspace: Any = None
) -> str:
    """Validate the checkpoint and emit ``run.resume`` (evidence only; nothing executes)."""

    _not_implemented("resume", context=context, workspace=workspace)
    rec = _recorder(episode_id)
    try:
        refuse_unless("resume", rec.events, episode_id)  # paused only, as Noēsis' lifecycle goes
        record = find_checkpoint(rec, checkpoint_id)
        validate_checkpoint(rec, record)
        if caused_by is not None and caused_by not in {record["last_event_id"], rec.writer.last_event_id}:
            raise CheckpointConsistencyError(
                f"caused_by={quoted(caused_by)} is neither the checkpoint's last event nor the run's last event"
            )
        event_id: str = rec.resume_event(record, caused_by=caused_by, resumed_by="resume")["id"]
        return event_id
    finally:
        rec.close_without_sealing()


def set(*, context: Any = None, **overrides: Any) -> None:
    _not_implemented("set", context=context)
    if overrides.get("runs_dir"):  # a run's own folder: runs written inside it would be listed nowhere
        refuse_run_as_root(Path(_config.check_path(overrides["runs_dir"])).expanduser())
    _config.set(**overrides)


def get() -> dict[str, Any]:
    return _config.get()


def list_runs(
    limit: int = 50, since: str | None = None, *, context: Any = None, strict_manifest: bool = False
) -> list[dict[str, Any]]:
    _not_implemented("list_runs", context=context)
    if isinstance(limit, (str, os.PathLike)):  # ns.list_runs takes no root: Noēsis reads it from the settings
        raise InvalidOptionError(
            f"limit={quoted(str(limit))} is not a count of runs; set the runs root with ns.set(runs_dir=…) "
            "or call noesis_nb.list_runs(runs_dir=…)"
        )
    check_limit(limit)
    rows = _list_runs(None, since, strict_manifest=strict_manifest)
    listed = [_noesis_row(row, rows.revealed) for row in _summarised(rows, limit)]
    return RunList(listed, shown_problems(rows.problems))  # what is named like a run but is none, still said


#: the keys of a Noēsis ``list_runs`` row, in its order
_NOESIS_ROW_KEYS = (
    "episode_id",
    "task",
    "started_at",
    "flags",
    "success",
    "veto_count",
    "duration_sec",
    "status",
    "outcome",
    "process",
    "manifest",
    "manifest_status",
)


def _noesis_row(row: dict[str, Any], revealed: frozenset[str]) -> dict[str, Any]:
    """``row`` (``noesis_nb.list_runs``') as Noēsis gives it: its keys only, ``status`` the summary's own (Noēsis
    reads ``summary.status``, which its finaliser does not write: None), not the status noesis_nb derives (that one
    is in ``noesis_nb.list_runs`` and ``runs_df``)."""
    out = {key: row[key] for key in _NOESIS_ROW_KEYS}
    # a folder named with a credential or a value a run listed reveals (``revealed``), as every view names it
    out["episode_id"] = shown_id(row["episode_id"], revealed)
    out["status"] = shown_value((read_summary(Path(row["run_dir"])) or {}).get("status"))
    return out


def _summarised(rows: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """The runs Noēsis' ``list_runs`` lists: those holding ``summary.json`` (paused or unsealed runs are not, so a
    loop reading ``row["success"]`` never meets one that has none yet); ``noesis_nb.list_runs`` lists them all."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if limit is not None and len(out) >= limit:
            break
        try:
            if not Path(row["run_dir"], "summary.json").is_file():
                continue
        except OSError:  # cannot be looked at: listed, as the row that names it says
            pass
        out.append(row)
    return out


def last(*, context: Any = None) -> str | None:
    _not_implemented("last", context=context)
    rows = _summarised(_list_runs(None), 1)
    return rows[0]["episode_id"] if rows else None


def paths(episode_id: str, *, context: Any = None) -> dict[str, str]:
    _not_implemented("paths", context=context)
    run_dir = find_run_dir(episode_id)
    return {
        "dir": str(run_dir),
        "events": str(run_dir / "events.jsonl"),
        "summary": str(run_dir / "summary.json"),
        "manifest": str(run_dir / "manifest.json"),
    }


def _read_events(episode_id: str, *, stream: bool = False, context: Any = None) -> Any:

    _not_implemented("events.read", context=context)
    run_dir = find_run_dir(episode_id)
    path = run_dir / "events.jsonl"
    # what the run's other files reveal as secrets (a summary's ``password=…``), hidden in its events too
    revealed = run_revealed(run_dir, read_summary(run_dir), read_state(run_dir), events=[])
    if stream:
        return (scrubbed(shown_value(event), revealed) for event in iter_events(path))
    records = read_events(path)
    shown_records(records, revealed)  # a run Noēsis wrote, or one copied or crafted here, was never screened: as the frames
    return records


def _read_summary(episode_id: str, *, context: Any = None) -> dict[str, Any]:
    """The run's ``summary.json``; a damaged one is named with what is wrong (never taken for one not written yet)."""
    _not_implemented("summary.read", context=context)
    run_dir = find_run_dir(episode_id)
    path = run_dir / "summary.json"
    try:
        got = read_file(str(path), str(run_dir))  # a folder, a FIFO, a link out of the run: refused by name
        summary_doc, repeated = (None, None) if got is None else loads_checked(got[0])
    except UnreadableRunFile as exc:
        reason = exc.reason
    except orjson.JSONDecodeError as exc:
        reason = f"invalid JSON ({exc})"
    else:
        if got is None:
            raise _no_summary_yet(str(episode_id), run_dir)
        if isinstance(summary_doc, dict):
            if repeated is not None:  # read as unknown, never the first or last value: said with the file and line
                warnings.warn(where_repeated(str(path), repeated), RepeatedKeyWarning, stacklevel=user_stacklevel())
            # redacted as shown, as the frames read it: a secret the run's other files name too
            revealed = run_revealed(run_dir, summary_doc, read_state(run_dir))
            return cast(dict[str, Any], scrubbed(shown_value(summary_doc), revealed))
        reason = f"a JSON {type(summary_doc).__name__}, not an object"
    raise UnreadableRunFile(
        str(path),
        f"{reason}; the summary cannot be read. Restore summary.json from a copy of the run "
        "(runs_df still lists the run, from its state.json)",
    )


def _no_summary_yet(given: str, run_dir: Path) -> SummaryNotWrittenError:
    """Why a run has no summary.json, and how to get one: decide and resume a paused run, wait for a running one.

    ``given``: the id or directory the caller named (the calls suggested take either)."""
    status, episode_id = run_info(run_dir)["status"], run_dir.name
    if status == "paused":
        return SummaryNotWrittenError(
            f"run {episode_id} is paused, waiting for a decision: its summary.json is written when it ends. Decide "
            f"with noesis_nb.approve_draft({quoted(given)}, approver_id=...) or noesis_nb.reject_draft({quoted(given)}), "
            f"then continue it with resume_run({quoted(given)}) (in a notebook: %noesis approve {given}, then "
            f"%noesis resume {given}); noesis_nb.inbox() shows every run waiting for a decision",
            episode_id=episode_id,
            status=status,
        )
    if status == "lost":
        return SummaryNotWrittenError(
            f"run {episode_id} has no summary.json: it was running when "
            + LOST_HINT.format(run=quoted(given)).replace("its process is gone", "its process went", 1),
            episode_id=episode_id,
            status=status,
        )
    if status != "running":  # it ended, but its process stopped before the summary was written
        return SummaryNotWrittenError(
            f"run {episode_id} ended {status} but has no summary.json: its process stopped while sealing it. "
            f"resume_run({quoted(given)}) completes the seal",
            episode_id=episode_id,
            status=status,
        )
    return SummaryNotWrittenError(
        f"run {episode_id} is still running and has no summary.json yet: it is written when the run ends. Await its "
        f"handle, or, if its process stopped, resume_run({quoted(given)}) seals it",
        episode_id=episode_id,
        status=status,
    )


class _Reader(SimpleNamespace):
    """``ns.events`` / ``ns.summary``: Noēsis' namespaces with ``read``; called as a function, names ``read``."""

    def __call__(self, episode_id: Any = None, *args: Any, **kwargs: Any) -> Any:
        given = f"{quoted(episode_id, 80)}" if episode_id is not None else "episode_id"
        extra = ", stream=True" if kwargs.get("stream") else ""
        raise InvalidOptionError(f"ns.{self.name} is not a function; read it with ns.{self.name}.read({given}{extra})")


events = _Reader(read=_read_events, name="events")
summary = _Reader(read=_read_summary, name="summary")
