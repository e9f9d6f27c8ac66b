"""``list_runs`` screens every field it returns from a run's files, as runs_df does: a crafted (or hand-edited)
summary.json holding a token in ``started_at``, ``outcome``, ``process`` or ``manifest`` came back whole while
``task``, ``flags`` and ``using`` were redacted, and a field of the wrong JSON type (``success: "yes"``) was passed
on raw. Each text is now redacted and each misfit read as unknown, through ``noesis_nb.list_runs`` and
``ns.list_runs`` alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

import noesis_nb
import noesis_nb.ns as ns

TOKEN = "ghp_R8x2kLmQ9vT4wZ7pN1sD5fG3hJ6kL0aB2cE4"


def _agent(task: str, ctx: Any) -> str:
    return "done"


def _craft(run_dir: Path, edit: dict[str, Any], metrics: dict[str, Any]) -> None:
    path = run_dir / "summary.json"
    summary = orjson.loads(path.read_bytes())
    summary.update(edit)
    summary.setdefault("metrics", {}).update(metrics)
    path.write_bytes(orjson.dumps(summary))


def _row(rows: list[dict[str, Any]], ep: str) -> dict[str, Any]:
    return next(r for r in rows if r["episode_id"] == ep)


def test_a_token_in_any_summary_field_is_redacted_in_every_row(runs_dir: Path) -> None:
    ep = noesis_nb.solve("task", using=_agent, runs_dir=runs_dir)
    _craft(
        runs_dir / ep,
        {"started_at": TOKEN, "outcome": f"done {TOKEN}", "process": {"name": TOKEN}, "manifest": {"by": TOKEN}},
        {},
    )
    assert TOKEN.encode() in (runs_dir / ep / "summary.json").read_bytes()
    ns.set(runs_dir=str(runs_dir))
    for rows in (noesis_nb.list_runs(runs_dir=runs_dir), ns.list_runs()):
        row = _row(rows, ep)
        raw = orjson.dumps(row, default=str)
        assert TOKEN.encode() not in raw, raw  # before: started_at, outcome, process and manifest held it whole
        assert row["started_at"] is None  # a token is no start time: unknown, as runs_df reads it
        assert row["outcome"].startswith("done ") and "[REDACTED]" in row["outcome"]
        assert row["process"] == {"name": "[REDACTED]"}


def test_fields_of_the_wrong_type_are_unknown_and_right_ones_kept_as_written(runs_dir: Path) -> None:
    crafted = noesis_nb.solve("crafted", using=_agent, runs_dir=runs_dir)
    plain = noesis_nb.solve("plain", using=_agent, runs_dir=runs_dir)
    _craft(runs_dir / crafted, {"outcome": {"x": 1}, "process": ["p"], "manifest": "m"}, {"success": "yes", "veto_count": "3"})
    written = orjson.loads((runs_dir / plain / "summary.json").read_bytes())
    rows = noesis_nb.list_runs(runs_dir=runs_dir)
    odd = _row(rows, crafted)
    # before: "yes", "3", {"x": 1}, ["p"] and "m" came back as written
    assert [odd[k] for k in ("success", "veto_count", "outcome", "process", "manifest")] == [None] * 5
    kept = _row(rows, plain)
    assert kept["started_at"] == written["started_at"]
    assert kept["success"] == written["metrics"]["success"]
    assert kept["outcome"] == written.get("outcome")
    assert kept["process"] == written.get("process")
