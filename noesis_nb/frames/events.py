"""``events_df``: one row per event of every run in ``source``."""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import pandas as pd

from .._keywords import keywords_named
from ..errors import InvalidOptionError
from ..secrets.display import environ_hidden
from ..secrets.environ import environ_secrets
from ..secrets.quoted import keys_hidden, quoted
from ..store.phases import KNOWN_PHASES
from . import _arrays
from .columns import EVENT_COLUMNS, Column, check_columns
from .eventblocks import load_events
from .gcpause import without_gc
from .learnedtext import learned_hidden
from .loadwarning import warn_of_problems
from .phasenames import check_event_names, check_phase_names
from .problems import LoadProblem, Problems
from .shownids import ids_shown
from .source import (
    Source,
    distinct_runs,
    episode_filter,
    named_runs,
    resolve_source,
    source_label,
    stray_runs,
    unmatched_episodes,
)

__all__ = ["events_df"]

# (payload column served, environment secrets, that column with them hidden or None): a warm load serves the same
# column, so with an API key in the environment it is not dumped and searched again (0.72 s a call at 30,000 events)
_hidden_memo: tuple[Any, Any, Any] = (None, None, None)


def _environ_hidden_payloads(column: Any) -> Any:
    """``column`` (the loaded payloads) with this process's environment secrets hidden, or None when it holds none
    (``environ_hidden``: what runs written here hold of them), remembered for the same column and environment."""
    global _hidden_memo
    env = environ_secrets()
    if _hidden_memo[0] is column and _hidden_memo[1] is env:
        return _hidden_memo[2]
    hidden = environ_hidden(list(column))
    out = None if hidden is None else _arrays.objects(hidden)
    _hidden_memo = (column, env, out)
    return out


