"""Whether a run's ``summary.json`` usage says what its ``model.call`` events do, where the frames count the events.

The summary's ``x-noesis_nb.usage`` is the sum of the run's calls when it was sealed; the log is the record of
each call. Where ``runs_df`` prices a run from its events (a run not sealed here, or sealed here but edited since,
or whose sums cannot price as its calls), the two must agree: a call line written twice (a new id), a line added or
removed, or a summary taken from another run makes them differ. The frames go on showing the events' figures (the
ones ``usage_df`` and ``events_df`` list), and the difference is reported, naming both.
"""

from __future__ import annotations

from typing import Any

from .callcolumns import call_columns
from .columns import TOKEN_COLUMNS
from .problems import LoadProblem
from .values import is_count

__all__ = ["usage_disagreement"]

_COMPARED = ("model_calls", *TOKEN_COLUMNS)


def _said(summary: Any) -> dict[str, int | float] | None:
    """The figures ``summary`` (a checked ``summary.json``) gives in ``x-noesis_nb.usage`` that are counts."""
    ext = summary.get("x-noesis_nb") if type(summary) is dict else None
    usage = ext.get("usage") if type(ext) is dict else None
    if type(usage) is not dict:
        return None
    said = {name: value for name in _COMPARED if is_count(value := usage.get(name))}
    return said or None


def usage_disagreement(record: Any) -> LoadProblem | None:
    """The problem of a run record (``runrecord.RunRecord``, its calls read from its events) whose summary gives
    another number of model calls or tokens than those events add up to; None when they agree or either is unknown.
    The events' totals are those ``runs_df`` shows (``call_columns``, kept with the record for ``runusage``).
    A run whose ``events.jsonl`` or ``summary.json`` changed since its seal is not compared: the change is its
    problem (``sealsizes``), and one cause is reported once."""
    if record.get("usage_unchecked"):  # its log or summary changed since the seal: that one problem says it
        return None
    said = _said(record["summary"])
    if said is None:
        return None
    columns = call_columns(record)
    counted: dict[str, float] = {"model_calls": float(sum(columns.weights))}
    for name, values in zip(TOKEN_COLUMNS, columns.tokens):
        counted[name] = float(sum(values))  # NaN when any call left it unknown: not compared
    differ = [name for name, value in said.items() if counted[name] == counted[name] and counted[name] != value]
    if not differ:
        return None
    ref = record["ref"]
    summary_says = ", ".join(f"{name} {_number(said[name])}" for name in differ)
    events_say = ", ".join(f"{name} {_number(counted[name])}" for name in differ)
    reason = (
        f"x-noesis_nb.usage gives {summary_says}, but the run's events.jsonl adds up to {events_say}: the frames "
        "show the events' figures (runs_df's totals are the sums of the usage_df rows of the run's model.call lines, "
        "the record of each call; the summary only summed them when the run ended). A call line written twice (look "
        "for two alike in events.jsonl), a line added or removed since, or a summary from another run makes them "
        "differ: fix the file that is wrong"
    )
    return LoadProblem(ref.fs.url(ref.file("summary.json")), None, reason)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
