"""Batches analysed: ``batch_summary`` per adapter and ``compare_batches`` task by task, each with 95% intervals.

Both read ``runs_df`` rows (or load them): a task re-run in a batch (``rerun_failed``, a run lost
with its process) counts once, by its latest run, but what it cost counts every run of it. Success is status ``ok``
among finished runs; rates (and bool scores: ``runs_df.score_is_bool``) get Wilson's score interval, means (other
scores, paired differences) Student's t interval.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..batch.record import load_record
from ..errors import InvalidOptionError, NoesisNbError
from ..store.vocab import TERMINAL_STATUSES
from .intervals import mean_interval, score_interval, wilson
from .runs import runs_df

__all__ = ["batch_summary", "compare_batches", "latest_runs", "running_time", "RUNNING_TIME", "WALL_TIME"]

#: what ``running_time`` gives, said where it is shown (an axis, ``batch_summary.attrs["duration"]``)
RUNNING_TIME = "running time (s), waiting for people left out"
WALL_TIME = "wall time (s), waiting for people included"

_KEYS = ["batch_id", "task_index", "batch_adapter"]


def _runs(value: Any) -> pd.DataFrame:
    """A runs frame from a frame, a ``BatchHandle`` (its entries' runs) or anything ``runs_df`` reads."""
    if isinstance(value, pd.DataFrame):
        if "status" not in value or "batch_id" not in value:
            raise InvalidOptionError("pass a frame of noesis_nb.runs_df(...) (it has status, batch_id, task_index, score)")
        return value
    if hasattr(value, "batch_id") and hasattr(value, "root"):
        # the runs the batch took as its entries': by episode id, not by the batch tag any run under the root may carry
        # (a copied or crafted run naming the batch, started "later", would stand in for the entry's own run); with
        # the runs its record says each entry ran before (re-run or lost), which the tasks' cost counts
        runs = runs_df(value.root)
        return runs[runs["episode_id"].isin([*value.episode_ids, *_earlier_ids(value)])]
    return runs_df(value)


def _earlier_ids(handle: Any) -> list[str]:
    """The episodes a batch's record says its entries ran before their current ones (none when it cannot be read:
    its entries' own runs are still summarized)."""
    try:
        record = load_record(Path(handle.record_path))
    except (AttributeError, TypeError, OSError, ValueError, NoesisNbError):
        return []
    return [str(i) for entry in (record or {}).get("entries", []) for i in entry.get("previous", [])]


def latest_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per batch task and adapter: its latest run (runs outside batches are kept as they are)."""
    inside = runs["batch_id"].notna()
    batched = runs[inside].sort_values("started_at", kind="stable")
    batched = batched.drop_duplicates(subset=_KEYS, keep="last")
    return pd.concat([batched, runs[~inside]]).sort_index()


def group_names(values: pd.Series) -> pd.Series:
    """Names to group rows by, as text: the rows whose name is missing are one group, ``(unknown)``, never dropped.

    pandas keeps a missing value missing through ``astype(str)`` and ``groupby`` drops its rows, so a model-less call
    would vanish from a plot (or a sort would compare it with text and raise). When a row is really named
    ``(unknown)``, the missing ones are ``(missing)`` (then ``(missing 2)``…): two groups never read as one.
    """
    names = values.astype(object)
    missing = names.isna()
    if not missing.any():
        return names.astype(str)
    taken = set(names[~missing].astype(str))
    label = next(c for c in ("(unknown)", "(missing)", *(f"(missing {i})" for i in range(2, len(taken) + 3))) if c not in taken)
    return names.where(~missing, label).astype(str)


def _adapter(runs: pd.DataFrame) -> pd.Series:
    name = runs["batch_adapter"].astype(object)
    return group_names(name.where(name.notna(), runs["using"].astype(object)))


def running_time(runs: pd.DataFrame) -> tuple[np.ndarray, str]:
    """(seconds, what they are) per run: ``duration_s - waiting_s``, the running time the live view shows and the
    one that compares adapters fairly (a run paused for a reviewer is not slower for it); NaN where the wait is
    unknown. A frame without ``waiting_s`` (made by hand, or by an older version) gives its ``duration_s``, said to
    be the wall time."""
    wall = runs["duration_s"].to_numpy(dtype=float, na_value=np.nan)
    if "waiting_s" not in runs:
        return wall, WALL_TIME
    return wall - runs["waiting_s"].to_numpy(dtype=float, na_value=np.nan), RUNNING_TIME


_SUMMARY = [
    "adapter",
    "n",
    "unfinished",
    "ok",
    "success_rate",
    "success_low",
    "success_high",
    "scored",
    "mean_score",
    "score_low",
    "score_high",
    "cost_per_task_usd",
    "tokens_per_task",
    "duration_p50_s",
    "duration_p95_s",
]


def _bool_scores(finished: pd.DataFrame) -> bool | None:
    """Whether every score of these runs was recorded as a JSON boolean (``runs_df.score_is_bool``); a frame without
    that column (made by hand) has numbers, not bools. None when some are bools and some numbers (a pass/fail batch
    beside a points one): no mean of the two means anything."""
    if "score_is_bool" not in finished:
        return False
    kinds = finished["score_is_bool"][finished["score"].notna()].fillna(False).astype(bool)
    if kinds.all():
        return bool(len(kinds))
    return None if kinds.any() else False


def _mixed_scores(adapter: str, finished: pd.DataFrame) -> str:
    """The warning for an adapter whose scores are bools in some runs and numbers in others, naming their batches."""
    scored = finished[finished["score"].notna()]
    kinds = scored["score_is_bool"].fillna(False).astype(bool)
    named = [
        f"{what} in batch(es) {', '.join(sorted(map(str, scored['batch_id'][rows].dropna().unique()))) or '(none)'}"
        for what, rows in (("pass/fail (bool) scores", kinds), ("numeric scores", ~kinds))
    ]
    return (
        f"batch_summary: adapter {adapter!r} has {' and '.join(named)}; a mean of the two means nothing, so its "
        "mean_score and interval are NaN. Summarize each batch alone: batch_summary(runs[runs.batch_id == '...'])"
    )


def _spent(everything: pd.DataFrame, latest: pd.DataFrame) -> pd.Series:
    """What each of ``latest``'s tasks cost, every run of it counted (a failed run re-run by ``rerun_failed`` was
    paid for too), aligned on ``latest``; NaN when any of its runs' cost is unknown. A run outside batches is its own."""
    own = latest["cost_usd"].astype(float)
    inside = everything["batch_id"].notna()
    if not inside.any():
        return own
    keyed = everything[inside]
    keys = [keyed[k].astype(object).where(keyed[k].notna(), None) for k in _KEYS]
    costs = keyed["cost_usd"].astype(float)
    totals = costs.groupby(keys, dropna=False, sort=False).agg(lambda c: c.sum(skipna=False))
    at = pd.MultiIndex.from_frame(latest[_KEYS].astype(object).where(latest[_KEYS].notna(), None))
    summed = pd.Series(totals.reindex(at).to_numpy(dtype=float), index=latest.index)
    return summed.where(latest["batch_id"].notna(), own)


