"""A summary.json whose act_count the run's state.json contradicts is a problem row, not a number shown as truth."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from noesis_nb.frames import runs_df

from .runkit import SMOKE

FIXTURES = SMOKE.parent


def _unsealed_copy(tmp_path: Path, fixture: str) -> Path:
    """The fixture's run copied, without its seal (so no manifest check would name the edit)."""
    src = next((FIXTURES / fixture).rglob("summary.json")).parent
    run = tmp_path / "runs" / src.name
    shutil.copytree(src, run)
    for name in ("manifest.json", "final.json"):
        (run / name).unlink(missing_ok=True)
    return run


def _act_problems(df) -> list[dict]:
    return [p for p in df.attrs["errors"] if "act_count" in p["reason"]]


def test_an_edited_act_count_is_reported_with_both_numbers(tmp_path):
    run = _unsealed_copy(tmp_path, "noesis-smoke-run")
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    actions = len(json.loads((run / "state.json").read_text(encoding="utf-8"))["outcomes"]["actions"])
    summary["metrics"]["act_count"] = actions + 40
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    df = runs_df(run.parent)
    [problem] = _act_problems(df)
    assert problem["path"] == str(run / "summary.json")
    assert f"act_count is {actions + 40}, but state.json lists {actions} act(s)" in problem["reason"]
    assert "Restore" in problem["reason"]


def test_runs_as_written_report_no_act_count_problem(tmp_path, engine_runs):
    for fixture in ("noesis-smoke-run", "noesis-adr008-allow-run"):
        _unsealed_copy(tmp_path, fixture)
    assert _act_problems(runs_df(tmp_path / "runs")) == []
    runs, _ = engine_runs
    df = runs_df(runs)
    assert len(df) >= 8 and _act_problems(df) == []


def test_without_a_summary_act_count_leaves_tool_calls_out_as_the_summary_does(tmp_path, engine_runs):
    runs, ids = engine_runs
    src = runs / ids["replayed"]  # one adapter act and tool calls run through the tool contract
    run = tmp_path / "runs" / src.name
    shutil.copytree(src, run)
    events = [json.loads(line) for line in (run / "events.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    acts = sum(e["phase"] == "act" for e in events)
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    actions = json.loads((run / "state.json").read_text(encoding="utf-8"))["outcomes"]["actions"]
    assert summary["metrics"]["act_count"] == acts < len(actions)  # the run as written: tool calls are actions, not acts
    for name in ("manifest.json", "final.json", "summary.json"):
        (run / name).unlink()
    assert runs_df(run.parent).loc[0, "act_count"] == acts
