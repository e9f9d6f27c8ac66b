"""``list_runs``: Noēsis' run rows, extended to paused and unsealed runs."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from .. import config
from .._jsonio import as_object
from .._jsonkeys import is_repeated_reason
from ..errors import EventLogCorruption, InvalidOptionError
from ..secrets.quoted import quoted
from ..secrets.records import shown_value
from ..secrets.revealed import scrubbed
from .artifacts import is_sealed, read_json_checked, read_state, read_summary, verify_manifest
from .eventlog import parse_lines, read_events
from .facts import run_facts
from .instants import utc_micros
from .revealedrun import run_revealed
from .roots import check_root, iter_run_dirs
from .runfiles import UnreadableRunFile, read_file
from .scan import shown_path, stray_reason, stray_run_files
from .sealing import SealState, seal_state
from .shownnames import shown_id, shown_parts
from .status import run_status, status_now

__all__ = ["check_limit", "list_runs", "listed_runs", "shown_problems", "run_info", "status_of", "RunList"]


class RunList(list[dict[str, Any]]):
    """``list_runs``' rows, plus ``problems`` (``path``, ``line``, ``reason``, as a frame's ``df.attrs["errors"]``):
    what in the root is named like a run but is none, left out of the rows, and a run whose summary or state names
    another episode than its folder (its row keeps the folder's name)."""

    problems: list[dict[str, Any]]
    #: what the runs listed reveal as secrets (``store.revealedrun``): hidden in their ids where they are shown
    revealed: frozenset[str]

    def __init__(self, rows: list[dict[str, Any]], problems: list[dict[str, Any]], revealed: frozenset[str] = frozenset()):
        super().__init__(rows)
        self.problems = problems
        self.revealed = revealed


def run_info(run_dir: Path, *, strict_manifest: bool = False) -> dict[str, Any]:
    """One row describing a run, in the shape of Noēsis' ``list_runs`` plus ``status``, ``sealed``, ``run_dir``."""
    return _row(Path(run_dir), strict_manifest, None)


def _row(
    run_dir: Path,
    strict_manifest: bool,
    seal: SealState | None,
    problems: list[dict[str, Any]] | None = None,
    pool: set[str] | None = None,
) -> dict[str, Any]:
    """``run_info``; ``seal``: the run's ``seal_state`` taken just before (None: none taken); ``pool`` gets what the
    run reveals as secrets. A complete seal is
    kept as it is (a seal once written stays), so a sealed run's seal is looked at once, not three times; any other
    answer is looked at again where it decides (``status_now``), as the run may be sealed meanwhile.

    The run is named by its folder, as every frame names it: a summary or state naming another episode (a copy, a
    file taken from another run) would list one id twice; that is said in ``problems``."""
    summary, repeated_summary = read_json_checked(run_dir / "summary.json", within=run_dir)
    state, repeated_state = read_json_checked(run_dir / "state.json", within=run_dir)
    unread: list[EventLogCorruption] = []
    if summary is None or summary.get("status") is None:
        events = read_events(run_dir / "events.jsonl", strict=False, errors=unread)
    else:
        events = []
    if summary is not None and not events:
        events = _tail_events(run_dir, unread)
    if problems is not None:  # a key written twice is read as unknown (``_jsonkeys``): said once, where it is
        for name, repeated in (("summary.json", repeated_summary), ("state.json", repeated_state)):
            if repeated is not None:
                problems.append({"path": shown_path(str(run_dir / name)), "line": repeated.line, "reason": repeated.reason})
        problems.extend(
            {"path": shown_path(c.path), "line": c.line_number or None, "reason": c.reason}
            for c in unread
            if is_repeated_reason(c.reason)
        )
    facts = run_facts(run_dir.name, summary=summary, state=state, events=events)
    metrics = as_object((summary or {}).get("metrics"))
    flags = as_object((summary or {}).get("flags"))
    manifest_status = None
    if strict_manifest:
        check = verify_manifest(run_dir)
        manifest_status = {"ok": "ok", "no_manifest": "missing"}.get(check.status, check.status)
    if facts.episode_id != run_dir.name and problems is not None:
        problems.append(_other_name(run_dir, facts.episode_id, summary))
    row = {
        "episode_id": run_dir.name,
        # a run Noēsis wrote, or one crafted here, was never screened: each text redacted, each misfit unknown
        "task": shown_value(facts.task),
        "started_at": facts.started_at if utc_micros(facts.started_at) is not None else None,
        "flags": shown_value(flags),
        "success": _fits(metrics.get("success"), _is_success),
        "veto_count": _fits(metrics.get("veto_count", 0), _is_count),
        "duration_sec": facts.duration_s,
        "status": status_now(run_dir, facts.status, seal),
        "outcome": shown_value(_fits((summary or {}).get("outcome"), _is_text)),
        "process": shown_value(_fits((summary or {}).get("process"), _is_object)),
        "manifest": shown_value(_fits((summary or {}).get("manifest"), _is_object)),
        "manifest_status": manifest_status,
        "using": shown_value(facts.using),
        "source": shown_value(facts.source),
        "sealed": True if seal is not None and seal.sealed else is_sealed(run_dir),
        "run_dir": str(run_dir),
    }
    values = run_revealed(run_dir, summary, state)  # a secret one file names, in clear in another: hidden in each
    for name in _SHOWN_TEXT if values else ():
        row[name] = scrubbed(row[name], values)
    if pool is not None:
        pool.update(values)
    return row


def _pooled(rows: list[dict[str, Any]], problems: list[dict[str, Any]], pool: set[str]) -> None:
    """Hide, in place, in every row's texts and every problem's reason what any run listed reveals (``pool``): a
    password run A names, echoed in run B's task, is hidden there too, as the frames hide it."""
    values = frozenset(pool)
    if not values:
        return
    for row in rows:
        for name in _SHOWN_TEXT:
            row[name] = scrubbed(row[name], values)
    for problem in problems:
        if isinstance(problem.get("reason"), str):
            problem["reason"] = scrubbed(problem["reason"], values)


#: the fields of a row shown from the run's own files
_SHOWN_TEXT = ("task", "flags", "outcome", "process", "manifest", "using", "source")


def _fits(value: Any, rule: Callable[[Any], bool]) -> Any:
    """``value`` when it has the shape ``rule`` checks, else None (unknown): a field of the wrong JSON type is read
    as runs_df reads it, not passed on as written."""
    return value if value is None or rule(value) else None


def _is_text(value: Any) -> bool:
    return type(value) is str


def _is_object(value: Any) -> bool:
    return type(value) is dict


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _is_success(value: Any) -> bool:
    """``metrics.success``: true/false, or a score from 0 to 1 in older runs (as runs_df takes it)."""
    return type(value) is bool or (type(value) in (int, float) and 0 <= value <= 1)


def _other_name(run_dir: Path, named: str, summary: dict[str, Any] | None) -> dict[str, Any]:
    """The problem of a run whose summary (else state) names episode ``named``, not its folder's."""
    file = "summary.json" if (summary or {}).get("episode_id") == named else "state.json"
    return {
        "path": shown_path(str(run_dir / file)),
        "line": None,
        "reason": (
            f"names episode {quoted(named, 80)}, but the run's folder is {quoted(run_dir.name, 80)}; the row keeps the "
            "folder's name, as runs_df, events_df, usage_df and show() do. Rename the folder or fix the file"
        ),
    }


def status_of(run_dir: Path) -> str:
    """The run's status as ``run_info`` says it, from its summary, its state and the tail of its log only.

    What decides a status is at the log's end (``terminate`` and the sealing steps after it, or the last pause),
    so a question asked where the answer must come at once (a refusal's last words) never reads a large log whole."""
    run_dir = Path(run_dir)
    summary, state = read_summary(run_dir), read_state(run_dir)
    return status_now(run_dir, run_status(summary, state, _tail_events(run_dir)))


_TAIL = 65536  # the bytes of a large log's end read for its status


def _tail_events(run_dir: Path, errors: list[EventLogCorruption] | None = None) -> list[dict[str, Any]]:
    """The last few events (enough to find ``terminate``) without parsing a whole large log.

    Only a regular file of the run is read (no directory, FIFO or symlink out of the run).
    """
    path = run_dir / "events.jsonl"
    try:
        got = read_file(str(path), str(run_dir), tail=_TAIL)
    except UnreadableRunFile:
        return []
    if got is None:
        return []
    data, _, whole = got
    if whole:
        return parse_lines(data, str(path), strict=False, errors=errors)
    tail: list[EventLogCorruption] = []
    events = parse_lines(data.split(b"\n", 1)[-1], str(path), strict=False, errors=tail)
    if errors is not None:  # a line of the last bytes read: its number in the file is not known (0)
        errors.extend(EventLogCorruption(c.path, 0, f"{c.reason} (in the last {_TAIL} bytes)") for c in tail)
    return events


def _info(run_dir: Path, strict_manifest: bool, problems: list[dict[str, Any]], pool: set[str] | None = None) -> dict[str, Any]:
    """``run_info``, or for a run folder this user may not read (another account's, ``chmod 0``) a row that only
    names it: all else unknown, where the raw ``PermissionError`` would end the whole listing."""
    try:
        seal = seal_state(run_dir)
        if seal.unknown is not None:  # its seal cannot be looked at: nothing read of it is known
            raise PermissionError(run_dir)
        return _row(run_dir, strict_manifest, seal, problems, pool)
    except PermissionError:
        return {
            **dict.fromkeys(("task", "started_at", "success", "duration_sec", "status", "outcome", "process")),
            **dict.fromkeys(("manifest", "manifest_status", "using", "source")),
            "episode_id": run_dir.name,
            "flags": {},
            "veto_count": 0,
            "sealed": False,
            "run_dir": str(run_dir),
        }


def _obj(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def check_limit(limit: Any) -> None:
    """Refuse a ``limit=`` that is no count of runs (a path given where the runs root was meant names the fix)."""
    if limit is not None and (type(limit) is not int or limit < 0):
        hint = "; pass the runs root as runs_dir=" if isinstance(limit, (str, os.PathLike)) else ""
        raise InvalidOptionError(f"limit={quoted(limit)} is not a count of runs (a whole number ≥ 0, or None for all){hint}")


def listed_runs(
    limit: int | None = 50,
    since: str | None = None,
    *,
    runs_dir: str | os.PathLike[str] | None = None,
    strict_manifest: bool = False,
) -> RunList:
    """``list_runs``' rows with each run's id and folder as they are on disk: for code that opens them, not a person."""
    check_limit(limit)
    since = _since(since)
    root = check_root(runs_dir if runs_dir is not None else config.runs_dir(), reading=True)
    problems: list[dict[str, Any]] = []
    pool: set[str] = set()  # what the runs reveal as secrets: hidden in every row (``_pooled``)
    rows = [_info(d, strict_manifest, problems, pool) for d in iter_run_dirs(root)]
    _pooled(rows, problems, pool)
    if since:
        rows = [r for r in rows if (r["started_at"] or "") >= since]
    rows.sort(key=lambda r: r["started_at"] or "", reverse=True)
    problems.extend(
        {"path": shown_path(path), "line": None, "reason": stray_reason(what)} for path, what in stray_run_files(str(root))
    )
    return RunList(rows if limit is None else rows[:limit], problems, frozenset(pool))


def list_runs(
    limit: int | None = 50,
    since: str | None = None,
    *,
    runs_dir: str | os.PathLike[str] | None = None,
    strict_manifest: bool = False,
) -> RunList:
    """Runs under ``runs_dir`` (default: the configured runs dir), newest first, paused ones included.

    Entries named like a run that are no run folder (``ep_….zip``) are not rows: the result's ``problems`` names them.
    A run folder named with a credential is listed as every view names it (``[REDACTED:<mark>]``,
    ``…/runs/[REDACTED:<mark>]``, two tokens marked apart): that ``run_dir`` or ``episode_id`` opens it (``show``,
    ``runs_df``; ``store.shownnames``)."""
    listed = listed_runs(limit, since, runs_dir=runs_dir, strict_manifest=strict_manifest)
    rows = [_shown_names(row, listed.revealed) for row in listed]
    return RunList(rows, shown_problems(listed.problems))


def shown_problems(problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``problems`` with each path as it may be shown (a run folder named with a credential: redacted)."""
    return [{**p, "path": shown_parts(p["path"])} if isinstance(p.get("path"), str) else p for p in problems]


def _shown_names(row: dict[str, Any], revealed: frozenset[str]) -> dict[str, Any]:
    """``row`` with its id and folder as they may be shown (the same row when they hold no secret, nor a value a run
    listed reveals: ``revealed``)."""
    names = {k: shown_id(row[k], revealed) for k in ("episode_id", "run_dir") if isinstance(row.get(k), str)}
    return row if all(row[k] == v for k, v in names.items()) else {**row, **names}


def _since(since: Any) -> str | None:
    """``since=`` as the text run start times are compared with (UTC ISO-8601): an ISO time or date, or a datetime.

    Any other value compared as text would keep every run or none without a word ("yesterday" > "2026-…").
    """
    if since is None or since == "":
        return None
    if isinstance(since, date) and not isinstance(since, datetime):
        return since.isoformat()
    when = since
    if isinstance(since, str):
        try:
            when = datetime.fromisoformat(since.replace("Z", "+00:00") if since.endswith("Z") else since)
        except ValueError:
            when = None
    if not isinstance(when, datetime):
        raise InvalidOptionError(
            f"since={quoted(since, 80)}: pass an ISO-8601 time or date such as '2026-01-31' or '2026-01-31T09:00:00Z', "
            f"or a datetime"
        )
    if when.tzinfo is None:
        return since if isinstance(since, str) else when.isoformat()  # naive: read as UTC, as start times are
    return when.astimezone(UTC).isoformat()