def batch_summary(runs: Any) -> pd.DataFrame:
    """Per adapter: finished runs, success rate (Wilson 95%), mean score (t 95%), cost and tokens per task, p50/p95 duration.

    The duration percentiles are of the running time (``running_time``: ``duration_s - waiting_s``, a wait for a
    person to approve left out); ``attrs["duration"]`` says which was used. Cost and tokens per task are NaN when
    any task's are unknown (an unpriced call), as ``runs_df``'s totals are; the cost counts every run of a task
    (a failed run re-run by ``rerun_failed`` was paid for too), the tokens, like the rest, its latest run.

    An adapter's runs are pooled across the batches passed (the same agent run again); when its scores are bools in
    some runs and numbers in others (a pass/fail batch beside a points one), its score columns are NaN and a
    ``UserWarning`` names the batches: pass one batch's runs to summarize it alone."""
    everything = _runs(runs)
    frame = latest_runs(everything)
    frame = frame.assign(adapter=_adapter(frame), spent_usd=_spent(everything, frame))
    rows = []
    for adapter, group in frame.groupby("adapter", sort=True):
        finished = group[group["status"].astype(str).isin(sorted(TERMINAL_STATUSES))]
        n, ok = len(finished), int((finished["status"].astype(str) == "ok").sum())
        low, high = wilson(ok, n)
        scores = finished["score"].to_numpy(dtype=float, na_value=np.nan)
        bools = _bool_scores(finished)
        if bools is None:
            warnings.warn(_mixed_scores(str(adapter), finished), UserWarning, stacklevel=2)
            mean = score_low = score_high = math.nan
        else:
            mean, score_low, score_high = score_interval(scores, bools=bools)
        tokens = finished["input_tokens"].astype("Float64") + finished["output_tokens"].astype("Float64")
        durations, meaning = running_time(finished)
        rows.append(
            {
                "adapter": adapter,
                "n": n,
                "unfinished": len(group) - n,
                "ok": ok,
                "success_rate": ok / n if n else math.nan,
                "success_low": low,
                "success_high": high,
                "scored": int(finished["score"].notna().sum()),
                "mean_score": mean,
                "score_low": score_low,
                "score_high": score_high,
                # unknown when a task's cost or tokens are (an unpriced call): never the mean of the others alone
                "cost_per_task_usd": float(finished["spent_usd"].mean(skipna=False)) if n else math.nan,
                "tokens_per_task": float(tokens.astype(float).mean(skipna=False)) if n else math.nan,
                "duration_p50_s": float(np.nanpercentile(durations, 50)) if np.isfinite(durations).any() else math.nan,
                "duration_p95_s": float(np.nanpercentile(durations, 95)) if np.isfinite(durations).any() else math.nan,
            }
        )
    out = pd.DataFrame(rows, columns=_SUMMARY).set_index("adapter")  # no runs: no rows, the same columns
    meaning = running_time(frame.iloc[:0])[1]
    scores = "Wilson score, 95% (bool scores); else Student t, 95%"
    out.attrs.update(
        success_interval="Wilson score, 95%",
        score_interval=scores,
        duration=meaning,
        cost="every run of each task, re-runs included",
    )
    return out