@without_gc
@keywords_named
def events_df(
    source: Source = None,
    *,
    phases: str | Iterable[str] | None = None,
    episodes: str | Iterable[str] | None = None,
    since: str | datetime | pd.Timestamp | None = None,
    until: str | datetime | pd.Timestamp | None = None,
    columns: Sequence[Column] | None = None,
    strict: bool = False,
    cache: bool = True,
    progress: bool | None = None,
    storage_options: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per event, in file order within each run (``seq``), runs in ``source`` order.

    Columns: ``EVENT_COLUMNS`` (``episode_id, source, seq, event_id, timestamp, phase, event_name,
    agent_id, caused_by, duration_ms, faculty, status, tool, draft_id, model, payload``) then
    any ``columns=[Column(...)]`` (paths into the event record, e.g. ``"payload.reason"``).
    Filters: ``phases``, ``episodes`` (ids), ``since``/``until`` (UTC, inclusive).
    ``strict=False`` skips corrupt lines, reads values of the wrong kind (a ``timestamp`` that is not
    an ISO-8601 time, a count that is text…) as unknown, and lists each in ``df.attrs["errors"]``
    with its file and line; ``strict=True`` raises on the first — ``EventLogIntegrityError`` for a
    line that is not a JSON object, ``RunLoadError`` for a bad value or an unreadable file.
    """
    extras = check_columns(columns, EVENT_COLUMNS, "events_df")
    keep = _phases(phases)
    start, end = _utc(since, "since"), _utc(until, "until")  # checked before anything is read
    if start is not None and end is not None and start > end:  # no event could pass: swapped, not an empty answer
        raise InvalidOptionError(
            f"since={quoted(since, 60)} is after until={quoted(until, 60)}, so no event is between them; swap them"
        )
    wanted = episode_filter(episodes)
    refs = resolve_source(source, storage_options=storage_options, episodes=wanted)
    problems = Problems(strict)
    problems.extend(unmatched_episodes(wanted, refs, source))
    problems.extend(stray_runs(source, wanted, refs))
    refs = distinct_runs(named_runs(refs, problems), problems)
    loaded = load_events(refs, problems, extras=extras, use_cache=cache, show_progress=progress)
    df = loaded.frame()
    hidden = _environ_hidden_payloads(loaded.columns["payload"])
    if hidden is not None:
        df["payload"] = hidden
    mask = None
    if keep is not None:
        check_event_names(keep, df["phase"].unique(), df["event_name"].unique(), _phase_of_names(df, keep))
        mask = df["phase"].isin(keep).to_numpy()
        problems.extend(_misspelt_phases(keep, df["phase"], source))
    if start is not None:
        m = (df["timestamp"] >= start).to_numpy()
        mask = m if mask is None else mask & m
    if end is not None:
        m = (df["timestamp"] <= end).to_numpy()
        mask = m if mask is None else mask & m
    if mask is not None:
        df = df.loc[mask].reset_index(drop=True)
    df.attrs["errors"] = problems.as_records()
    df.attrs["runs"] = len(refs)
    warn_of_problems("events_df", df.attrs["errors"], refs)
    return ids_shown(learned_hidden(df, loaded.revealed), revealed=loaded.revealed_ids)


def _misspelt_phases(keep: list[str], phases: pd.Series, source: Source) -> list[LoadProblem]:
    """A ``phases=`` name no event has while one close to it is there (``"Model"`` for ``model``): a typo, not an
    empty answer: refused when the name is no phase Noēsis or noesis_nb writes (``"tools"``), else reported (a run
    may simply have none yet). A name with nothing close stays quiet (a phase of one's own may simply not occur)."""
    present = [p for p in phases.astype(object).dropna().unique() if isinstance(p, str)]
    out = []
    for name in keep:
        if name in present:
            continue
        close = [p for p in present if p.lower() == name.lower()] or difflib.get_close_matches(name, present, n=1, cutoff=0.8)
        if close:
            problem = f"phases= names {quoted(name)}, which no event has; did you mean {quoted(close[0])}?"
            if name not in KNOWN_PHASES:  # no phase anyone writes: a typo, refused as by= and columns= refuse theirs
                raise InvalidOptionError(problem)
            out.append(LoadProblem(source_label(source), None, problem))
    return out


def _phases(phases: Any) -> list[str] | None:
    """``phases=`` as a list of phase names: one name, or an iterable of names."""
    if phases is None:
        return None
    keep = [phases] if isinstance(phases, str) else list(phases) if isinstance(phases, Iterable) else None
    if keep is None or not all(isinstance(p, str) for p in keep):
        raise InvalidOptionError(f"phases={quoted(phases, 80)}: pass a phase name such as 'tool', or a list of them")
    check_phase_names(keep)
    return keep


def _phase_of_names(df: pd.DataFrame, keep: list[str]) -> dict[str, str]:
    """The phase each of ``keep`` is written under where it is an event name (first such event's)."""
    named = df.loc[df["event_name"].isin(keep), ["event_name", "phase"]].drop_duplicates("event_name")
    return {str(n): str(p) for n, p in zip(named["event_name"], named["phase"])}


def _utc(value: Any, name: str) -> pd.Timestamp | None:
    """``since=``/``until=`` as a UTC timestamp: an ISO-8601 text, a datetime or a pandas Timestamp (naive: UTC)."""
    if value is None:
        return None
    if isinstance(value, numbers.Real):  # pd.Timestamp(5) is 5 ns after 1970: every event would pass
        raise InvalidOptionError(
            f"{name}={quoted(value)} is a number; pass an ISO-8601 time such as '2026-01-31T09:00:00Z', a datetime, "
            f"or pd.Timestamp({quoted(value)}, unit='s') for seconds since 1970"
        )
    try:
        ts = pd.Timestamp(value)
    except (ValueError, TypeError) as exc:
        raise InvalidOptionError(
            f"{name}={quoted(value, 80)} is no time ({keys_hidden(str(exc))}); pass an ISO-8601 time such as "
            f"'2026-01-31T09:00:00Z' or a datetime"
        ) from None
    if ts is pd.NaT:
        raise InvalidOptionError(f"{name}={quoted(value, 80)} is no time; pass an ISO-8601 time or a datetime, or leave it out")
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