def compare_batches(a: Any, b: Any) -> pd.DataFrame:
    """``b`` against ``a``, task by task: success and score differences (b − a) with paired 95% t intervals.

    Each side is one adapter's runs (a frame, a ``BatchHandle`` or a source; filter a frame of several
    adapters first). Tasks pair by their text, or by task index and text when a text repeats;
    ``attrs["pairs"]`` holds the paired table.
    """
    left, right = (_one_side(latest_runs(_runs(x)), name) for x, name in ((a, "a"), (b, "b")))
    unique = left["task"].is_unique and right["task"].is_unique  # pair by text; by (index, text) when a text repeats
    pairs = left.merge(right, on=["task"] if unique else ["task_index", "task"], suffixes=("_a", "_b"))
    rows = []
    for metric in ("success", "score"):
        both = pairs[[f"{metric}_a", f"{metric}_b"]].dropna()
        diff = both[f"{metric}_b"].to_numpy(dtype=float) - both[f"{metric}_a"].to_numpy(dtype=float)
        mean, low, high = mean_interval(diff)
        rows.append(
            {
                "metric": metric,
                "pairs": len(both),
                "mean_a": float(both[f"{metric}_a"].mean()) if len(both) else math.nan,
                "mean_b": float(both[f"{metric}_b"].mean()) if len(both) else math.nan,
                "diff": mean,
                "diff_low": low,
                "diff_high": high,
            }
        )
    out = pd.DataFrame(rows).set_index("metric")
    out.attrs.update(interval="paired Student t, 95%", pairs=pairs)
    return out


def _one_side(runs: pd.DataFrame, name: str) -> pd.DataFrame:
    adapters = _adapter(runs).unique()
    if len(adapters) > 1:
        raise InvalidOptionError(
            f"{name} holds runs of {len(adapters)} adapters ({', '.join(sorted(adapters))}); pass one adapter's runs, "
            "e.g. runs[runs.batch_adapter == 'x']"
        )
    finished = runs[runs["status"].astype(str).isin(sorted(TERMINAL_STATUSES))]
    return pd.DataFrame(
        {
            "task_index": finished["task_index"].astype("Int64").to_numpy(),
            "task": finished["task"].astype(str).to_numpy(),
            "success": (finished["status"].astype(str) == "ok").astype(float).to_numpy(),
            "score": finished["score"].to_numpy(dtype=float, na_value=np.nan),
        }
    )
